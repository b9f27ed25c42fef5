"""explain-fix23 (issue 18 "names the fix"): opfix.py reads the operation, the values and the user's line an error
names into the concrete fix, and the NCCL dtype entry (torch.distributed_usage.collective_dtype).

Texts: real stderr made here with CPU torch 2.13 (fixtures/explain/fix23/README.md), the seen held-out sets' real texts
(bench/data, read through tests/seen_case.py; each case's id says which), and single lines built from torch's own
format strings where no CUDA device was at hand (each cited at its test).
"""

import os

import pytest

from gpudoctor import explain
from seen_case import seen_case

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(REPO, "fixtures", "explain", "fix23")


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _root(kb, text):
    res = explain.explain_text(text, kb)
    roots = [f for f in res["findings"] if f.get("role") == "root"]
    assert roots, res["verdict"]
    return roots[0]


def _first(kb, text):
    c = _root(kb, text)["causes"][0]
    return c["text"], " ".join(c["fix"])


def _read(name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        return f.read()


# --- a class index the loss refused (LossNLL.cpp "Target <t> is out of bounds.") ---

def test_target_past_the_classes_names_the_class_count(kb):
    text, fix = _first(kb, _read("cross_entropy_target_3.log"))
    assert "target 3" in text and "t1.py:9" in text
    assert "labels.max() + 1, at least 4 here" in fix and "out_features = K" in fix
    assert "labels - 1" in fix


def test_negative_target_is_ignore_index(kb):
    text, fix = _first(kb, _read("cross_entropy_target_minus_1.log"))
    assert "target -1" in text
    assert "ignore_index=-1" in fix and "labels[labels == -1] = -100" in fix


def test_target_in_a_transformers_model_names_num_labels(kb):
    # P17's real text: a BertForSequenceClassification built with the default 2 labels, labels 0-4
    text, fix = _first(kb, seen_case("2026-11-26p17", "p17-hf_num_labels_default_two"))
    assert "target 2" in text
    assert "from_pretrained(..., num_labels=K)" in fix and "at least 3 here" in fix


# --- -1 from a group the rank is not in (distributed_c10d.py: "-1, if not part of the group") ---

def test_non_member_group_size(kb):
    root = _root(kb, _read("new_group_non_member_chunk.log"))
    text, fix = root["causes"][0]["text"], " ".join(root["causes"][0]["fix"])
    assert "on rank 1" in text and "`shard = weight.chunk(tp_size, dim=0)`" in text
    assert "new_group(ranks=[...])" in fix and "not a member" in fix
    assert root["id"] == "code.exception"  # the root stays


def test_non_member_real_p6(kb):
    text, fix = _first(kb, seen_case("2026-11-26p6", "p6-subgroup_non_member_size"))
    assert "tp_size" in text and "new_group(ranks=[...])" in fix


def test_minus_one_in_a_view_shape_is_not_a_group(kb):
    # ATen's view check prints the asked shape, where -1 is the inferred dimension (aten/src/ATen/InferSize.h:
    # "shape '[...]' is invalid for input of size N")
    tb = ("[rank1]: Traceback (most recent call last):\n"
          '[rank1]:   File "/home/u/tp.py", line 12, in <module>\n'
          "[rank1]:     y = x.view(-1, world_size)\n"
          "[rank1]: RuntimeError: shape '[-1, 3]' is invalid for input of size 8\n")
    for c in _root(kb, tb)["causes"]:
        assert "not a member" not in c["text"]


def test_minus_one_on_a_line_without_a_rank_is_left(kb):
    tb = ("[rank1]: Traceback (most recent call last):\n"
          '[rank1]:   File "/home/u/tp.py", line 12, in <module>\n'
          "[rank1]:     parts = weight.chunk(n, dim=0)\n"
          "[rank1]: RuntimeError: chunk expects `chunks` to be greater than 0, got: -1\n")
    for c in _root(kb, tb)["causes"]:
        assert "not a member" not in c["text"]


# --- tensors on two devices (aten/src/ATen/core/adaption.cpp common_device_check_failure) ---

def _tb(src, msg, frames=(), prefix=""):
    lines = ["Traceback (most recent call last):", '  File "/home/u/proj/train.py", line 41, in <module>',
             "    " + src]
    for f in frames:
        f, _, fn = f.partition(":")
        lines.append('  File "/opt/venv/lib/python3.11/site-packages/%s", line 10, in %s' % (f, fn or "forward"))
        lines.append("    return x")
    lines.append(msg)
    return "\n".join(prefix + ln for ln in lines) + "\n"


def test_target_on_cpu_names_the_labels(kb):
    # torch >= 2.1's format
    text, fix = _first(kb, _tb("loss = criterion(logits, labels)",
                               "RuntimeError: Expected all tensors to be on the same device, but got target is on cpu, "
                               "different from other tensors on cuda:0 (when checking argument in method "
                               "wrapper_CUDA_nll_loss_forward)", ("torch/nn/modules/loss.py",)))
    assert "targets on cpu" in text
    assert "labels = labels.to(logits.device)" in fix


def test_class_weights_on_cpu(kb):
    text, fix = _first(kb, _tb("loss = criterion(out, y)",
                               "RuntimeError: Expected all tensors to be on the same device, but got weight is on cpu, "
                               "different from other tensors on cuda:0 (when checking argument in method "
                               "wrapper_CUDA_nll_loss_forward)", ("torch/nn/modules/loss.py",)))
    assert "class weights" in text
    assert "weight=class_weights.to(device)" in fix and "criterion = criterion.to(device)" in fix


def test_ids_on_cpu_old_format(kb):
    # before torch 2.1: "found at least two devices, <common> and <the argument's>!"
    text, fix = _first(kb, _tb("out = model(input_ids)",
                               "RuntimeError: Expected all tensors to be on the same device, but found at least two "
                               "devices, cuda:0 and cpu! (when checking argument for argument index in method "
                               "wrapper__index_select)", ("torch/nn/modules/sparse.py",)))
    assert "ids / indices are on the CPU" in text
    assert "input_ids = input_ids.to(model.device)" in fix


def test_two_gpus_in_a_rank_is_set_device(kb):
    text, fix = _first(kb, _tb("out = model(input_ids)",
                               "RuntimeError: Expected all tensors to be on the same device, but found at least two "
                               "devices, cuda:1 and cuda:0! (when checking argument for argument index in method "
                               "wrapper_CUDA__index_select)", ("torch/nn/modules/sparse.py",), prefix="[rank1]: "))
    assert "one rank's process" in text
    assert "torch.cuda.set_device(local_rank)" in fix and "f'cuda:{local_rank}'" in fix


def test_two_gpus_without_ranks_keeps_the_model_split_cause(kb):
    text, _fix = _first(kb, _tb("out = model(input_ids)",
                                "RuntimeError: Expected all tensors to be on the same device, but found at least two "
                                "devices, cuda:1 and cuda:0! (when checking argument for argument index in method "
                                "wrapper_CUDA__index_select)", ("torch/nn/modules/sparse.py",)))
    assert "spread over several GPUs" in text


def test_optimizer_state_keeps_its_own_cause(kb):
    text, _fix = _first(kb, _tb("opt.step()",
                                "RuntimeError: Expected all tensors to be on the same device, but got exp_avg is on "
                                "cpu, different from other tensors on cuda:0 (when checking argument in method "
                                "wrapper_CUDA___foreach_lerp_)", ("torch/optim/adam.py:step",)))
    assert "optimizer's step" in text


def test_metric_on_cpu_real_p26(kb):
    text, fix = _first(kb, seen_case("2026-11-27p26", "p26-tm_metric_on_cpu"))
    assert "torchmetrics" in text and ".to(device)" in fix and "metric" in fix.lower()


# --- GPU 0 written on a line every rank runs; a tensor off the group's bound GPU ---

def test_device_ids_zero_on_rank_1_real_p13(kb):
    text, fix = _first(kb, seen_case("2026-11-26p13", "p13-barrier_device_ids_zero"))
    assert "`dist.barrier(device_ids=[0])`" in text and "rank 1" in text
    assert "device_ids=[local_rank] instead of device_ids=[0]" in fix


def test_device_ids_zero_on_rank_0_is_left(kb):
    tb = ("[rank0]: Traceback (most recent call last):\n"
          '[rank0]:   File "/home/u/train.py", line 35, in main\n'
          "[rank0]:     dist.barrier(device_ids=[0])\n"
          "[rank0]: torch.distributed.DistBackendError: Attempt to perform collective on tensor not on device passed "
          "to init_process_group\n")
    for c in _root(kb, tb)["causes"]:
        assert "names GPU 0 itself" not in c["text"]


def test_tensor_off_the_bound_gpu_real_p34(kb):
    text, fix = _first(kb, seen_case("2026-11-27p34", "p34-sentence_transformer_cuda_before_set_device"))
    assert "bound to" in text
    assert "set_device(local_rank) before creating the model" in fix and "device=f'cuda:{local_rank}'" in fix


# --- a function started by mp.spawn / Process with arguments it does not take ---

def test_spawn_args_not_a_tuple_real_p16(kb):
    text, fix = _first(kb, seen_case("2026-11-26p16", "p16-mp_spawn_args_not_tuple"))
    assert "not a tuple" in text
    assert "args=(world_size,) instead of args=(world_size)" in fix


def test_spawn_fn_without_the_index_real_p28(kb):
    text, fix = _first(kb, seen_case("2026-11-27p28", "p28-spawn_fn_missing_rank"))
    assert "train(i, *args)" in text and "def train(rank" in fix


# --- the default collate refusing a batch because of one sample (torch/utils/data/_utils/collate.py) ---

def test_collate_none_sample_real_p14(kb):
    text, fix = _first(kb, seen_case("2026-11-26p14", "p14-collate_none_sample"))
    assert "is None" in text and "b is not None" in fix


def test_collate_missing_key_real_p14(kb):
    text, fix = _first(kb, seen_case("2026-11-26p14", "p14-collate_missing_key"))
    assert "lacks 'weight'" in text and "sample.setdefault('weight', <default>)" in fix


def test_untrusted_names_stay_out_of_fix_lines(kb):
    # a name that is no plain identifier never reaches a fix line (userline.ident)
    text, fix = _first(kb, _tb("loss = criterion(logits, labels$(touch /tmp/x))",
                               "RuntimeError: Expected all tensors to be on the same device, but got target is on cpu, "
                               "different from other tensors on cuda:0 (when checking argument in method "
                               "wrapper_CUDA_nll_loss_forward)", ("torch/nn/modules/loss.py",)))
    assert "touch" not in fix and "$(" not in fix


# --- NCCL's dtype refusal (ProcessGroupNCCL.cpp getNcclDataType) ---

@pytest.mark.parametrize("dtype,want", [
    ("Short", "u = t.to(torch.int32)"),
    ("ComplexFloat", "torch.view_as_real(t)"),
    ("BFloat16", "NCCL >= 2.10"),
    ("Float4_e2m1fn_x2", "t.view(torch.uint8)"),
])
def test_nccl_dtype(kb, dtype, want):
    # the message as ProcessGroupNCCL formats it, with the ScalarType's name
    root = _root(kb, "TypeError: Input tensor data type is not supported for NCCL process group: %s" % dtype)
    assert root["id"] == "torch.distributed_usage.collective_dtype"
    assert want in " ".join(root["causes"][0]["fix"])


# --- a layer whose input has another width (LinearAlgebra.cpp addmm, Convolution.cpp check_shape_forward) ---

def test_linear_in_features_from_the_numbers(kb):
    text, fix = _first(kb, _read("linear_in_features_512_vs_256.log"))
    assert "built for 256 input features" in text and "last dimension is 512" in text
    assert "nn.Linear(512, 10)" in fix


def test_conv_channels_from_the_numbers(kb):
    text, fix = _first(kb, _read("conv_channels_1_vs_3.log"))
    assert "built for 3 input channels" in text and "grayscale 1 vs RGB 3" in text
    assert "in_channels=1" in fix and "convert('RGB')" in fix


def test_matching_widths_are_left(kb):
    # equal inner sizes cannot be this refusal: no reading
    for c in _root(kb, "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x256 and 256x10)")["causes"]:
        assert "input features" not in c["text"] or "built for" not in c["text"]


# --- a view whose sizes do not fit the element count (aten/src/ATen/InferSize.h infer_size_impl) ---

def _view_tb(shape, n, prefix=""):
    return "".join(prefix + ln + "\n" for ln in (
        "Traceback (most recent call last):", '  File "/home/u/proj/train_tp.py", line 44, in forward',
        "    q = self.wq(x).view(bsz, seqlen, self.n_heads, self.head_dim)",
        "RuntimeError: shape '%s' is invalid for input of size %d" % (shape, n)))


def test_view_k_times_too_large_on_a_rank_is_the_local_heads(kb):
    # P10's numbers: [8, 256, 8, 64] = 1048576 over a rank's 524288 (ColwiseParallel over 2 ranks)
    text, fix = _first(kb, _view_tb("[8, 256, 8, 64]", 524288, "[rank0]: "))
    assert "1/2 of that" in text and "this rank's shard" in text
    assert "n_heads // tp_size" in fix


def test_view_k_times_too_large_without_ranks_names_no_tp(kb):
    text, fix = _first(kb, _view_tb("[8, 256, 8, 64]", 524288))
    assert "1/2 of that" in text and "tensor parallel" not in fix


def test_view_minus_one_below_one_head_on_a_rank(kb):
    text, fix = _first(kb, _view_tb("[1, 8192, -1, 128]", 524288, "[rank3]: "))
    assert "would be 1/2" in text and "n_kv_heads" in fix


def test_view_missing_dimension(kb):
    text, fix = _first(kb, _view_tb("[8, 64]", 4096))
    assert "8 times that" in text and "-1" in fix


# --- an index past a dimension (IndexingUtils.h / ScatterGatherChecks.h) and F.one_hot's class check (Onehot.cpp) ---

def test_one_hot_num_classes(kb):
    text, fix = _first(kb, _read("one_hot_class_5_of_5.log"))
    assert "F.one_hot got a class value >= num_classes" in text
    assert "num_classes = int(labels.max()) + 1" in fix


def test_index_equal_to_size_is_off_by_one(kb):
    text, fix = _first(kb, _read("index_5_of_size_5.log"))
    assert "equals the size 5 of dimension 0" in text and "0..4" in text
    assert "at least 6" in fix and "idx - 1" in fix


def test_scatter_of_class_labels(kb):
    text, fix = _first(kb, _read("scatter_index_3_of_size_3.log"))
    assert "`out.scatter_(1, idx, 1.0)`" in text
    assert "4 entries along dimension 1" in fix and "num_classes = labels.max() + 1" in fix


# --- a CUDA OOM whose message lists several processes on the GPU (c10/cuda/CUDACachingAllocator.cpp) ---

_OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 "
        "GiB of which 1.06 GiB is free. %sOf the allocated memory 36.90 GiB is allocated by PyTorch, and 1.12 GiB is "
        "reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
_TWO = "Process 51234 has 38.20 GiB memory in use. Process 51235 has 39.80 GiB memory in use. "


def test_oom_two_ranks_on_one_gpu(kb):
    tb = "".join("[rank1]: " + ln + "\n" for ln in (
        "Traceback (most recent call last):", '  File "/home/u/train.py", line 88, in <module>', "    out = model(batch)",
        _OOM % _TWO))
    text, fix = _first(kb, tb)
    assert "2 processes hold memory on GPU 0" in text and "share one GPU" in text
    assert "torch.cuda.set_device(local_rank)" in fix


def test_oom_other_process_without_ranks(kb):
    text, fix = _first(kb, _OOM % _TWO)
    assert "another process" in text and "nvidia-smi --query-compute-apps" in fix


def test_oom_one_process_keeps_the_family_causes(kb):
    text, _fix = _first(kb, _OOM % "Process 51234 has 78.00 GiB memory in use. ")
    assert "processes hold memory" not in text


# --- the kernel that printed a device-side assert (Indexing.cu, ScatterGatherKernel.cu, IndexKernel.cu) ---

@pytest.mark.parametrize("line,want_text,want_fix", [
    ("../aten/src/ATen/native/cuda/Indexing.cu:1289: indexSelectLargeIndex: block: [211,0,0], thread: [64,0,0] "
     "Assertion `srcIndex < srcSelectDimSize` failed.", "index_select's", "resize_token_embeddings(len(tokenizer))"),
    ("../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144: operator(): block: [0,0,0], thread: [3,0,0] Assertion "
     "`idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` failed.", "gather / scatter's",
     "num_classes = labels.max() + 1"),
    ("../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [0,0,0], thread: [0,0,0] Assertion "
     "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.", "advanced indexing's",
     "idx.max() < x.size(d)"),
])
def test_device_assert_by_kernel(kb, line, want_text, want_fix):
    root = _root(kb, line + "\nRuntimeError: CUDA error: device-side assert triggered\n")
    assert root["id"] == "cuda.device_assert"
    assert want_text in root["causes"][0]["text"] and want_fix in " ".join(root["causes"][0]["fix"])


def test_oom_of_the_request_itself_real_p3(kb):
    # P3 (2 H100s in containers): NVML lists five small processes (0.5-1.2 GiB) while the rank asks for 256 GiB of an
    # 80 GiB GPU: the request is the cause, not the neighbours
    text, _fix = _first(kb, seen_case("2026-11-26p3", "p3-oom_one_rank_long_seq"))
    assert "processes hold memory" not in text


# --- a watchdog timeout in an all-gather / reduce-scatter: the sizes' case (nccl.toml, nccl.timeout) ---

def test_allgather_timeout_lists_sizes_that_differ_real_p13(kb):
    root = _root(kb, seen_case("2026-11-26p13", "p13-all_gather_uneven_shards"))
    assert root["id"] == "nccl.timeout"
    assert any("pad each rank's tensor to the largest" in " ".join(c["fix"]) for c in root["causes"])


def test_allreduce_timeout_has_no_sizes_case(kb):
    # the watchdog's format (ProcessGroupNCCL.cpp WorkNCCL::checkTimeout)
    root = _root(kb, "[rank1]:[E1126 16:29:36.283367859 ProcessGroupNCCL.cpp:689] [Rank 1] Watchdog caught collective "
                     "operation timeout: WorkNCCL(SeqNum=56, OpType=ALLREDUCE, NumelIn=501, NumelOut=501, "
                     "Timeout(ms)=600000) ran for 600037 milliseconds before timing out.\n")
    assert root["id"] == "nccl.timeout"
    assert not any("pad each rank's tensor" in " ".join(c["fix"]) for c in root["causes"])


# --- a K-dim loss's class dimension (LossNLL.cpp nll_loss_nd) and an embedding's float ids (TensorUtils.cpp) ---

def test_cross_entropy_classes_last(kb):
    text, fix = _first(kb, _read("cross_entropy_classes_last.log"))
    assert "[4, 16, 100] with the classes last" in text
    assert "logits.view(-1, 100), labels.view(-1)" in fix and "logits.transpose(1, 2)" in fix


def test_embedding_float_ids(kb):
    text, fix = _first(kb, _read("embedding_float_ids.log"))
    assert "are FloatTensor, not integers" in text and "ids = ids.long()" in fix


def test_batch_of_one_holding_a_batch_real_p12(kb):
    # P12: a BatchSampler passed as sampler= (logits [1, 10, 3], target [1, 10]): the batch of one leads
    text, fix = _first(kb, seen_case("2026-11-26p12", "p12-batch_sampler_as_sampler"))
    assert "a batch of one that holds 10 rows" in text
    assert "batch_sampler=sampler" in fix and "logits.view(-1, 3)" in fix


def test_userline_reading_keeps_the_lead(kb):
    # a Dataset's __getitem__ past its end: userline's reading of the expression (the __len__) stays first
    from test_explain_userline import DS_LEN
    assert _first(kb, DS_LEN)[0].startswith("Your line")


# --- DDP's parameters without a gradient, named (torch/csrc/distributed/c10d/reducer.cpp) ---

_DDP = "".join("[rank0]: " + ln + "\n" for ln in (
    "Traceback (most recent call last):", '  File "/home/u/train.py", line 61, in <module>', "    out = model(x)",
    '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1637, in forward',
    "    inputs, kwargs = self._pre_forward(*inputs, **kwargs)",
    "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error "
    "indicates that your module has parameters that were not used in producing loss.",
    "Parameters which did not receive grad for rank 0: module.aux_head.bias, module.aux_head.weight",
    "Parameter indices which did not receive grad for rank 0: 10 11"))


def test_ddp_unused_parameters_named(kb):
    text, fix = _first(kb, _DDP)
    assert "module.aux_head.bias, module.aux_head.weight - aux_head took no part" in text
    assert "model.aux_head.requires_grad_(False)" in fix and "find_unused_parameters=True" in fix


def test_ddp_unused_parameter_names_stay_plain(kb):
    text, fix = _first(kb, _DDP.replace("module.aux_head.bias", "x;touch$(id)"))
    assert "touch" not in fix
