"""torchrun's failure report (gpudoctor/explain/elastic.py, knowledge elastic.toml): the signal that
ended the first failing rank names the cause, and the headline names that rank, host and time.
Real runs: fixtures/explain/torchrun-cpu-2026-11-25/ (torch 2.13.0+cpu, gloo, 2 processes, its
README says what ran); real texts from public threads, cited. None of these is in bench/data/.
"""

import os
import re

import pytest
from explainhelp import assert_root, fixes

from gpudoctor import explain
from gpudoctor.explain.knowledge import open_generated

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = os.path.join(REPO, "fixtures", "explain", "torchrun-cpu-2026-11-25")


def _explain(kb, *names):
    paths = [os.path.join(RUNS, n) for n in names]
    return explain.explain_inputs([(p, (lambda p=p: open(p, "rb"))) for p in paths], kb)


def _fixes(f):
    return fixes(f, confirm=True) + "\n".join(f["debug"])


@pytest.mark.parametrize("log,entry,time,fix", [
    ("sigkill.log", "elastic.sigkill", "2026-11-25_23:10:28", "DataLoader workers"),
    ("sigbus.log", "elastic.sigbus", "2026-11-25_23:10:31", "--shm-size"),
    ("sigsegv.log", "elastic.sigsegv", "2026-11-25_23:10:34", "PYTHONFAULTHANDLER=1"),
    ("sigabrt.log", "elastic.sigabrt", "2026-11-25_23:10:37", "PYTHONFAULTHANDLER=1"),
    ("sigterm.log", "elastic.sigterm", "2026-11-25_23:10:45", "sacct -j"),
])
def test_the_signal_of_the_first_failure_is_the_root_and_names_rank_host_time(kb, log, entry, time, fix):
    res = _explain(kb, log)
    root = assert_root(res, entry, verdict="root_cause")
    # the report's Root Cause: rank 1 on localhost; not rank 0's gloo error (its echo)
    assert root["origin"]["rank"] == "1" and root["origin"]["host"] == "localhost" and root["origin"]["time"] == time
    assert root["notes"][0].startswith("torchrun's failure report: the first observed failure was rank 1 (local_rank 1)")
    assert fix in _fixes(root)


def test_sigkill_names_the_oom_killer_and_how_to_see_it(kb):
    root = _explain(kb, "sigkill.log")["findings"][0]
    assert "dmesg" in _fixes(root) and root["causes"][0]["text"].startswith("The host ran out of RAM")


def test_several_nodes_reports_the_earliest_first_failure_is_the_headline(kb):
    # two agents' reports (per-node files): rank 1's SIGKILL at 23:10:28 came before the SIGTERM at 23:10:45
    res = _explain(kb, "sigterm.log", "sigkill.log")
    root = assert_root(res, "elastic.sigkill")
    assert root["origin"]["time"] == "2026-11-25_23:10:28"
    assert root["origin"]["file"].endswith("sigkill.log")


def test_the_scheduler_cancelling_torchrun_is_sigterm_from_outside(kb):
    root = assert_root(_explain(kb, "cancelled.log"), "elastic.sigterm")
    assert "sacct -j" in _fixes(root)


def test_exit_1_without_record_says_the_traceback_above_is_the_cause(kb):
    res = _explain(kb, "raise_norecord.log")
    note = next(n for f in res["findings"] for n in f["notes"] if n.startswith("torchrun's failure report"))
    assert "error_file: <N/A>" in note and "@torch.distributed.elastic.multiprocessing.errors.record" in note
    # with @record the report carries the traceback: no such advice
    res = _explain(kb, "raise.log")
    note = next(n for f in res["findings"] for n in f["notes"] if n.startswith("torchrun's failure report"))
    assert "exit code 1." in note and "@torch" not in note


def test_a_healthy_torchrun_run_is_no_error(kb):
    assert _explain(kb, "ok.log")["verdict"] == "no_error"


# Real texts (verbatim excerpts), each with its source thread.
# https://github.com/lzhxmu/CPPO/issues/6 (accelerate -> torchrun, torch without the signal name in 'exitcode')
CPPO_6 = """\
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
src/open_r1/grpo_gsm.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-05-21_15:43:03
  host      : mlxlab115rp2n7682d40d9-20250521025625-6dyyd3-8nir8b-worker
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 14750)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 14750
============================================================
"""
# https://github.com/meta-llama/llama/issues/706 (the agent's line, torch 2.0's logger format)
LLAMA_706 = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 333202) "
             "of binary: /home/akemid/llama/venv/bin/python3\n")


def test_real_sigkill_reports_get_the_oom_answer(kb):
    root = assert_root(explain.explain_text(CPPO_6, kb), "elastic.sigkill")
    assert "dmesg" in _fixes(root)
    assert root["origin"]["rank"] == "0" and root["origin"]["time"] == "2025-05-21_15:43:03"
    assert root["origin"]["host"] == "mlxlab115rp2n7682d40d9-20250521025625-6dyyd3-8nir8b-worker"
    assert_root(explain.explain_text(LLAMA_706, kb), "elastic.sigkill")


@pytest.mark.parametrize("log", ["raise.log", "raise_norecord.log"])
def test_a_ranks_own_exception_beside_the_report_is_the_root_not_the_echo(kb, log):
    # rank 1's ValueError (with @record its traceback has the wrapper's frame in
    # elastic/multiprocessing/errors/__init__.py; torchrun's own traceback follows it): the error is in
    # the job's code, and rank 0's gloo 'Connection closed by peer' and ChildFailedError are echoes
    res = _explain(kb, log)
    root = assert_root(res, "code.exception", verdict="root_cause")
    assert root["origin"]["rank"] == "1" and "ValueError: labels out of range" in root["matches"][0]["text"]
    assert {"cascade.child_failed", "errno.peer_gone"} <= {f["id"] for f in res["findings"] if f["role"] == "cascade"}


def _root(kb, log):
    res = _explain(kb, log)
    return res["findings"][0], _fixes(res["findings"][0])


def test_rendezvous_runs_get_the_fix_of_their_own_message(kb):
    # c10d rendezvous, the second node never came: not "MASTER_ADDR unreachable" but fewer nodes than --nnodes
    root, fixes = _root(kb, "rdzv_timeout.log")
    assert root["id"] == "elastic.rdzv_incomplete" and "--rdzv-id" in fixes and "join_timeout" in fixes
    assert not any("Flight Recorder" in n for n in root["notes"])  # a rendezvous, not a collective
    # static rendezvous, node 1: nobody listens at the master's port
    root, fixes = _root(kb, "static_connect.log")
    assert root["id"] == "rendezvous.connect" and "nc -zv $MASTER_ADDR $MASTER_PORT" in fixes
    # node 0 waited for node 1: "1/2 clients joined" names --node-rank, not the network first
    # (tools/gen_torch_messages.py SITE_FIX)
    root, fixes = _root(kb, "static_wait.log")
    assert root["id"] == "rendezvous.store_timeout" and root["causes"][0]["fix"][0].startswith(
        "start torchrun on every node with the same --nnodes and a distinct --node-rank")
    # MASTER_PORT already taken by another process
    root, fixes = _root(kb, "port_in_use.log")
    assert root["id"] == "rendezvous.address_in_use" and "--master_port" in fixes


def test_every_site_fix_of_the_torch_generator_names_a_committed_site():
    import json
    import re
    import sys

    sys.path.insert(0, os.path.join(REPO, "tools"))
    import gen_torch_messages as gen

    with open_generated("torch_messages") as f:
        sites = json.load(f)["sites"]
    for rx, means, fix in gen.SITE_FIX:
        assert any(s.get("fix") == fix and s.get("means") == means and re.search(rx, s["text"]) for s in sites), rx


def test_c10d_ipv6_attempt_with_errno_97_is_a_note_not_an_error(kb):
    # lines in socket.cpp's recordError formats (C10D_WARNING, then the next address): on a host without IPv6
    # '[::]' fails with errno 97 and IPv4 works; another errno on a lone attempt is still rendezvous.*
    ok = ("[W socket.cpp:426] [c10d] The server socket has failed to bind to [::]:29500 (errno: 97 - Address family "
          "not supported by protocol).\n[I socket.cpp:923] The client socket has connected to [localhost]:29500 on "
          "[localhost]:51350.\nepoch 1 step 100 loss 2.3\n")
    res = explain.explain_text(ok, kb)
    assert res["verdict"] == "no_error" and [n["id"] for n in res["context"]] == ["elastic.ipv6_attempt"]
    refused = "[W socket.cpp:697] [c10d] The client socket has failed to connect to [node01]:29500 (errno: 111 - " \
              "Connection refused).\n"
    assert explain.explain_text(refused, kb)["root"] == "rendezvous.connect"
    taken = "[W socket.cpp:426] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address " \
            "already in use).\n"
    assert explain.explain_text(taken, kb)["root"] == "rendezvous.address_in_use"


def test_two_nodes_that_disagree_on_nnodes_name_the_rendezvous_and_the_nnodes_cause(kb):
    # nnodes_a.log (--nnodes 2) timed out; nnodes_b.log (--nnodes 3) lost the store when A's agent exited
    res = _explain(kb, "nnodes_a.log", "nnodes_b.log")
    root = res["findings"][0]
    assert root["id"] == "elastic.rdzv_incomplete" and root["origin"]["file"].endswith("nnodes_a.log")
    assert any("--nnodes" in c["text"] and "MIN" in c["text"] for c in root["causes"])
    assert "errno.peer_gone" in [f["id"] for f in res["findings"] if f["role"] == "cascade"]


# https://github.com/deepspeedai/DeepSpeed/issues/3232 (DeepSpeed's launch.py, the rank's argument list shortened)
DS_3232 = ("[2023-04-14 13:11:27,879] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 13266\n"
           "[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', "
           "'--local_rank=0', '--zero_stage', '2', '--deepspeed'] exits with return code = -9\n")


def test_the_signal_through_deepspeed_and_accelerate_launchers(kb):
    root = explain.explain_text(DS_3232, kb)["findings"][0]
    assert root["id"] == "elastic.sigkill" and "dmesg" in _fixes(root)
    # accelerate's simple launcher re-raises subprocess.CalledProcessError (Python's own text for a signal)
    import subprocess

    text = "subprocess.CalledProcessError: %s\n" % subprocess.CalledProcessError(-11, ["/usr/bin/python", "train.py"])
    assert explain.explain_text(text, kb)["findings"][0]["id"] == "elastic.sigsegv"


# ---------------------------------------------------------------- the formats of torch's own tests
# pytorch/pytorch test/distributed/elastic/multiprocessing/errors/api_test.py (read at
# 25ccaa8f8c4a96717e0b14ad3719ce873c850ab1) builds ProcessFailure / ChildFailedError objects and prints
# format_msg(); fixtures/explain/torch-childfailed-2026-11-26/ holds what torch 2.13.0 printed for each
# case (its README, make_reports.py). What elastic.py reads from each: the first failure's rank, host,
# time, exit code or signal, and the rank's own error where the report carries its error file.
CHILD = os.path.join(REPO, "fixtures", "explain", "torch-childfailed-2026-11-26")
HOST = "trainer-0.cluster.example"


def _report(kb, name, older=False):
    with open(os.path.join(CHILD, name + ".log")) as f:
        text = f.read()
    if older:
        # the template before torch printed the signal's name after the pid (_FAILURE_FORMAT_TEMPLATE
        # 'exitcode  : ${exitcode} (pid: ${pid})' at pytorch/pytorch 0140b62d8bab203e4699faeba802b5204fa51d26)
        text = re.sub(r"(\(pid: \d+\)) (?: \(SIG\w+\))?", r"\1", text)
        assert "(pid: " in text and not re.search(r"\(pid: \d+\) ", text)
    res = explain.explain_text(text, kb)
    note = next(n for f in res["findings"] for n in f["notes"] if n.startswith("torchrun's failure report"))
    return res, res["findings"][0], note


@pytest.mark.parametrize("older", [False, True], ids=["torch-2.13", "before-signal-name"])
@pytest.mark.parametrize("name,verdict,entry,rank,time,how", [
    # one failure, no error file: the exit code and the @record advice (api_test test_process_failure_no_error_file)
    ("exit138_no_error_file", "echo_only", "cascade.child_failed", "0", "2025-11-26_01:00:00", "exit code 138. "),
    # a signal (test_process_failure_signal, test_child_failed_error_signal_name_in_message)
    ("sigsegv", "root_cause", "elastic.sigsegv", "0", "2025-11-26_01:00:00", "exit code -11 (signal 11, SIGSEGV)."),
    # several failures: the first is the smallest timestamp, not the first listed (get_first_failure)
    ("several_failures", "root_cause", "code.exception", "0", "2025-11-26_01:00:00", "exit code 1."),
    ("root_listed_second", "root_cause", "elastic.sigkill", "1", "2025-11-26_01:00:12",
     "exit code -9 (signal 9, SIGKILL)."),
    # an error file in the newer format: {"message": str, "timestamp": 10} (test_process_failure_new_format)
    ("new_format_error_file", "echo_only", "cascade.child_failed", "0", "1970-01-01_00:00:10", "exit code 1."),
    # a number that names no signal: signal_name() is <N/A> and the report prints no name
    ("signal_without_name", "echo_only", "cascade.child_failed", "0", "2025-11-26_01:00:03",
     "exit code -99 (signal 99)."),
])
def test_torchs_own_reports_are_read_rank_host_time_and_how(kb, name, verdict, entry, rank, time, how, older):
    res, root, note = _report(kb, name, older)
    assert_root(res, entry, verdict=verdict)
    assert (root["origin"]["rank"], root["origin"]["host"], root["origin"]["time"]) == (rank, HOST, time)
    assert ("first observed failure was rank %s " % rank) in note and ("at %s, %s" % (time, how)) in note, note


def test_the_error_file_in_the_report_is_the_answer_not_the_other_ranks(kb):
    """api_test test_child_failed_error: ranks 0 and 1 wrote error files (their tracebacks are in the report),
    rank 2 did not. Rank 1's traceback is printed first (under Failures); the answer is rank 0's, the first
    failure, and never 'only an echo' (the error is in the paste)."""
    res, root, note = _report(kb, "several_failures")
    assert root["matches"][0]["text"] == "SentinelError: rank 0" and root["first_line"] == 35
    assert root["origin"]["line"] == 35 and "Its error, from the rank's error file: SentinelError: rank 0" in note
    assert [f["id"] for f in res["findings"] if f["role"] == "cascade"] == ["cascade.child_failed"]
    # the error file's message (a dict without py_callstack) names its entry; the report gives rank and host
    res, root, note = _report(kb, "message_without_callstack")
    assert_root(res, "cuda.illegal_access", verdict="root_cause")
    assert (root["origin"]["rank"], root["origin"]["host"]) == ("0", HOST) and "rank 0 (local_rank 3)" in note
    assert note.endswith("from the rank's error file: RuntimeError: CUDA error: an illegal memory access was "
                         "encountered")
    # a message that is no exception is quoted as it is
    assert _report(kb, "new_format_error_file")[2].endswith("from the rank's error file: test error message")
