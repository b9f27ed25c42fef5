"""explain/excmeaning.py: the innermost exception read by what its words mean, when no knowledge entry matched.

The tracebacks marked 'made here' were printed by CPU torch 2.13.0+cpu (Python 3.11) on this machine, from the
script named in their first frame (the venv's path shortened to /opt/venv); the others quote a library's own
message format, cited per case, inside Python's traceback format."""

import pytest

from gpudoctor import explain

# made here: torch.save(..., "/dev/full") - every write(2) to /dev/full fails with ENOSPC (null(4)), so the zip
# writer's position falls behind (caffe2/serialize/inline_container.cc ostream_write_func)
SAVE_FULL = """Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1003, in save
    _save(
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1312, in _save
    zip_file.write_record(name, storage, num_bytes)
RuntimeError: basic_ios::clear: iostream error

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/work/job/save_full.py", line 3, in <module>
    torch.save({"model": m.state_dict()}, "/dev/full")
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1002, in save
    with _open_zipfile_writer(f) as opened_zipfile:
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 834, in __exit__
    self.file_like.write_end_of_file()
RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 832 vs 726
"""
# made here: torch.load of a checkpoint cut to half its bytes
LOAD_TRUNC = """Traceback (most recent call last):
  File "/work/job/t_load_trunc.py", line 6, in <module>
    torch.load("ck_trunc.pt")
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1568, in load
    with _open_zipfile_reader(opened_file) as opened_zipfile:
         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 807, in __init__
    super().__init__(torch._C.PyTorchFileReader(name_or_buffer))
                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
OSError: [Errno 22] Invalid argument
"""
# made here: softmax of an int64 tensor (ATen/Dispatch.h: '"<kernel>" not implemented for '<dtype>'')
NOTIMPL = """Traceback (most recent call last):
  File "/work/job/t_notimpl.py", line 3, in <module>
    y = torch.nn.functional.softmax(x, dim=-1)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/nn/functional.py", line 2207, in softmax
    ret = input.softmax(dim)
          ^^^^^^^^^^^^^^^^^^
NotImplementedError: "softmax_lastdim_kernel_impl" not implemented for 'Long'
"""
# made here: x.t().view(-1) (aten/src/ATen/native/TensorShape.cpp)
VIEW = """Traceback (most recent call last):
  File "/work/job/t_view.py", line 3, in <module>
    y = x.view(-1)
        ^^^^^^^^^^
RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.
"""
# made here: scaled_dot_product_attention with an int64 mask; no frame of torch's (a C function)
SDPA = """Traceback (most recent call last):
  File "/work/job/t_sdpa_mask.py", line 5, in <module>
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: long int and  query.dtype: float instead.
"""
# made here: torch.load of a text file: CPython's own 'list index out of range' inside torch's unpickler
LOAD_TEXT = """Traceback (most recent call last):
  File "/work/job/t_load_dir.py", line 2, in <module>
    torch.load("/proc/self/status")
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1626, in load
    return _legacy_load(
           ^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/serialization.py", line 1886, in _legacy_load
    magic_number = pickle_module.load(f, **pickle_load_args)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_weights_only_unpickler.py", line 590, in load
    return Unpickler(file, encoding=encoding).load()
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_weights_only_unpickler.py", line 455, in load
    list_obj = self.stack[-1]
               ~~~~~~~~~~^^^^
IndexError: list index out of range
"""

# huggingface_hub/utils/_validators.py validate_repo_id's message, raised under transformers' cached_files for a name
# that is no local folder (transformers/utils/hub.py: os.path.isdir first); the maintainers: a repo id is never a
# local path (https://github.com/huggingface/huggingface_hub/pull/1683)
HUB_PATH = """Traceback (most recent call last):
  File "/work/job/finetune.py", line 5, in <module>
    model = AutoModel.from_pretrained("/scratch/runs/ft/checkpoint-1500")
  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/hub.py", line 470, in cached_files
    hf_hub_download(
  File "/opt/venv/lib/python3.11/site-packages/huggingface_hub/utils/_validators.py", line 154, in validate_repo_id
    raise HFValidationError(
huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/scratch/runs/ft/checkpoint-1500'. Use `repo_type` argument if needed.
"""
# Horovod's own message (horovod/common/operations.cc SHUT_DOWN_ERROR) speaks of 'a tensor' and 'broadcast': raised
# in Horovod's file it is Horovod's, not a tensor rule of torch's
HOROVOD = """Traceback (most recent call last):
  File "/work/job/train.py", line 40, in <module>
    hvd.allreduce_(p.grad)
  File "/opt/venv/lib/python3.11/site-packages/horovod/torch/mpi_ops.py", line 436, in synchronize
    mpi_lib.horovod_torch_wait_and_clear(handle)
RuntimeError: Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution.
"""


def root(kb, text):
    res = explain.explain_text(text, kb)
    f = next((f for f in res["findings"] if f["role"] == "root"), None)
    return f and f["id"], f


def all_text(f):
    return "\n".join(c["text"] + "\n" + "\n".join(c["fix"]) for c in f["causes"])


def test_a_short_write_of_torch_save_is_a_full_disk_not_a_torch_error(kb):
    rid, f = root(kb, SAVE_FULL)
    assert rid == "errno.enospc"
    assert f["notes"][0].startswith("How sure: low")
    assert "short write" in f["causes"][0]["text"] and "df -h" in f["causes"][0]["fix"][0]


def test_an_os_error_while_torch_load_reads_is_the_checkpoint(kb):
    rid, f = root(kb, LOAD_TRUNC)
    assert rid == "torch.checkpoint_load"
    assert "truncated" in f["causes"][0]["text"]
    # CPython's IndexError inside the unpickler is no tensor index
    assert root(kb, LOAD_TEXT)[0] == "torch.checkpoint_load"


def test_no_kernel_for_a_dtype_names_the_kernel_and_the_dtype(kb):
    rid, f = root(kb, NOTIMPL)
    assert rid == "usercode.dtype_mismatch"
    assert f["causes"][0]["fix"][0].startswith("softmax_lastdim_kernel_impl has no kernel for Long")


def test_torchs_words_without_a_torch_frame_and_the_rule_it_states(kb):
    rid, f = root(kb, SDPA)
    assert rid == "usercode.dtype_mismatch"
    assert "torch expected attn_mask to be bool or float" in f["causes"][0]["text"]
    assert any("/work/job/t_sdpa_mask.py:5" in n for n in f["notes"])


def test_the_messages_own_advice_leads_the_first_cause(kb):
    rid, f = root(kb, VIEW)
    assert rid == "usercode.shape_mismatch"
    assert f["causes"][0]["text"].endswith("\u201cUse .reshape(...) instead.\u201d")


# made here: TORCH_LOGS="+dynamo,recompile" python -c 'import torch' (torch/_logging/_internal.py: a message of
# several lines, its first one empty)
LOGS = """Traceback (most recent call last):
  File "/work/job/logs_typo.py", line 1, in <module>
    import torch
  File "/opt/venv/lib/python3.11/site-packages/torch/__init__.py", line 3084, in <module>
    _logging._init_logs()
  File "/opt/venv/lib/python3.11/site-packages/torch/_logging/_internal.py", line 1121, in _init_logs
    _update_log_state_from_env()
  File "/opt/venv/lib/python3.11/site-packages/torch/_logging/_internal.py", line 901, in _update_log_state_from_env
    log_state = _parse_log_settings(log_setting)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/opt/venv/lib/python3.11/site-packages/torch/_logging/_internal.py", line 855, in _parse_log_settings
    raise ValueError(_invalid_settings_err_msg(settings))
ValueError: 
Invalid log settings: +dynamo,recompile, must be a comma separated list of fully
qualified module names, registered log names or registered artifact names.
For more info on various settings, try TORCH_LOGS="help"
Valid settings:
all, annotation, aot, aot_graphs, aot_graphs_effects, aot_joint_graph, async_compile, auto_chunker, autograd, autotuning, benchmarking, bytecode, c10d, cache, caching, compiled_autograd, compiled_autograd_verbose, compute_dependencies, cudagraph_static_inputs, cudagraphs, custom_format_test_artifact, ddp, ddp_graphs, distributed, dtensor, dynamic, dynamo, export, fake_tensor, fsdp, fusion, graph, graph_breaks, graph_code, graph_code_verbose, graph_region_expansion, graph_sizes, guards, hierarchical_compile, incremental, inductor, inductor_metrics, ir_post_fusion, ir_pre_fusion, kernel_code, loop_ordering, loop_tiling, native_dsl, node_runtime_estimation, not_implemented, onnx, onnx_diagnostics, output_code, overlap, overlap_scheduling, perf_hints, post_grad_graphs, pp, pre_grad_graphs, recompiles, recompiles_verbose, schedule, side_effects, sym_node, torch, trace_bytecode, trace_call, trace_shape_events, trace_source, verbose_guards

"""


def test_a_multi_line_message_is_read_to_its_end(kb):
    rid, f = root(kb, LOGS)
    assert rid == "torch.usage"
    assert "environment variable TORCH_LOGS" in f["causes"][0]["text"]
    assert f["causes"][0]["text"].endswith('try TORCH_LOGS="help"\u201d')  # the advice ends at its line
    # the closest name of torch's logging registry first (explain-textfix31, tools/gen_torch_logs.py), then the
    # message's own check
    assert f["causes"][0]["fix"][0].startswith("export TORCH_LOGS=+dynamo,recompiles (torch's logging registry")
    assert f["causes"][0]["fix"][1].startswith('check TORCH_LOGS where the job sets it (echo "$TORCH_LOGS"')


def test_a_log_line_after_the_exception_is_not_its_message(kb):
    # torchrun's glog record after a rank's traceback (torch/distributed/elastic/multiprocessing/api.py)
    text = VIEW + ("W1126 11:42:00.747000 456 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process "
                   "818 closing signal SIGTERM. Use kill to stop it.\n")
    _, f = root(kb, text)
    assert "Sending process" not in f["causes"][0]["text"] and "Use .reshape" in f["causes"][0]["text"]



def test_another_processs_line_after_a_ranks_exception_is_not_its_message(kb):
    # torchrun prefixes every line of a rank's stream ('[rank1]: ', torch/distributed/elastic/multiprocessing);
    # the unprefixed lines after rank 1's exception are another process's: rank 0's print and the warning of
    # torch/distributed/c10d_logger.py ('barrier(): using the device under current context. You can specify
    # `device_id` in `init_process_group` to mute this warning.', distributed_c10d.py barrier) - no advice of its
    text = ("[rank1]: Traceback (most recent call last):\n"
            "[rank1]:   File \"/work/job/tp.py\", line 18, in <module>\n"
            "[rank1]:     shard = weight.chunk(tp_size, dim=0)[tp_rank]\n"
            "[rank1]: RuntimeError: chunk expects `chunks` to be greater than 0, got: -1\n"
            "rank 0 holds shard (1024, 512)\n"
            "/opt/venv/lib/python3.12/site-packages/torch/distributed/c10d_logger.py:83: UserWarning: barrier(): using "
            "the device under current context. You can specify `device_id` in `init_process_group` to mute this "
            "warning.\n")
    _, f = root(kb, text)
    assert not any("mute this warning" in c["text"] for c in f["causes"])
    # unprefixed, a Python warning's line ('<file>:<line>: UserWarning: ...', Lib/warnings.py) ends the message too
    _, f = root(kb, text.replace("[rank1]: ", ""))
    assert not any("mute this warning" in c["text"] for c in f["causes"])
    # the same message's own next line, with the rank's prefix, is still read
    ranked = "".join("[rank1]: %s\n" % ln for ln in VIEW.replace(" Use .reshape", "\nUse .reshape").splitlines())
    _, g = root(kb, ranked)
    assert any("Use .reshape(...) instead" in c["text"] for c in g["causes"])

# made here: three ATen / autograd checks called from the user's line (no frame of torch's, no word 'tensor')
MADE = """Traceback (most recent call last):
  File "/work/job/{name}.py", line 2, in <module>
    {call}
{exc}: {msg}
"""


@pytest.mark.parametrize("name,call,exc,msg,want", [
    # c10/core/WrapDimMinimal.cpp maybe_wrap_dim
    ("dim", "torch.randn(2,3).sum(dim=4)", "IndexError",
     "Dimension out of range (expected to be in range of [-2, 1], but got 4)", "usercode.shape_mismatch"),
    # aten/src/ATen/InferSize.h infer_size
    ("reshape", "torch.randn(6).reshape(4,2)", "RuntimeError", "shape '[4, 2]' is invalid for input of size 6",
     "usercode.shape_mismatch"),
    # torch/csrc/autograd/VariableTypeUtils.h check_inplace
    ("leaf_inplace", "x.add_(1)", "RuntimeError",
     "a leaf Variable that requires grad is being used in an in-place operation.", "usercode.inplace_modified"),
])
def test_torchs_own_formats_without_the_word_tensor(kb, name, call, exc, msg, want):
    rid, f = root(kb, MADE.format(name=name, call=call, exc=exc, msg=msg))
    assert rid == want
    if want == "usercode.shape_mismatch":
        # the first cause says what the message says, not the family's commonest case (a Linear layer); a view's sizes
        # against its element count are read with the numbers (explain-fix23, opfix._view)
        first = f["causes"][0]["text"]
        assert first.startswith(("torch refused the tensors of the call at /work/job/%s.py:2" % name,
                                 "The view [4, 2] asks for 8 elements and the tensor holds 6")), first


# made here: F.linear with a weight freed to torch.empty(0), as ZeRO-3 leaves a partitioned parameter outside the
# engine's forward (deepspeed/runtime/zero/partition_parameters.py); the same line as
# https://github.com/huggingface/accelerate/issues/1261 ('size mismatch, got ...' under zero_stage: 3)
ZERO = """Traceback (most recent call last):
  File "/work/job/zero_empty2.py", line 5, in <module>
    y = F.linear(torch.randn(4, 512), lin.weight)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: size mismatch, got input (4), mat (4x512), vec (0)
"""


def test_an_empty_parameter_is_a_sharded_one_read_outside_forward(kb):
    rid, f = root(kb, ZERO)
    assert rid == "usercode.shape_mismatch"
    assert f["causes"][0]["text"].startswith("A tensor of 0 elements where a parameter should be")
    assert "deepspeed.zero.GatheredParameters" in f["causes"][0]["fix"][0]
    # a size mismatch without an empty tensor has no such cause
    _, g = root(kb, ZERO.replace("vec (0)", "vec (256)"))
    assert not any("0 elements" in c["text"] for c in g["causes"])


def test_a_path_given_as_a_hub_id_is_a_missing_folder(kb):
    rid, f = root(kb, HUB_PATH)
    assert rid == "transformers.hub"
    assert "no folder of that name exists" in f["causes"][0]["text"]
    assert "ls -ld /scratch/runs/ft/checkpoint-1500" in f["causes"][0]["fix"][0]


# chflame163/ComfyUI_LayerStyle_Advance#110: the message line as reported (a Windows drive path as the id), in
# HUB_PATH's traceback
HUB_WIN = HUB_PATH.replace(
    "huggingface_hub.errors.HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': "
    "'/scratch/runs/ft/checkpoint-1500'. Use `repo_type` argument if needed.",
    "huggingface_hub.errors.HFValidationError: Repo id must use alphanumeric chars or '-', '_', '.', '--' and '..' are "
    "forbidden, '-' and '.' cannot start or end the name, max length is 96: "
    "'D:\\ComfyUI-Nunchaku\\ComfyUI\\models\\LLavacheckpoints\\files_for_uform_gen2_qwen'.")


def test_a_windows_path_given_as_a_hub_id_is_a_path(kb):
    assert "D:\\ComfyUI-Nunchaku" in HUB_WIN
    rid, f = root(kb, HUB_WIN)
    assert rid == "transformers.hub"
    assert f["causes"][0]["text"].startswith("D:\\ComfyUI-Nunchaku\\ComfyUI\\models") and \
        "no folder of that name exists" in f["causes"][0]["text"]
    # the note that quotes a message ending in its own period adds none ('... if needed..' before)
    _, g = root(kb, HUB_PATH)
    assert any(n.endswith("Use `repo_type` argument if needed.") for n in g["notes"] if isinstance(n, str))


def test_another_librarys_tensor_words_stay_that_librarys(kb):
    rid, _ = root(kb, HOROVOD)
    assert rid and rid.startswith("horovod.")


@pytest.mark.parametrize("msg,want", [
    ("To prevent overwriting, clone the tensor outside of torch.compile() or call "
     "torch.compiler.cudagraph_mark_step_begin() before each model invocation.", "clone the tensor"),
    ("x is not supported. You can also file an issue at https://github.com/pytorch/pytorch/issues.", ""),
    ("the dataset shards were written with another schema", ""),
    # safetensors/torch.py _remove_duplicate_names' message (save_file of tied weights)
    ("Some tensors share memory, this will lead to duplicate memory on disk. A potential way to correctly save your "
     "model is to use `save_model`.", "is to use `save_model`"),
])
def test_advice_is_the_sentences_that_say_what_to_do(msg, want):
    from gpudoctor.explain.excmeaning import advice

    got = advice(msg)
    assert (want in got) if want else got == ""


# CPython's own IndexError message (Objects/listobject.c list_item: "list index out of range") raised in a frame of
# torch's: the DataLoader's fetcher indexing a dataset that is a Python list (torch/utils/data/_utils/fetch.py
# _MapDatasetFetcher.fetch: 'data = [self.dataset[idx] for idx in possibly_batched_index]'): a sequence's index, no
# tensor's, so no usercode.index_out_of_range (its causes are embedding ids and gather indices)
PY_INDEX = """Traceback (most recent call last):
  File "/work/job/loop.py", line 3, in <module>
    for b in loader: pass
  File "/opt/venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 52, in fetch
    data = [self.dataset[idx] for idx in possibly_batched_index]
IndexError: list index out of range
"""


def test_a_python_lists_index_in_torchs_frame_is_no_tensor_rule(kb):
    rid, f = root(kb, PY_INDEX)
    assert rid == "code.exception"
    assert not any("torch refusing the tensors" in n for n in f["notes"])
    # torch's own index check keeps its family (aten/src/ATen/native/TensorAdvancedIndexing.cpp: 'index 7 is out of
    # bounds for dimension 0 with size 4')
    rid, _ = root(kb, PY_INDEX.replace("list index out of range", "index 7 is out of bounds for dimension 0 with size 4"))
    assert rid == "usercode.index_out_of_range"


# A library's refusal that says nothing to do states a rule: quoted, labelled as the message's rule, in the first
# cause's text, never in a fix line (a regression of cfadfe9: the merged grammar took only remedies). The texts are
# the libraries' own format strings, filled in: Lightning's
# src/lightning/pytorch/trainer/connectors/logger_connector/fx_validator.py check_logging_levels ("You can't
# `self.log({}={})` inside `{}`, must be one of {}.") and callbacks/model_checkpoint.py; accelerate's
# src/accelerate/accelerator.py, commands/launch.py and parallelism_config.py.
@pytest.mark.parametrize("msg,want", [
    ("You can't `self.log(on_step=True)` inside `on_train_epoch_end`, must be one of (False,).",
     "You can't `self.log(on_step=True)` inside `on_train_epoch_end`, must be one of (False,)."),
    ("You can't train a model that has been loaded with `device_map='auto'` in any distributed mode.",
     "You can't train a model that has been loaded with `device_map='auto'` in any distributed mode."),
    ("--no_python cannot be used with TPU launcher", "--no_python cannot be used with TPU launcher"),
    ("cp_backend must be one of ['allgather', 'alltoall'], but got ring", "must be one of ['allgather'"),
    ("`ModelCheckpoint(save_last='link')` is only supported for local file paths, got `dirpath=s3://b/ck`.",
     "`ModelCheckpoint(save_last='link')` is only supported for local file paths"),  # (its code span whole)
    # a remedy in the message: that is quoted, not the rule (fx_validator.py check_logging's HINT)
    ("You can't `self.log()` inside `on_fit_start`. HINT: You can still log directly to the logger by using "
     "`self.logger.experiment`.", None),
    ("the dataset shards were written with another schema", ""),
])
def test_a_refusal_with_no_remedy_gives_the_rule_it_states(msg, want):
    from gpudoctor.explain.excmeaning import advice, rule

    if want is None:
        assert "self.logger.experiment" in advice(msg)
        return
    assert advice(msg) == ""
    got = rule(msg)
    assert (want in got) if want else got == ""


# made here from fx_validator.py's format (above): self.log(..., on_step=True) in on_train_epoch_end, Lightning 2.x
PL_LOG = """Traceback (most recent call last):
  File "/work/job/train.py", line 41, in <module>
    trainer.fit(model, datamodule=dm)
  File "/opt/venv/lib/python3.11/site-packages/lightning/pytorch/core/module.py", line 481, in log
    on_step, on_epoch = _FxValidator.check_logging_and_get_default_levels(
  File "/opt/venv/lib/python3.11/site-packages/lightning/pytorch/trainer/connectors/logger_connector/fx_validator.py", \
line 185, in check_logging_levels
    raise MisconfigurationException(msg)
lightning.fabric.utilities.exceptions.MisconfigurationException: You can't `self.log(on_step=True)` inside \
`on_train_epoch_end`, must be one of (False,).
"""


# A library no table reads: timm's Kron optimizer, timm/optim/kron.py _init_Q_exprs (timm 1.0.29,
# https://github.com/huggingface/pytorch-image-models/blob/main/timm/optim/kron.py): raise ValueError(f"Invalid
# memory_save_mode: {memory_save_mode}, must be one of [None, 'one_diag', 'all_diag']"), filled in, inside Python's
# traceback format (timm's frames as the file's lines; torch.optim's wrapper frames as torch 2.x prints them)
TIMM_LOG = """Traceback (most recent call last):
  File "/work/job/train.py", line 52, in <module>
    optimizer.step()
  File "/opt/venv/lib/python3.11/site-packages/torch/optim/optimizer.py", line 493, in wrapper
    out = func(*args, **kwargs)
  File "/opt/venv/lib/python3.11/site-packages/timm/optim/kron.py", line 252, in step
    state["Q"], exprs = _init_Q_exprs(
  File "/opt/venv/lib/python3.11/site-packages/timm/optim/kron.py", line 445, in _init_Q_exprs
    raise ValueError(
ValueError: Invalid memory_save_mode: smart_all_diag, must be one of [None, 'one_diag', 'all_diag']
"""


def test_a_librarys_stated_rule_is_quoted_as_its_rule_never_as_a_fix(kb):
    # excmeaning's reading: a message no knowledge entry or generated table knows (Lightning's fx_validator message
    # was this case until tools/gen_lightning_messages.py read it: then the table's own answer, below)
    rid, f = root(kb, TIMM_LOG)
    # (timm's own family entry since family16: the package's family read from its wheel's generated sites; its
    # family is code.library_error's)
    assert rid == "timm.usage" and f["family"] == "code.library_error"
    assert "The message states the rule: \u201cInvalid memory_save_mode: smart_all_diag, must be one of" \
        in f["causes"][0]["text"], f["causes"][0]["text"]
    assert "What to do" not in f["causes"][0]["text"] and "says what to do" not in f["causes"][0]["text"]
    assert not any("must be one of" in x for c in f["causes"] for x in c["fix"])
    # Lightning's message is its table's site (lightning.log, a fix row of its own): the fix says what to pass,
    # it does not repeat the rule
    rid, f = root(kb, PL_LOG)
    assert rid == "lightning.log"
    assert any("on_step=False" in x for x in f["causes"][0]["fix"])
    assert not any("self.log(on_step" in x or "must be one of" in x for c in f["causes"] for x in c["fix"])
