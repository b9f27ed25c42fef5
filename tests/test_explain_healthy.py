"""Healthy logs get no root cause (issue 18: "gives no root cause for a healthy log", "never
confidently wrong"). The matchers generated from Slurm's, torch's, NCCL's and Open MPI's format
strings must not turn INFO/verbose/debug output, launcher chatter or a tool's normal report into a
cause, and a line of one program must not trigger another program's specific message.

fixtures/explain/healthy/ (its README cites each file: public threads, or made here with Slurm
22.05, torch 2.13 CPU and Open MPI 4.1) goes through the CLI as a user runs it.
"""

import glob
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEALTHY = sorted(glob.glob(os.path.join(ROOT, "fixtures", "explain", "healthy", "*.log")))


def _explain(cli, path):
    rc, out, err = cli("explain", "--json", path)
    return rc, json.loads(out)


def test_the_corpus_covers_the_programs_that_print_healthy_chatter():
    names = " ".join(os.path.basename(p) for p in HEALTHY)
    assert len(HEALTHY) >= 25
    for kind in ("slurmd-debug3", "srun-vvv", "salloc-v", "sbatch-v", "torchrun", "mpirun", "nvidia-smi", "ibstat",
                 "ibv-devinfo", "ds-report", "deepspeed", "accelerate", "hf-trainer", "c10d", "nccl-", "nccl-tests", "tqdm"):
        assert kind in names, kind
    with open(os.path.join(ROOT, "fixtures", "explain", "healthy", "README.md")) as f:
        readme = f.read()
    for p in HEALTHY:  # every file is cited (a URL, or how it was made here)
        assert os.path.basename(p) in readme, p


@pytest.mark.parametrize("path", HEALTHY, ids=os.path.basename)
def test_a_healthy_log_is_no_error(cli, path):
    rc, res = _explain(cli, path)
    assert (rc, res["verdict"], res["root"]) == (0, "no_error", None), \
        [(f["id"], f["role"], f["matches"][0]["text"]) for f in res["findings"]]
    assert res["findings"] == []


def test_the_folder_as_one_job_is_no_error(cli):
    # explain takes a folder of per-node logs as one job: all of them together are healthy too
    rc, res = _explain(cli, os.path.join(ROOT, "fixtures", "explain", "healthy"))
    assert (rc, res["verdict"], res["findings"]) == (0, "no_error", [])
    assert len(res["sources"]) >= len(HEALTHY)


def _ids(res):
    return [f["id"] for f in res["findings"]], [n["id"] for n in res.get("notes") or []]


@pytest.mark.parametrize("text", [
    # srun -vvv's debug lines (src/common/log.c: 'debug:  ' / 'debug2: ' after the program's name or a
    # daemon's time stamp): the PMIx plugin's 'net_stream_listen' and a memlock limit named, no error
    "srun: debug:  port from net_stream_listen is 44677\nsrun: debug:  propagating RLIMIT_MEMLOCK=8388608\n",
    "[2026-11-25T20:14:45.641] [1.0] debug2: _set_limit: conf setrlimit RLIMIT_MEMLOCK no change in value: 8388608\n",
    # salloc's info() when it gives its allocation back (src/salloc/salloc.c: the same words as an error())
    "salloc: Granted job allocation 3\nsalloc: Relinquishing job allocation 3\nsalloc: Job allocation 3 has been revoked.\n",
    # Open MPI's coll verbose output names a priority: no Slurm pending reason '(Priority)'
    "[vm:22544] coll:base:comm_select: component disqualified: self (priority -1 < 0)\n",
])
def test_debug_and_info_lines_of_one_program_are_no_finding(cli, tmp_path, text):
    p = tmp_path / "x.log"
    p.write_text(text)
    rc, res = _explain(cli, p)
    assert (rc, res["verdict"]) == (0, "no_error"), _ids(res)
    assert not any(n.startswith("slurm.") for n in _ids(res)[1])


@pytest.mark.parametrize("text,entry", [
    # the same messages at error level still answer (the marker is there)
    ("srun: error: mpi/pmix_v4: pmixp_dconn_tcp_prepare: n1 [0]: pmixp_dconn_tcp.c:70: net_stream_listen: "
     "Address already in use (98)\n", "slurm.mpi"),
    ("salloc: error: Job allocation 3 has been revoked\n", "slurm.error"),
    ("[2026-11-25T20:14:45.641] [7.0] error: mpi/pmi2: spawn failed\n", "slurm.mpi"),
])
def test_the_error_level_of_the_same_messages_still_answers(cli, tmp_path, text, entry):
    p = tmp_path / "x.log"
    p.write_text(text)
    rc, res = _explain(cli, p)
    assert (rc, res["verdict"], res["root"]) == (0, "root_cause", entry), _ids(res)


def test_squeue_pending_reasons_are_still_read(cli, tmp_path):
    p = tmp_path / "q.log"
    p.write_text("  JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
                 "   1234       gpu    train    alice PD       0:00      2 (QOSMaxGRESPerUser)\n")
    rc, res = _explain(cli, p)
    assert res["root"] == "slurm.qos_limit", _ids(res)


@pytest.mark.parametrize("text,nccl", [
    # NCCL's generic wrapper format '%s() failed: %s' (src/misc/nvmlwrap.cc) is NCCL's only on NCCL's line
    ("OpenBLAS blas_thread_init: pthread_create() failed: Resource temporarily unavailable\n", False),
    ("node1:123:456 [0] NCCL WARN pthread_create() failed: Resource temporarily unavailable\n", True),
    # a verbs error printed by UCX (the line of NVIDIA/cudf-spark#7632, fixtures/logs/dev) is not an NCCL
    # internal error
    ("ERROR mlx5_0: ibv_create_cq() failed: Cannot allocate memory.\n", False),
])
def test_a_generic_nccl_format_needs_nccls_own_prefix(cli, tmp_path, text, nccl):
    p = tmp_path / "x.log"
    p.write_text(text)
    rc, res = _explain(cli, p)
    assert ("nccl.internal_error" in _ids(res)[0]) is nccl, _ids(res)


@pytest.mark.parametrize("text", [
    # first lines of Open MPI help topics (help-*.txt) that any program prints: alone they are no
    # Open MPI message ('You can try the following:' was shm.size, a usage line mpi.orted)
    "You can try the following:\n",
    "Usage: train.py [OPTION]...\n",
    "Comments\n",
    "Allocation request: 4 GPUs\n",
])
def test_a_short_open_mpi_topic_line_alone_is_no_finding(cli, tmp_path, text):
    p = tmp_path / "x.log"
    p.write_text(text)
    rc, res = _explain(cli, p)
    assert res["verdict"] == "no_error" and res["findings"] == [], _ids(res)


def test_a_short_open_mpi_topic_is_still_read_on_its_two_lines(cli, tmp_path):
    # help-orted.txt [orted:usage] as orted prints it (Debian openmpi-common 4.1.4)
    p = tmp_path / "x.log"
    p.write_text("Usage: orted [OPTION]...\nStart an Open RTE Daemon\n")
    rc, res = _explain(cli, p)
    assert "mpi.orted" in _ids(res)[0], _ids(res)


@pytest.mark.parametrize("text,gloo", [
    # Gloo's short transport messages ('Read timeout %s', 'Socket closed %s', 'MPI_Allreduce: %s') are
    # Gloo's only after GLOO_ERROR_MSG's '[<file>:<line>] ' (gloo/common/error.h)
    ("requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='huggingface.co', port=443): Read timeout\n", False),
    ("websocket: Socket closed by remote\n", False),
    ("MPI_Allreduce: MPI_ERR_TRUNCATE: message truncated\n", False),
    ("[rank1]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:523] Read timeout "
     "[127.0.0.1]:40000\n", True),
])
def test_a_short_gloo_message_needs_gloos_file_and_line(cli, tmp_path, text, gloo):
    p = tmp_path / "x.log"
    p.write_text(text)
    rc, res = _explain(cli, p)
    assert any(i.startswith("gloo.") for i in _ids(res)[0]) is gloo, _ids(res)


@pytest.mark.parametrize("text,entry", [
    # a torch.distributed message of few words (tools/gen_torch_messages.py) is torch's only after what
    # torch prints before it: an exception's type, c10d's tag, glog's prefix
    ("Warning: flash-attn is not available.\n", None),
    ("Unknown option --foo\n", None),
    ("Socket Timeout\n", None),
    ("torch.distributed.DistStoreError: Socket Timeout\n", "rendezvous.store_timeout"),
])
def test_a_short_torch_message_needs_torchs_context(cli, tmp_path, text, entry):
    p = tmp_path / "x.log"
    p.write_text(text)
    rc, res = _explain(cli, p)
    assert res["root"] == entry, _ids(res)


def test_salloc_time_limit_revocation_is_the_time_limit(cli, tmp_path):
    # src/salloc/salloc.c: info("Job %u has exceeded its time limit and its allocation has been revoked.")
    p = tmp_path / "x.log"
    p.write_text("salloc: Job 41 has exceeded its time limit and its allocation has been revoked.\n")
    rc, res = _explain(cli, p)
    assert res["root"] == "slurm.time_limit", _ids(res)


@pytest.mark.parametrize("text,entry", [
    # the limit's name alone (srun -v 'propagating', a limits dump) is no memlock failure; slurmstepd's
    # refusal (src/slurmd/slurmstepd/ulimits.c: "Can't propagate %s of %s from submit host: %m") is
    ("srun: propagating RLIMIT_MEMLOCK=8388608\n", None),
    ("slurmstepd: error: Can't propagate RLIMIT_MEMLOCK of 'unlimited' from submit host: Operation not permitted\n",
     "rdma.memlock"),
])
def test_rlimit_memlock_needs_a_refusal(cli, tmp_path, text, entry):
    p = tmp_path / "x.log"
    p.write_text(text)
    rc, res = _explain(cli, p)
    assert res["root"] == entry, _ids(res)
