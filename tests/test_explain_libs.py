"""What user code makes the stack print: the CUDA libraries' status codes (tools/gen_cuda_libs.py ->
generated/cuda_libs.json, from the headers of their PyPI wheels) and torch's own messages for code
and data bugs (tools/gen_torch_messages.py's usercode sites). Real texts are from the public threads
cited beside each; none comes from bench/data/explain_heldout_*.jsonl.
"""

import os
import sys

import pytest

from gpudoctor import explain

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_cuda_libs  # noqa: E402
import knowgen  # noqa: E402
from explainhelp import assert_root, fixes  # noqa: E402


def test_cuda_libs_regenerates_from_its_slice_and_records_each_wheel(tmp_path):
    got = knowgen.regenerated(gen_cuda_libs.main, os.path.join(REPO, "tools", "data", "cuda_libs_slice.txt"),
                              tmp_path / "cuda_libs.json")
    full = knowgen.committed("cuda_libs")
    assert got["sites"] == full["sites"] and got["unassigned"] == full["unassigned"]
    for wheel in ("nvidia-cublas-cu12", "nvidia-cudnn-cu12", "nvidia-cusolver-cu12", "nvidia-cusparse-cu12",
                  "nvidia-curand-cu12", "nvidia-cufft-cu12", "nvidia-nccl-cu12"):
        assert wheel in full["header"]["version"]
    by = {s["name"]: s for s in full["sites"]}
    # every status of every enum, with its number and the header's comment
    assert by["CUBLAS_STATUS_EXECUTION_FAILED"]["code"] == 13
    assert by["CUDNN_STATUS_NOT_SUPPORTED_SHAPE"]["code"] == 3002 and by["CUDNN_STATUS_NOT_SUPPORTED_SHAPE"]["text"]
    assert by["CUDNN_STATUS_MAPPING_ERROR"]["code"] == 4006  # cuDNN 9's alias, resolved to its number
    assert by["CURAND_STATUS_VERSION_MISMATCH"]["text"].startswith("Header file and linked library")
    assert by["CUFFT_NOT_SUPPORTED"]["code"] == 16 and by["ncclRemoteError"]["code"] == 6
    assert "CUBLAS_STATUS_SUCCESS" not in by and "ncclInProgress" not in by  # not errors
    fam = {n: s["family"] for n, s in by.items()}
    assert fam["CUBLAS_STATUS_NOT_INITIALIZED"] == "cuda.cublas_not_initialized"
    assert fam["CUBLAS_STATUS_EXECUTION_FAILED"] == "cuda.cublas_failed"
    assert fam["CUBLAS_STATUS_ALLOC_FAILED"] == fam["CUDNN_STATUS_ALLOC_FAILED"] == "cuda.oom"
    assert fam["CUDNN_STATUS_BAD_PARAM"] == fam["CUDNN_STATUS_NOT_SUPPORTED"] == "cudnn.not_supported"
    assert fam["CUDNN_STATUS_INTERNAL_ERROR"] == fam["CUDNN_STATUS_MAPPING_ERROR"] == "cudnn.internal_error"
    assert fam["ncclSystemError"] == "nccl.system_error"
    assert sorted(full["unassigned"]) == sorted("%s.%s" % (s["library"], n) for n, s in by.items() if not s["family"])
    assert all("LICENSE" in u or u.endswith("DEPRECATED") for u in full["unassigned"])


def test_torch_usercode_sites_have_their_family():
    fam = {}
    for s in knowgen.committed("torch_messages")["sites"]:
        fam.setdefault(s["text"], s["family"])
    want = {
        "Expected all tensors to be on the same device, but got": "usercode.tensors_on_two_devices",
        "index out of range in self": "usercode.index_out_of_range",
        "expected scalar type": "usercode.dtype_mismatch",
        "of tensors does not require grad and does not have a grad_fn": "usercode.no_grad",
        "Assertion `t >= 0 && t < n_classes` failed.": "cuda.device_assert",
        "unable to open shared memory object <": "usercode.shm_open",
        "DataLoader worker (pid %s) is killed by signal: %s.": "usercode.dataloader_killed",
        "Error(s) in loading state_dict for %s: %s": "usercode.state_dict_mismatch",
        "' returned nan values in its": "usercode.nan_inf",
    }
    for text, family in want.items():
        assert fam.get(text) == family, text
    oom = [t for t in fam if t.startswith("CUDA out of memory. Tried to allocate")]
    assert oom and fam[oom[0]] == "cuda.oom"


REAL = {
    # https://github.com/tsb0601/EMP-SSL/issues/3
    "cudnn_not_supported": ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in "
                            "a non-contiguous input.\n"),
    # https://github.com/pytorch/pytorch/issues/70669
    "cusolver": ("RuntimeError: cusolver error: CUSOLVER_STATUS_EXECUTION_FAILED, when calling `cusolverDnXgeqrf( handle, "
                 "params, m, n, CUDA_R_32F, reinterpret_cast<void*>(A), lda, CUDA_R_32F, reinterpret_cast<void*>(tau), "
                 "CUDA_R_32F, reinterpret_cast<void*>(bufferOnDevice), workspaceInBytesOnDevice, "
                 "reinterpret_cast<void*>(bufferOnHost), workspaceInBytesOnHost, info)`\n"),
    # https://github.com/bearpaw/pytorch-classification/issues/27
    "state_dict_dp": ("RuntimeError: Error(s) in loading state_dict for DataParallel:\n"
                      "\tsize mismatch for module.layer1.7.conv1.weight: copying a param with shape torch.Size([16, 64, 1, "
                      "1]) from checkpoint, the shape in current model is torch.Size([16, 16, 3, 3]).\n"),
    # https://github.com/IrisRainbowNeko/genshin_auto_fish/issues/254
    "state_dict_head": ("    raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(\n"
                        "RuntimeError: Error(s) in loading state_dict for YOLOX:\n"
                        "        size mismatch for head.cls_preds.0.weight: copying a param with shape torch.Size([80, 96, "
                        "1, 1]) from checkpoint, the shape in current model is torch.Size([6, 96, 1, 1]).\n"),
    # https://github.com/facebookresearch/maskrcnn-benchmark/issues/158 (lines of its traceback, some elided; the
    # settled answer in pytorch/pytorch#14768: too many open files, ulimit -n or the sharing strategy)
    "shm_emfile": ("  File \"/usr/local/lib/python3.6/dist-packages/torch/multiprocessing/reductions.py\", line 243, in "
                   "reduce_storage\n"
                   "RuntimeError: unable to open shared memory object </torch_30997_2076642173> in read-write mode\n"
                   "Traceback (most recent call last):\n"
                   "  File \"/usr/lib/python3.6/multiprocessing/resource_sharer.py\", line 149, in _serve\n"
                   "    nfd = dup(fd)\n"
                   "OSError: [Errno 24] Too many open files\n"),
    # https://github.com/lyongo/NWPU-MOC/issues/4 (settled: `+=` changed to `=` in FPN_Head.py)
    "inplace": ("RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
                "operation: [torch.cuda.FloatTensor [4, 128, 64, 64]], which is output 0 of ReluBackward0, is at version 1; "
                "expected version 0 instead. Hint: the backtrace further above shows the operation that failed to compute "
                "its gradient. The variable in question was changed in there or anywhere later. Good luck!\n"),
    # https://github.com/FudanNLP/CPT/issues/85 (mickeysjm/R-BERT#5: resize_token_embeddings(len(tokenizer)))
    "embedding": ("\u2502 \u2771 2267 \u2502   return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
                  "IndexError: index out of range in self\n"),
    # https://github.com/huggingface/peft/issues/137 (settled: model.enable_input_require_grads())
    "no_grad": ("Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n"
                "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n"),
    # https://github.com/pengxiao-song/LaWGPT/issues/60
    "dtype": "RuntimeError: expected scalar type Half but found Float\n",
    # https://github.com/PawitKoch/LO-Net-pytorch/issues/1
    "linear": ("--> 114         return F.linear(input, self.weight, self.bias)\n"
               "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x356352 and 344064x512)\n"),
    # https://github.com/gauthierdmn/question_generation/issues/4
    "loss_shapes": ("    loss = criterion(pred.view(-1, pred.size(2)), question.view(-1))\n"
                    "ValueError: Expected input batch_size (1216) to match target batch_size (1280)\n"),
}


def _root(text, entry=None, **kw):
    root = assert_root(explain.explain_text(text), entry, verdict="root_cause", **kw)
    return root, fixes(root)


@pytest.mark.parametrize("name,entry,confidence,fix", [
    ("cudnn_not_supported", "cudnn.not_supported", "family", "contiguous"),
    ("cusolver", "cudalib.error", "family", "CUDA_LAUNCH_BLOCKING=1"),
    ("state_dict_dp", "usercode.state_dict_mismatch", "cause", "strict=False"),
    ("state_dict_head", "usercode.state_dict_mismatch", "cause", "num_classes"),
    ("shm_emfile", "usercode.shm_open", "cause", "set_sharing_strategy('file_system')"),
    ("inplace", "usercode.inplace_modified", "cause", "out-of-place form (x = x + y"),
    ("embedding", "usercode.index_out_of_range", "cause", "resize_token_embeddings(len(tokenizer))"),
    ("no_grad", "usercode.no_grad", "cause", "enable_input_require_grads()"),
    ("dtype", "usercode.dtype_mismatch", "cause", "torch.autocast"),
    ("linear", "usercode.shape_mismatch", "cause", "in_features"),
    ("loss_shapes", "usercode.shape_mismatch", "cause", "logits.view(-1, logits.size(-1))"),
])
def test_real_user_code_failures_get_their_family_and_fix(name, entry, confidence, fix):
    root, got = _root(REAL[name], entry, confidence=confidence)
    assert fix in got, (name, got)


def test_the_first_cause_is_the_one_the_log_shows():
    root, _ = _root(REAL["shm_emfile"])
    assert "Too many open files" in root["causes"][0]["text"] and root["causes"][0]["evidence"]
    # the keys match (module. on both sides), the shapes do not: another architecture, not the DDP prefix
    root, _ = _root(REAL["state_dict_dp"])
    assert root["causes"][0]["text"].startswith("The model was built with other sizes")


def test_oom_names_fragmentation_only_when_much_is_reserved_but_unallocated():
    # the format of torch >= 2.2's caching allocator (c10/cuda/CUDACachingAllocator.cpp, the statement in
    # tools/data/torch_usercode_source.txt) with two amounts reserved but unallocated (constructed, not a thread)
    msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
           "23.64 GiB of which 9.81 MiB is free. Including non-PyTorch memory, this process has 23.62 GiB memory in use. "
           "Of the allocated memory 21.29 GiB is allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If "
           "reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
           "avoid fragmentation.\n")
    root, _ = _root(msg % "1.86 GiB", "cuda.oom")
    assert "Fragmentation" in root["causes"][0]["text"]
    root, got = _root(msg % "45.71 MiB", "cuda.oom")
    assert not root["causes"][0]["text"].startswith("Fragmentation")
    assert "gradient (activation) checkpointing" in got and "expandable_segments:True" in got


@pytest.mark.parametrize("text,entry", [
    ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
     "cuda.cublas_not_initialized"),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR", "cudnn.internal_error"),
    ("RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR", "cudalib.error"),
    ("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn", "usercode.no_grad"),
    ("IndexError: index out of range in self", "usercode.index_out_of_range"),
    ("RuntimeError: expected scalar type Half but found Float", "usercode.dtype_mismatch"),
    ("RuntimeError: DataLoader worker (pid 1234) is killed by signal: Killed.", "usercode.dataloader_killed"),
    ("RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.", "usercode.nan_inf"),
])
def test_messages_quoted_from_their_source_get_their_entry(text, entry):
    _root(text + "\n", entry)


def test_a_healthy_log_that_names_the_libraries_is_no_error():
    text = ("torch 2.5.1+cu124, cuDNN version: 90100, NCCL version 2.21.5\n"
            "torch.backends.cudnn.benchmark = True\n"
            "nvidia-cublas-cu12==12.4.5.8 nvidia-cudnn-cu12==9.1.0.70 nvidia-cufft-cu12==11.2.1.3\n"
            "epoch 1 step 100 loss 2.3141 grad_norm 0.91\n")
    assert explain.explain_text(text)["verdict"] == "no_error"


def test_a_worker_death_names_a_cause_only_from_its_signal():
    # torch/utils/data/dataloader.py says only that a worker exited: the family, with the ways to tell
    r = explain.explain_text("RuntimeError: DataLoader worker (pid(s) 1234) exited unexpectedly\n")
    assert r["findings"][0]["id"] == "usercode.dataloader_killed" and r["findings"][0]["confidence"] == "family"
    r = explain.explain_text("RuntimeError: DataLoader worker (pid 1234) is killed by signal: Killed.\n")
    root = r["findings"][0]
    assert root["confidence"] == "cause" and root["causes"][0]["text"].startswith("Killed (SIGKILL)")
