"""upgrade19: the installation as the fix (issue 18, "name the fix"): the package that raised and the one whose code
called into it, the versions the text prints (gpudoctor/explain/upgrade.py)."""

from gpudoctor import explain
from gpudoctor.explain import pytb, upgrade

# huggingface/trl#3304 (https://github.com/huggingface/trl/issues/3304): `trl vllm-serve` with a vLLM older than TRL's
# own requirement (the settled fix: pip install trl[vllm], which pins the vLLM TRL supports)
TRL3304 = """Traceback (most recent call last):
  File "/usr/local/bin/trl", line 8, in <module>
    sys.exit(main())
  File "/usr/local/lib/python3.10/dist-packages/trl/cli.py", line 95, in main
    vllm_serve_main(script_args)
  File "/usr/local/lib/python3.10/dist-packages/trl/scripts/vllm_serve.py", line 238, in main
    llm = LLM(
  File "/usr/local/lib/python3.10/dist-packages/vllm/utils.py", line 1022, in inner
    return fn(*args, **kwargs)
  File "/usr/local/lib/python3.10/dist-packages/vllm/entrypoints/llm.py", line 212, in __init__
    engine_args = EngineArgs(
TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_extension_cls'
"""
# huggingface/trl#3859 (https://github.com/huggingface/trl/issues/3859): the issue template's system info (TRL's
# `trl env`), and torch.utils.collect_env's pip lines as vLLM's bug template shows them
ENV = """- Python version: 3.12.0
- TRL version: 0.19.1
- PyTorch version: 2.7.1
- Transformers version: 4.54.1
- vLLM version: 0.10.0
[pip3] lmcache==0.3.9.post2
"""


def _tb(text):
    got = pytb.parse(text)
    return got[-1] if isinstance(got, list) else got


def _fixes(f):
    return [x for c in f["causes"] for x in c["fix"]]


def test_the_integrating_package_is_the_library_frame_that_called_into_the_raiser():
    tb = _tb(TRL3304)
    assert tb and pytb.innermost(tb)[4] == "vllm"
    p, file, line, fn = upgrade.integrator(tb, "vllm")
    assert (p, line, fn) == ("trl", 238, "main") and file.endswith("trl/scripts/vllm_serve.py")
    # an executor's frame (Ray's actor call) is stepped over like torch's: it runs what it is handed
    cli = '    llm = LLM(\n'
    ray = TRL3304.replace(cli, cli + '  File "/usr/local/lib/python3.10/dist-packages/ray/_private/function_manager.py", '
                          'line 696, in actor_method_executor\n    return method(__ray_actor, *args, **kwargs)\n')
    assert "ray/_private" in ray and upgrade.integrator(_tb(ray), "vllm")[0] == "trl"
    # the user's own frame first: no integrating package
    user = TRL3304.replace("/usr/local/lib/python3.10/dist-packages/trl/scripts/vllm_serve.py", "/home/u/serve.py")
    assert upgrade.integrator(_tb(user), "vllm") is None


def test_the_versions_the_text_prints_are_read_by_distribution(kb):
    import io

    from gpudoctor.explain.scan import scan_stream

    got = upgrade.installed(scan_stream(io.BytesIO(ENV.encode()), kb))
    assert got["trl"][0] == "0.19.1" and got["vllm"][0] == "0.10.0" and got["torch"][0] == "2.7.1"
    assert got["lmcache"][0] == "0.3.9.post2" and got["transformers"][0] == "4.54.1"
    assert upgrade.norm("Transformer_Engine") == "transformer-engine"
    assert explain.explain_text(ENV, kb)["verdict"] == "no_error"  # version lines are no error
    # a version in a frame's folder (an egg)
    tb = {"frames": [("/opt/py/lib/python3.10/site-packages/vllm-0.7.0-py3.10-linux-x86_64.egg/vllm/x.py", 3, "f")]}
    assert upgrade.installed(scan_stream(io.BytesIO(b"x\n"), kb), tb)["vllm"] == ("0.7.0", None)


def test_an_internal_failure_inside_a_library_names_the_upgrade_first(kb):
    # the shape of LMCache/LMCache#2069 (https://github.com/LMCache/LMCache/pull/2069: vLLM 0.11.0 against LMCache's
    # trunk, "'CachedRequestData' object has no attribute 'resumed_req_ids'") with the integrating package's frame
    # outward of the raiser's: the fix names both installations and the versions printed
    text = ENV + """Traceback (most recent call last):
  File "/home/u/serve.py", line 10, in <module>
    engine.step()
  File "/usr/local/lib/python3.12/dist-packages/lmcache/integration/vllm/vllm_v1_adapter.py", line 569, in wait_for_layer_load
    self._engine.wait(layer_name)
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/sched/output.py", line 120, in wait
    return self.kv[layer_name]
KeyError: 'model.layers.0.self_attn.attn'
"""
    f = explain.explain_text(text, kb)["findings"][0]
    fixes = _fixes(f)
    assert fixes[0].startswith("upgrade lmcache (pip install -U lmcache; installed: lmcache 0.3.9.post2"), fixes[0]
    assert "pin vllm to the release lmcache supports" in fixes[0]
    assert fixes[1].startswith("or upgrade vllm (pip install -U vllm; installed: vllm 0.10.0"), fixes[1]


def test_a_check_that_states_its_rule_keeps_the_librarys_reading_first(kb):
    # vllm-project/vllm#28873's assert (https://github.com/vllm-project/vllm/issues/28873): a rule the check states is a
    # validation of what the program gave (raised deeper than an argument check of the user's call): the upgrade is
    # the last alternative; a frame in a source checkout (not site-packages) is upgraded there (git pull), not with pip
    text = """Traceback (most recent call last):
  File "/home/u/run.py", line 3, in <module>
    llm = LLM(model)
  File "/home/u/workspace/vllm/vllm/entrypoints/llm.py", line 297, in __init__
    self.llm_engine = LLMEngine.from_engine_args(
  File "/home/u/workspace/vllm/vllm/v1/engine/llm_engine.py", line 112, in from_engine_args
    return cls(vllm_config=vllm_config)
  File "/home/u/workspace/vllm/vllm/v1/executor/uniproc_executor.py", line 47, in _init_executor
    self.collective_rpc("init_device")
  File "/home/u/workspace/vllm/vllm/v1/worker/gpu_worker.py", line 212, in init_device
    assert self.parallel_config.local_world_size <= visible_device_count, (
AssertionError: local_world_size (16) must be less than or equal to the number of visible devices (8).
"""
    f = explain.explain_text(text, kb)["findings"][0]
    fixes = _fixes(f)
    last = [x for x in fixes if "upgrade vllm" in x]
    assert last and not fixes[0].startswith("upgrade"), fixes
    assert "git -C /home/u/workspace/vllm pull" in last[0] and "--target /home/u/workspace/vllm vllm" in last[0]


def test_a_key_inside_a_library_is_upgraded_after_its_own_reading(kb):
    # a KeyError in a library's own frames may be the program's data (a dataset without the column): the upgrade is
    # the second step, after the library's reading; an AttributeError names no data: the upgrade is first
    head = """Traceback (most recent call last):
  File "/home/u/train.py", line 9, in <module>
    trainer.train()
  File "/usr/lib/python3/dist-packages/transformers/trainer.py", line 2241, in train
    return inner_training_loop(
  File "/usr/lib/python3/dist-packages/transformers/trainer.py", line 2548, in _inner_training_loop
    tr_loss_step = self.training_step(model, inputs)
  File "/usr/lib/python3/dist-packages/transformers/trainer.py", line 3698, in training_step
    loss = self.compute_loss(model, inputs)
  File "/usr/lib/python3/dist-packages/transformers/trainer.py", line 3759, in compute_loss
    loss = outputs["loss"] if isinstance(outputs, dict) else outputs[0]
"""
    fixes = _fixes(explain.explain_text(head + "KeyError: 'loss'\n", kb)["findings"][0])
    at = [i for i, x in enumerate(fixes) if x.startswith("upgrade transformers (pip install -U transformers)")]
    assert at and at[0] >= 1, fixes
    fixes = _fixes(explain.explain_text(head + "AttributeError: 'dict' object has no attribute 'logits'\n", kb)
                   ["findings"][0])
    assert any(x.startswith("upgrade transformers (pip install -U transformers)") for x in fixes), fixes
    # review19: an attribute of None is as often a value the call handed over (a batch without the field): the upgrade
    # after the library's reading, on that condition, never 'a fault of this release'
    fixes = _fixes(explain.explain_text(head + "AttributeError: 'NoneType' object has no attribute 'logits'\n", kb)
                   ["findings"][0])
    at = [i for i, x in enumerate(fixes) if "upgrade transformers (pip install -U transformers)" in x]
    assert at and at[0] >= 1 and fixes[at[0]].startswith("if no argument or field your call passes is None"), fixes
    assert not any("is a fault of this release" in x for x in fixes), fixes


def test_no_upgrade_for_torchs_own_frames_or_a_users_file(kb):
    text = """Traceback (most recent call last):
  File "/home/u/train.py", line 5, in <module>
    x = cfg["lr"]
KeyError: 'lr'
"""
    f = explain.explain_text(text, kb)["findings"][0]
    assert not any("pip install -U" in x for x in _fixes(f))
    assert upgrade.advice(None, {"exc": "KeyError"}, "torch") == ([], None, False)


# ---------------------------------------------------------------- built without a feature (tools/gen_build_features.py)

def test_the_build_features_slice_regenerates_the_committed_table(tmp_path):
    import os
    import sys

    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(repo, "tools"))
    import gen_build_features
    import knowgen

    got = knowgen.regenerated(gen_build_features.main, os.path.join(repo, "tools", "data",
                                                                    "build_features_slice.txt"), tmp_path / "o.json")
    assert got["sites"] == knowgen.committed("build_features")["sites"]
    opts = {s["option"] for s in got["sites"] if s.get("family")}
    assert {"--enable-mt", "MPI_HOME", "NCCL_HOME"} <= opts
    # a macro a configure probe decides (a header found) is no option: UCX's HAVE_CURAND follows AC_MSG_CHECKING
    assert not any(s["macro"] == "HAVE_CURAND" for s in got["sites"])


def test_a_ucx_without_thread_support_names_enable_mt(kb):
    # open-mpi/ompi#6171 (https://github.com/open-mpi/ompi/issues/6171): Open MPI 3.1's pml ucx over a self-built UCX
    # without --enable-mt, under MPI_THREAD_MULTIPLE
    text = ("[pge328:67669] ../../../../../openmpi-3.1.2/ompi/mca/pml/ucx/pml_ucx.c:226 Error: UCP worker does not "
            "support MPI_THREAD_MULTIPLE\n")
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["id"] == "ucx.build_feature"
    assert "--enable-mt" in f["causes"][0]["fix"][0] and "ucx_info -b" in " ".join(f["causes"][0]["fix"])
    # UCX's own diag line (src/ucp/core/ucp_worker.c, printed at UCX_LOG_LEVEL=diag)
    diag = ("[1732700000.123456] [node1:4242 :0]      ucp_worker.c:2665 UCX  DIAG  multi-threaded worker is "
            "requested, but library is built without multi-thread support\n")
    f = explain.explain_text(diag, kb)["findings"][0]
    assert f["id"] == "ucx.build_feature" and "ENABLE_MT" in f["causes"][0]["text"]


def test_nccl_tests_without_mpis_header_names_mpi_home(kb):
    # NVIDIA/nccl-tests#103 (https://github.com/NVIDIA/nccl-tests/issues/103): make MPI=1 with an MPI_HOME whose
    # include/ has no mpi.h
    text = """make -C src build
make[1]: Entering directory '/root/nccl-tests/src'
Compiling  all_reduce.cu                       > ../build/all_reduce.o
In file included from all_reduce.cu:8:
common.h:15:10: fatal error: mpi.h: No such file or directory
   15 | #include "mpi.h"
      |          ^~~~~~~
compilation terminated.
make[1]: *** [Makefile:88: ../build/all_reduce.o] Error 1
"""
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["id"] == "nccltests.build"
    assert f["causes"][0]["fix"][0].startswith("make MPI=1 MPI_HOME=")


def test_a_pip_list_tables_rows_are_the_installed_versions(kb):
    import io

    from gpudoctor.explain.scan import scan_stream

    # rows of modelscope/ms-swift#4248's `pip list` (https://github.com/modelscope/ms-swift/issues/4248), under the
    # header and ruler pip prints (pip/_internal/commands/list.py); a conda list's '# Name Version Build Channel'
    text = """Package                           Version
--------------------------------- ------------
typer                             0.15.2
vllm                              0.8.3
xformers                          0.0.29.post2

# Name                    Version                   Build  Channel
lmcache                   0.3.9.post2              pypi_0    pypi
"""
    got = upgrade.installed(scan_stream(io.BytesIO(text.encode()), kb))
    assert got["vllm"] == ("0.8.3", 4) and got["xformers"][0] == "0.0.29.post2" and got["typer"][0] == "0.15.2"
    assert got["lmcache"] == ("0.3.9.post2", 8)
    assert explain.explain_text(text, kb)["verdict"] == "no_error"


def test_an_apex_extension_module_missing_names_the_build_flag(kb):
    # NVIDIA/apex#1208 (https://github.com/NVIDIA/apex/issues/1208): an Apex installed without its C++/CUDA
    # extensions (amp_C is built only with --cuda_ext / APEX_CUDA_EXT=1, setup.py)
    text = """Traceback (most recent call last):
  File "/home/thinker/pythonProject/yolov3 train/yolov3-9.5.0/train.py", line 44, in <module>
    from apex import amp
  File "/home/thinker/.local/lib/python3.9/site-packages/apex/__init__.py", line 20, in <module>
    from . import transformer
  File "/home/thinker/.local/lib/python3.9/site-packages/apex/transformer/pipeline_parallel/utils.py", line 26, in <module>
    import amp_C
ModuleNotFoundError: No module named 'amp_C'
"""
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["id"] == "code.python_env"  # the family it had: the site adds the fix
    assert "APEX_CUDA_EXT=1" in f["causes"][0]["fix"][0] and "--cuda_ext" in f["causes"][0]["text"]


def test_a_transformer_engine_built_without_an_option_names_it(kb):
    # the line Transformer Engine's NVTE_ERROR prints (transformer_engine/common/util/logging.h: '<file>:<line> in
    # function <func>: <message>', thrown as std::runtime_error and raised in Python as RuntimeError) for
    # userbuffers-host.cpp's off-branch error (https://github.com/NVIDIA/TransformerEngine/blob/main/
    # transformer_engine/common/comm_gemm_overlap/userbuffers/userbuffers-host.cpp)
    text = ("RuntimeError: /opt/TransformerEngine/transformer_engine/common/comm_gemm_overlap/userbuffers/"
            "userbuffers-host.cpp:442 in function create_communicator_grouped2_mpi: Bootstrapping Userbuffers with "
            "MPI requires buildingTransformer Engine with NVTE_UB_WITH_MPI=1 and MPI_HOME=/path/to/mpi\n")
    f = explain.explain_text(text, kb)["findings"][0]
    assert f["family"] == "megatron.dependency" or f["id"] == "megatron.dependency", f["id"]
    assert "NVTE_UB_WITH_MPI=1 MPI_HOME=<path>" in f["causes"][0]["fix"][0]


def test_a_wheels_class_without_an_attribute_names_both_installations(kb):
    # the exception line of zjysteven/lmms-finetune#64 (https://github.com/zjysteven/lmms-finetune/issues/64):
    # DeepSpeed's ZeRO-3 optimizer asked for an attribute by a caller made for another DeepSpeed
    text = "AttributeError: 'DeepSpeedZeroOptimizer_Stage3' object has no attribute 'train'\n"
    f = explain.explain_text(text, kb)["findings"][0]
    first = f["causes"][0]["fix"][0]
    assert first.startswith("upgrade deepspeed and the package whose code asked its DeepSpeedZeroOptimizer_Stage3 "
                            "for 'train'") and "pip install -U deepspeed <that package>" in first


def test_a_librarys_own_exception_alone_ends_with_its_upgrade(kb):
    # vLLM's engine-dead error quoted alone (vllm/engine/async_llm_engine.py AsyncEngineDeadError): the library's own
    # class, no frames: the upgrade is the last alternative, after the library's reading
    text = "vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already.\n"
    f = explain.explain_text(text, kb)["findings"][0]
    fixes = f["causes"][0]["fix"]
    assert f["id"] == "vllm.library_error" and "upgrade vllm (pip install -U vllm)" in fixes[-1], fixes
