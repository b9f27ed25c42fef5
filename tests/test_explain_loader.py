"""glibc's dynamic loader (gpudoctor/data/knowledge/loader.toml, issue 18): a library it could not
preload is a note on a healthy log, never a root cause; its real errors (a missing library, a
symbol version not found, an undefined symbol) get a family, and the entries that know the
library named keep theirs. The patterns follow glibc's format strings (elf/rtld.c do_preload,
elf/dl-catch.c fatal_error, elf/dl-version.c match_symbol, elf/dl-lookup.c). Real texts are
from the public threads cited beside each; none comes from bench/data/explain_heldout_*.jsonl.
"""

from explainhelp import assert_root, explain_paste, fixes, ids

# https://github.com/aws/aws-k8s-tester/pull/654 (the nvidia unit-test image after NCCL moved to
# /usr/local/lib: a stale line in /etc/ld.so.preload; the PR removed it)
AWS_654 = (
    "ERROR: ld.so: object '/usr/lib/x86_64-linux-gnu/libnccl.so' from /etc/ld.so.preload cannot be preloaded "
    "(cannot open shared object file): ignored.\n"
    "ls: cannot access '/usr/lib/x86_64-linux-gnu/libnccl.so*': No such file or directory\n"
)

# https://github.com/gpustack/gpustack/issues/5660 (a vLLM worker whose image preloads a jemalloc it
# does not have: the model was served; the log lines around it are vLLM's INFO lines)
GPUSTACK_5660 = (
    "2026-06-18 10:59:01.130732+08:00 - gpustack.worker.backends.vllm - INFO - Created vLLM container workload: "
    "flux.2-klein-4b-P0N7b\n"
    "2026-06-18 10:59:01.131002+08:00 - gpustack.worker.serve_manager - INFO - Finished provisioning model "
    "instance flux.2-klein-4b-P0N7b\n"
    "ERROR: ld.so: object '/usr/lib/aarch64-linux-gnu/libjemalloc.so' from LD_PRELOAD cannot be preloaded "
    "(cannot open shared object file): ignored.\n"
    "INFO 06-18 10:59:30 [__init__.py:44] Available plugins for group vllm.platform_plugins:\n"
    "INFO 06-18 10:59:30 [__init__.py:46] - ascend -> vllm_ascend:register\n"
    "INFO 06-18 10:59:31 [__init__.py:239] Platform plugin ascend is activated\n"
    "ERROR: ld.so: object '/usr/lib/aarch64-linux-gnu/libjemalloc.so' from LD_PRELOAD cannot be preloaded "
    "(cannot open shared object file): ignored.\n"
)

# https://github.com/NVIDIA/nccl/issues/872 (nccl-tests built with MPI=1 under mpirun: libmpi.so.40 is not
# on the ranks' library path; settled by LD_LIBRARY_PATH)
NCCL_872 = (
    "./build/all_reduce_perf: error while loading shared libraries: libmpi.so.40: cannot open shared object "
    "file: No such file or directory\n"
    "--------------------------------------------------------------------------\n"
    "Primary job  terminated normally, but 1 process returned\n"
    "a non-zero exit code. Per user-direction, the job has been aborted.\n"
    "--------------------------------------------------------------------------\n"
    "./build/all_reduce_perf: error while loading shared libraries: libmpi.so.40: cannot open shared object "
    "file: No such file or directory\n"
    "--------------------------------------------------------------------------\n"
    "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
    "the job to be terminated. The first process to do so was:\n"
    "\n"
    "  Process name: [[3862,1],3]\n"
    "  Exit code:    127\n"
    "--------------------------------------------------------------------------\n"
)

# https://github.com/NVIDIA/nccl-tests/issues/85 (libnccl.so.2 not on LD_LIBRARY_PATH): NCCL's own entry keeps it
NCCL_TESTS_85 = ("./build/all_reduce_perf: error while loading shared libraries: libnccl.so.2: cannot open shared "
                 "object file: No such file or directory\n")

# https://github.com/pyg-team/pyg-lib/issues/548 (a wheel built for a newer glibc than Ubuntu 20.04's 2.31)
PYG_548 = (
    "  File \"/home/ee615/anaconda3/envs/qcnet/lib/python3.10/ctypes/__init__.py\", line 374, in __init__\n"
    "    self._handle = _dlopen(self._name, mode)\n"
    "OSError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.33' not found (required by "
    "/home/ee615/anaconda3/envs/qcnet/lib/python3.10/site-packages/libpyg.so)\n"
)

# https://github.com/sophgo/LLM-TPU/issues/166 (torch built with a newer libstdc++ than the system's)
LLM_TPU_166 = (
    "    from torch._C import *  # noqa: F403\n"
    "    ^^^^^^^^^^^^^^^^^^^^^^\n"
    "ImportError: /lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by "
    "/usr/local/lib64/python3.11/site-packages/torch/lib/libtorch_python.so)\n"
)


def test_a_library_ld_so_could_not_preload_is_a_note_not_an_error(cli, tmp_path):
    # (the PR's 'ls: cannot access' line after it is a command that failed: left out here)
    for text in (AWS_654.splitlines(True)[0], GPUSTACK_5660):
        rc, doc = explain_paste(cli, tmp_path, text)
        assert doc["verdict"] == "no_error" and not doc["findings"] and rc == 0, (doc["verdict"], ids(doc))
        notes = [n for n in doc["context"] if n["id"] == "loader.preload_ignored"]
        assert notes and "not in effect" in notes[0]["note"] and "ld.so" in notes[0]["text"], doc["context"]


def test_a_preload_line_beside_a_real_error_leaves_the_error_the_root(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, AWS_654 + NCCL_TESTS_85)
    assert_root(doc, entry="nccl.lib_missing")
    assert "loader.preload_ignored" in [n["id"] for n in doc["context"]]


def test_the_loaders_own_errors_get_a_family(cli, tmp_path):
    rc, doc = explain_paste(cli, tmp_path, NCCL_872)
    root = assert_root(doc, entry="loader.cannot_open", verdict="root_cause")
    # mpirun's exit code 127 moves "not on the ranks' library path" first
    assert "LD_LIBRARY_PATH" in root["causes"][0]["text"] and "mpirun -x LD_LIBRARY_PATH" in fixes(root)
    rc, doc = explain_paste(cli, tmp_path, PYG_548)
    root = assert_root(doc, entry="loader.version_not_found")
    assert "manylinux" in root["causes"][0]["fix"][0]
    rc, doc = explain_paste(cli, tmp_path, LLM_TPU_166)
    root = assert_root(doc, entry="loader.version_not_found")
    assert "libstdc++" in root["causes"][0]["text"] and "libstdcxx-ng" in fixes(root)


def test_symbol_lookup_error_and_the_entries_that_know_the_library(cli, tmp_path):
    # glibc's format (elf/dl-lookup.c): the program, 'symbol lookup error', the object, the symbol
    rc, doc = explain_paste(cli, tmp_path, "python3: symbol lookup error: /opt/app/lib/libfoo.so: undefined symbol: "
                                           "_ZN3foo3barEv\n")
    assert_root(doc, entry="loader.undefined_symbol", fix="LD_LIBRARY_PATH")
    # a symbol of NCCL's, and a CUDA library missing, stay with the entries that know them
    rc, doc = explain_paste(cli, tmp_path, NCCL_TESTS_85)
    assert_root(doc, entry="nccl.lib_missing")
    rc, doc = explain_paste(cli, tmp_path, "python: error while loading shared libraries: libcudart.so.12: cannot "
                                           "open shared object file: No such file or directory\n")
    assert_root(doc, entry="cuda.libs")
