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


def test_glogs_header_with_the_year_is_a_header_and_its_severity():
    # google/glog src/logging.cc LogMessage::Init: the year first with its log_year_in_prefix flag
    from gpudoctor.explain.text import severity

    head = "W20251127 01:00:53.431996  8243 client.cc:12] failed to connect to the peer"
    assert severity(head) == "warn" and severity("I" + head[1:]) == "info" and severity("E" + head[1:]) is None
    st = _states(head + "\nConnection refused\n")
    assert st[0] == (b"W", b"", 0) and st[1] == (b"W", b"", 1)


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


def test_a_fatal_record_is_an_error(kb):
    # glog / abseil CHECK: 'Check failed: ' at FATAL, then '*** Check failure stack trace: ***' (any FATAL record)
    for text in ("step 1 loss 0.5\nF0123 12:00:00.000000    1234 foo.cc:12] Check failed: x == y (1 vs. 2)\n",
                 "step 1 loss 0.5\nF0123 12:00:00.000000    1234 foo.cc:12] the thing is gone\n"
                 "*** Check failure stack trace: ***\n    @     0x7ff7f3440634  absl::log_internal::LogMessage::SendToLog()\n"):
        res = explain.explain_text(text, kb)
        assert res["verdict"] != "no_error", text
    # a health check's words elsewhere in a line are not a CHECK
    res = explain.explain_text("step 1 loss 0.5\nnote: the disk health check failed: retrying is not needed\n", kb)
    assert res["verdict"] == "no_error"

# ---- XLA's coordination service (jax.distributed): tools/gen_xla_coordination.py, knowledge/xla_coordination.toml

import re  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "tools"))
import gen_xla_coordination  # noqa: E402
import knowgen  # noqa: E402

DATA = os.path.join(REPO, "tests", "data", "glog16")


def test_the_generator_regenerates_the_committed_sites_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen_xla_coordination.main, os.path.join(REPO, "tools", "data",
                                                                     "xla_coordination_slice.txt"), tmp_path / "x.json")
    want = knowgen.committed("xla_coordination")
    assert [(s["id"], s.get("family"), s.get("re")) for s in got["sites"]] == \
        [(s["id"], s.get("family"), s.get("re")) for s in want["sites"]]
    def fam(start):
        return next(s.get("family") for s in got["sites"] if s["text"].startswith(start))

    assert fam("heartbeat timeout. This indicates") == "xla.coord_peer_failed"
    assert fam("Barrier timed out. Id: %s.") == "xla.coord_barrier_late"
    assert fam("unexpectedly tried to connect with a different") == "xla.coord_task_restarted"
    assert fam("Shutdown barrier in coordination service has failed") == "xla.coord_peer_failed"
    assert fam("Coordination service agent failed to register") == "xla.coord_connect"
    assert fam("Conflicting tasks specified") == "jax.distributed_init"
    assert not any(s.get("family") for s in got["sites"] if "has passed" in s["text"] or "is enabled" in s["text"])


def test_the_leading_sentences_are_the_matcher():
    # the advice after them is reworded between releases (jax-ml/jax#23599 quotes the older 'to debug further.')
    lead = gen_xla_coordination._leading(
        "heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly. "
        "Check the task logs for an earlier error or scheduler events (e.g. preemption, eviction) to debug further.")
    assert lead.endswith("crashed unexpectedly.") and "Check" not in lead


# made here (tests/data/glog16/README.md): (file, verdict, entry of the first finding, family, a regex over its fixes)
RUNS = [
    ("peer_killed.0.log", "echo_only", "xla.coord_peer_failed", "cascade", r"task the message names"),
    ("peer_never_started.0.log", "echo_only", "xla.coord_peer_failed", "cascade", r"num_processes processes"),
    ("barrier_late_peer.0.log", "root_cause", "xla.coord_barrier_late", "rendezvous.store_barrier",
     r"reach the same barriers"),
]

REAL = {
    # https://github.com/jax-ml/jax/issues/23599 (qGentry's comment: an older XLA's wording of the heartbeat timeout)
    "jax_23599_heartbeat": (
        "2024-10-09 15:47:38.568412: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:"
        "1170] /job:jax_worker/replica:0/task:0 has been set to ERROR in coordination service: UNAVAILABLE: Task "
        "/job:jax_worker/replica:0/task:0 heartbeat timeout. This indicates that the remote task has failed, got "
        "preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further. "
        "[type.googleapis.com/tensorflow.CoordinationServiceError='']\n", "xla.coord_peer_failed", r"process_id N"),
    # https://github.com/jax-ml/jax/pull/39095 (docs/new_docs/501/fault-tolerance.rst: process 0's service gone)
    "jax_39095_leader_gone": (
        "E0929 17:42:48.594192 1044529 coordination_service_agent.cc:332] Polled an error from coordination service "
        "(this can be an error from this or another task).\n"
        "F0929 17:42:48.594200 1044529 client.h:77] Terminating process because the JAX distributed service detected "
        "fatal errors. This most likely indicates that another task died; see the other task logs for more details. "
        "Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: "
        "UNAVAILABLE: Failed to send RPC to coordination service. Either the leader task was preempted/died/restarted "
        "unexpectedly or this task is experiencing network issues. Check earlier\n"
        "Additional GRPC error information from remote target coordination_service while calling "
        "/tensorflow.CoordinationService/PollForError:\n"
        ":UNKNOWN:Error received from peer  {grpc_message:\"Socket closed\", grpc_status:14}\n",
        "xla.coord_peer_failed", r"first error"),
}


def test_runs_made_here_get_the_coordination_services_answer(kb):
    for name, verdict, want, family, fix_re in RUNS:
        with open(os.path.join(DATA, name)) as f:
            res = explain.explain_text(f.read(), kb)
        root = res["findings"][0] if res["findings"] else None
        assert res["verdict"] == verdict and root and root["id"] == want, (name, res["verdict"],
                                                                           [f["id"] for f in res["findings"]])
        assert root.get("family") == family, (name, root.get("family"))
        fixes = "\n".join(fx for c in root["causes"] for fx in c["fix"])
        assert re.search(fix_re, fixes), (name, fixes)
    with open(os.path.join(DATA, "clean_two_processes.log")) as f:
        res = explain.explain_text(f.read(), kb)
    assert res["verdict"] == "no_error" and not res["findings"]


def test_public_threads_get_the_coordination_services_answer(kb):
    for name, (text, want, fix_re) in REAL.items():
        res = explain.explain_text(text, kb)
        root = res["findings"][0] if res["findings"] else None
        assert root and root["id"] == want, (name, [f["id"] for f in res["findings"]])
        fixes = "\n".join(fx for c in root["causes"] for fx in c["fix"])
        assert re.search(fix_re, fixes), (name, fixes)
