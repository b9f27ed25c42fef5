"""explain on failures planted in the user's code and data on a real H100 (issue 18).

Every log in fixtures/explain/planted-h100-2026-11-25/ is the verbatim stdout+stderr of a tiny
torch program run there by bench/plant_h100.py (torch 2.11.0+cu130, NCCL 2.28.9; the folder's
README lists the command of each). Each must get its entry (the family), a root cause, and a
fix that names what to change; the healthy runs captured there must get no root cause.
"""

import os

import pytest
from explainhelp import assert_root, explain_cli

from conftest import FIXTURES

PLANTED = os.path.join(FIXTURES, "explain", "planted-h100-2026-11-25")

# log -> (the entry = the family of the root finding, a phrase its first cause's fix must name)
EXPECTED = {
    "device_assert_ce": ("cuda.device_assert", r"num_classes = number of distinct labels"),
    "device_assert_ce_blocking": ("cuda.device_assert", r"num_classes = number of distinct labels"),
    "device_assert_embedding": ("cuda.device_assert", r"resize_token_embeddings"),
    "illegal_access_triton": ("cuda.illegal_access", r"CUDA_LAUNCH_BLOCKING=1.*compute-sanitizer --tool memcheck"),
    "illegal_access_cupy": ("cuda.illegal_access", r"CUDA_LAUNCH_BLOCKING=1.*compute-sanitizer --tool memcheck"),
    "illegal_access_triton_blocking": ("usercode.triton_kernel_fault", r"mask=offs < n_elements"),
    "sanitizer_cupy_oob": ("usercode.kernel_out_of_bounds", r"if \(i < n\)"),
    "cuda_oom": ("cuda.oom", r"lower the per-GPU batch size"),
    "cublas_full_gpu": ("cuda.cublas_not_initialized", r"leave GPU memory for cuBLAS"),
    "loader_emfile_64": ("errno.emfile", r"set_sharing_strategy\('file_system'\)"),
    "loader_emfile_256": ("errno.emfile", r"set_sharing_strategy\('file_system'\)"),
    "loader_emfile_32_16workers": ("errno.emfile", r"ulimit -n"),
    "loader_shm_1m": ("usercode.dataloader_shm", r"--shm-size"),
    "loader_shm_1m_file_system": ("usercode.dataloader_shm", r"--shm-size"),
    "gloo_size_mismatch": ("gloo.size_mismatch", r"same shape"),
    "gloo_late_rank": ("gloo.timeout", r"timeout=datetime\.timedelta"),
    "eval_rank0_gloo": ("gloo.timeout", r"rank-0-only work outside collectives"),
    "eval_rank0_gloo_monitored": ("usercode.monitored_barrier", r"monitored_barrier\(timeout="),
    "eval_rank1_gloo_monitored": ("usercode.monitored_barrier", r"monitored_barrier\(timeout="),
    "eval_rank0_nccl_one_gpu": ("nccl.duplicate_gpu", r"torch\.cuda\.set_device\(int\(os\.environ\[.LOCAL_RANK.\]\)\)"),
    "mismatch_shape_detail": ("torch.collective_mismatch", r"same shape on every rank"),  # its TensorShape [8] vs [16]
    "mismatch_op_detail": ("torch.collective_mismatch", r"same collectives in the same order"),
    "ddp_unused_params": ("torch.ddp_unused_parameters", r"find_unused_parameters=True"),
    "no_process_group": ("torch.pg_not_initialized", r"init_process_group"),
    "ddp_checkpoint_twice": ("torch.ddp_ready_twice", r"use_reentrant=False"),
    "ddp_model_differs": ("torch.ddp_model_mismatch", r"build the model identically on every rank"),
    "nccl_cpu_tensor": ("usercode.cpu_tensor_to_nccl", r"cpu:gloo,cuda:nccl"),
    "invalid_device_ordinal": ("cuda.invalid_device_ordinal", r"--nproc_per_node"),
    "tensors_on_two_devices": ("usercode.tensors_on_two_devices", r"batch\.to\(device\)"),
    "loader_bad_sample": ("usercode.dataloader_worker_exception", r"num_workers=0"),
    "loader_shm_64m": ("usercode.dataloader_shm", r"--shm-size"),
}
# runs that worked there: a 2-rank DDP run on gloo, a 1-rank NCCL all_reduce with NCCL_DEBUG=INFO,
# and the ulimit -n 64 DataLoader with the file_system strategy (the fix of loader_emfile_64)
HEALTHY = ("healthy_ddp_gloo", "healthy_nccl_one_rank", "loader_emfile_64_file_system")


def _explain(cli, name):
    return explain_cli(cli, "--file", os.path.join(PLANTED, name + ".log"), quiet=True)


def test_every_captured_log_has_an_expectation():
    logs = {n[:-4] for n in os.listdir(PLANTED) if n.endswith(".log")}
    assert logs == set(EXPECTED) | set(HEALTHY)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_planted_failure_gets_its_cause_and_fix(cli, name):
    entry, fix = EXPECTED[name]
    rc, doc = _explain(cli, name)
    assert rc == 0
    root = assert_root(doc, entry, verdict="root_cause", fix_re=fix)
    assert (doc["root"], root["family"], root["role"]) == (entry, entry, "root")


@pytest.mark.parametrize("name", HEALTHY)
def test_healthy_run_there_has_no_root_cause(cli, name):
    rc, doc = _explain(cli, name)
    assert (rc, doc["verdict"], doc["root"]) == (0, "no_error", None)


def test_the_users_own_kernel_is_told_from_an_extension(cli):
    """cuda.illegal_access is a family answer (the message never says whose kernel): a CuPy
    traceback is evidence for the job's own kernel, and the GPU-fault cause stays listed."""
    _, doc = _explain(cli, "illegal_access_cupy")
    root = doc["findings"][0]
    assert root["confidence"] == "family"
    first = root["causes"][0]
    assert "job's own code" in first["text"] and any("cupy_backends" in e["text"] for e in first["evidence"])
    assert any("Xid" in c["text"] for c in root["causes"][1:])


def test_a_worker_exception_is_the_family_its_original_traceback_the_cause(cli):
    """'Caught JSONDecodeError in DataLoader worker process 0' says where, not why: a family
    answer whose first cause is the bad sample, with the worker's own exception as evidence."""
    _, doc = _explain(cli, "loader_bad_sample")
    root = doc["findings"][0]
    assert root["confidence"] == "family"
    assert any("JSONDecodeError" in e["text"] for e in root["causes"][0]["evidence"])


def test_sanitizer_report_names_the_kernel_line(cli):
    _, doc = _explain(cli, "sanitizer_cupy_oob")
    root = doc["findings"][0]
    assert root["confidence"] == "cause"
    assert root["matches"][0]["text"] == "========= Invalid __global__ write of size 4 bytes"


def test_text_answer_as_a_user_reads_it(gpudoctor_cli):
    """The real CLI in a subprocess, as a user pastes the device-side assert log."""
    rc, out, err = gpudoctor_cli("explain", os.path.join(PLANTED, "device_assert_ce_blocking.log"))
    assert rc == 0, err
    assert "device-side assert" in out and "CUDA_LAUNCH_BLOCKING=1" in out and "n_classes" in out
