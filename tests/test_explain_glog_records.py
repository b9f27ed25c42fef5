"""absl / glog log records (issue 18, glog16): a record's header (abseil-cpp absl/log/internal/log_format.cc
FormatLogPrefix, google/glog src/logging.cc LogMessage::Init: 'W1127 01:00:53.429734    8216 pjrt_client.cc:1605] ')
and the lines after it up to the next record are one record, written whole; a body line under an I or W header is
context as the header is (scan.record_state), under E or F it stays an error line. A healthy two-process JAX run whose
shutdown prints W records with a gRPC status detail ('Connection refused') stays healthy."""

import json
import os

from gpudoctor import explain
from gpudoctor.explain import scan as S

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _states(text, order=None):
    """record_state of each line of ``text``, asked in ``order`` (line indices; default: all, in order)."""
    buf = text.encode()
    starts, pos = [], 0
    for line in text.split("\n"):
        starts.append(pos)
        pos += len(line.encode()) + 1
    sc = S.Scan()
    order = range(len(starts)) if order is None else order
    return {i: S.record_state(sc, buf, starts[i]) for i in order}


JAX_SHUTDOWN = (
    "process 0 done loss 0.000000\n"
    "W1127 01:00:53.431996    8243 pjrt_client.cc:1605] WatchTasksAsync failed for task 1: UNAVAILABLE: failed to "
    "connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:23457: Failed to connect to remote host: "
    "Connection refused\n"
    "Additional GRPC error information from remote target coordination_service while calling "
    "/xla.coordination.CoordinationService/WatchTasks:\n"
    ":UNAVAILABLE:failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:23457: Failed to connect to "
    "remote host: Connection refused\n"
    "=== Source Location Trace: ===\n"
    "external/xla+/xla/tsl/distributed_runtime/rpc/grpc_util.h:89\n"
    "\n")


def test_a_records_body_has_its_headers_severity_up_to_the_next_record():
    st = _states(JAX_SHUTDOWN)
    assert st[0] is None  # the program's own line
    assert st[1] == (b"W", b"", 0)  # the header
    assert [st[i][2] for i in (2, 3, 4, 5)] == [1, 2, 3, 4]  # its body, the Status's detail lines
    assert st[6] is None  # a blank line ends it
    text = ("0: [W1126 13:53:57.881931044 socket.cpp:207] [c10d] The hostname of the client socket cannot be "
            "retrieved. err=-3\n0: more of it\n1: Traceback (most recent call last):\n0: not its body\n"
            "[rank0]:[W1126 13:53:31.247387868 ProcessGroupNCCL.cpp:1575] Warning: x\n[rank0]: detail\n"
            "[rank1]: another rank's line\nsrun: error: s2: task 1: Exited with exit code 1\n"
            "E1127 01:00:53.429734    8216 client.cc:80] failed\n detail of the error\n"
            "I1127 01:00:53.429734    8216 a.cc:1] info\nERROR:root:a logger's own record\n")
    st = _states(text)
    assert st[0] == (b"W", b"0:", 0) and st[1] == (b"W", b"0:", 1)
    assert st[2] is None and st[3] is None  # another rank's tag, then no header above it
    assert st[4] == (b"W", b"[rank0]:", 0) and st[5] == (b"W", b"[rank0]:", 1) and st[6] is None
    assert st[7] is None  # srun's own message
    assert st[9] == (b"E", b"", 1)  # an E record's body (stays an error line: _in_record)
    assert st[11] is None  # a level word starts a record of its own
    # asked sparsely or out of order (a new Scan: no walk-back memo), each answer is the same
    lines = text.split("\n")
    for i in range(len(lines)):
        assert _states(text, [i])[i] == st[i], i
    assert _states(text, [1, 5, 9])[9] == st[9]


def test_a_body_longer_than_max_body_is_read_as_its_own():
    text = "W1127 01:00:53.431996    8243 a.cc:1] w\n" + "x\n" * (S.MAX_BODY + 3)
    st = _states(text)
    assert st[S.MAX_BODY][2] == S.MAX_BODY and st[S.MAX_BODY + 1] is None and st[S.MAX_BODY + 2] is None


def test_a_healthy_jax_runs_shutdown_records_stay_healthy(kb):
    # the seen set's planted run (bench/data, P22: two JAX processes, pmap + pmean, exit 0), and the excerpt alone
    with open(os.path.join(REPO, "bench", "data", "explain_heldout_2026-11-27p22.jsonl")) as f:
        case = next(c for c in map(json.loads, f) if c["id"] == "p22-healthy_jax_two_process_pmean")
    for text in (case["text"], JAX_SHUTDOWN):
        res = explain.explain_text(text, kb)
        assert res["verdict"] == "no_error" and not res["findings"], res["verdict"]


def test_an_error_record_and_a_failure_after_a_warning_record_are_still_errors(kb):
    # the same detail under an E header is an error line
    res = explain.explain_text(JAX_SHUTDOWN.replace("W1127 01:00:53.431996", "E1127 01:00:53.431996"), kb)
    assert res["verdict"] != "no_error"
    # a Python exception after a W record starts a record of its own: still the root
    res = explain.explain_text(
        "W1127 01:00:53.431996    8243 a.cc:1] slow\nsome detail\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "79.10 GiB of which 1.00 GiB is free.\n", kb)
    assert res["findings"] and res["findings"][0]["family"] == "cuda.oom", [f["id"] for f in res["findings"]]
    # the shell's report of a process killed by a signal after a W record is the shell's, not the record's body
    # (review16: it was read as the warning's detail and the text as 'no error')
    for crash in ("Segmentation fault (core dumped)", "./run.sh: line 3: 4242 Segmentation fault      (core dumped) "
                  "python train.py"):
        res = explain.explain_text("W1127 01:00:53.431996    8243 a.cc:1] slow\n" + crash + "\n", kb)
        assert res["verdict"] != "no_error", crash
