"""explain on real NCCL hangs and their Flight Recorder dumps from two H100s (issue 18 item 4).

Every file in fixtures/explain/planted-h100x2-2026-11-25/ was made there by bench/plant_h100x2.py
(torch 2.11.0+cu130, NCCL 2.28.9, one rank per GPU, torchrun --nproc_per_node 2; the folder's
README lists the commands): the verbatim stdout+stderr of each run, and the dumps torch's
watchdog wrote when a collective timed out (TORCH_NCCL_DUMP_ON_TIMEOUT=1, or torch's defaults).
"""

import json
import os

import pytest

from conftest import FIXTURES

X2 = os.path.join(FIXTURES, "explain", "planted-h100x2-2026-11-25")


def _json(cli, *args):
    rc, out, err = cli("explain", "--json", *args)
    assert err == "", err
    return rc, json.loads(out)


@pytest.mark.parametrize("folder,prefix", [("nccl_skip_eval", "nccl_trace_rank_"),
                                           ("nccl_skip_eval_defaults", "comm_lib_trace_rank_")])
def test_nccl_dumps_of_a_skipped_all_reduce_name_the_rank_and_the_collective(cli, folder, prefix):
    """Rank 0 all_reduces an eval metric that rank 1 never all_reduces: its watchdog times out
    (15 s) and both ranks dump; with the variables set, and with torch's defaults (no variable:
    torch 2.11 wrote ~/.cache/torch/comm_lib_trace_rank_<rank> by itself)."""
    d = os.path.join(X2, folder)
    rc, doc = _json(cli, d)
    fr = doc["flight_recorder"]
    assert fr["dumps"] == 2 and fr["ranks"] == [0, 1] and fr["unreadable"] == [] and fr["version"] == "2.10"
    top = fr["findings"][0]
    assert (top["kind"], top["ranks"], top["waiting"], top["collective"], top["seq"], top["pg"]) == \
        ("not_arrived", [1], [0], "all_reduce", 6, "0 (default_pg)")
    assert top["where"].endswith("skip_eval.py:42 in <module>")  # rank 0's `dist.all_reduce(metric)`
    root = doc["findings"][0]
    assert doc["root"] == root["id"] == "flight_recorder.not_arrived" and root["origin"]["rank"] == "1"
    assert root["debug"][0].endswith("--prefix %s)" % prefix)
    rc, out, _ = cli("explain", d)
    assert "rank 1 never called collective #6 (all_reduce) of process group 0 (default_pg), which rank 0 " \
           "called and waits in" in out


def test_the_dumps_with_the_watchdog_log_keep_the_recorder_as_root_and_the_timeout_as_echo(cli):
    rc, doc = _json(cli, os.path.join(X2, "nccl_skip_eval"), os.path.join(X2, "nccl_skip_eval.log"))
    ids = [(f["id"], f["role"]) for f in doc["findings"]]
    assert ids[0] == ("flight_recorder.not_arrived", "root") and ("nccl.timeout", "cascade") in ids
    assert not doc.get("recorder_advice")  # the dumps are there


@pytest.mark.parametrize("case,detail", [
    ("nccl_mismatch_op", "rank 0 called all_reduce (sizes [[65536]], ['Float']); "
                         "rank 1 called broadcast (sizes [[65536]], ['Float'])"),
    ("nccl_mismatch_size", "rank 0 called all_reduce (sizes [[65536]], ['Float']); "
                           "rank 1 called all_reduce (sizes [[1048576]], ['Float'])"),
])
def test_nccl_dumps_of_ranks_calling_different_collectives_name_the_mismatch(cli, case, detail):
    rc, doc = _json(cli, os.path.join(X2, case))
    top = doc["flight_recorder"]["findings"][0]
    assert (top["kind"], top["seq"]) == ("mismatch", 3) and detail in top["text"]
    assert doc["root"] == "flight_recorder.mismatch"


@pytest.mark.parametrize("name", ["nccl_skip_eval", "nccl_skip_eval_defaults", "nccl_mismatch_op",
                                  "nccl_mismatch_size"])
def test_the_real_watchdog_log_alone_is_a_timeout_with_the_advice_to_find_the_dumps(cli, name):
    """The log without the dumps: torch 2.11's 'Watchdog caught collective operation timeout:
    WorkNCCL(SeqNum=6, OpType=ALLREDUCE, ...)' and the abort after it."""
    rc, doc = _json(cli, "--file", os.path.join(X2, name + ".log"))
    if name.startswith("nccl_mismatch"):
        # both ranks' watchdog lines name collective #3 with another operation or size: the mismatch is the root
        # (explain/rankev.py), the timeout its symptom
        assert doc["root"] == "torch.collective_mismatch" and doc["findings"][0]["role"] == "root"
        assert ("nccl.timeout", "related") in [(f["id"], f["role"]) for f in doc["findings"]]
    else:
        assert doc["root"] == "nccl.timeout" and doc["findings"][0]["role"] == "root"
    advice = doc["recorder_advice"]
    assert "comm_lib_trace_rank_<rank>" in advice and "TORCH_NCCL_DUMP_ON_TIMEOUT=1" in advice
    assert "gpudoctor explain FOLDER" in advice


def test_the_healthy_two_gpu_nccl_run_has_no_root_cause(cli):
    rc, doc = _json(cli, "--file", os.path.join(X2, "healthy_nccl_2gpu.log"))
    assert doc["verdict"] == "no_error" and doc.get("root") is None and doc["findings"] == []
    with open(os.path.join(X2, "healthy_nccl_2gpu.log")) as f:
        assert "NCCL INFO NCCL version 2.28.9+cuda13.0" in f.read()  # NCCL_DEBUG=INFO was on


@pytest.mark.parametrize("name,detail", [
    ("nccl_mismatch_op", "SeqNum=3; rank 0: ALLREDUCE of 65536 elements; rank 1: BROADCAST of 65536 elements"),
    ("nccl_mismatch_size", "SeqNum=3; rank 0: ALLREDUCE of 65536 elements; rank 1: ALLREDUCE of 1048576 elements"),
    ("nccl_skip_eval", None),  # only rank 0 timed out: the log alone cannot compare
])
def test_watchdog_lines_of_two_ranks_in_different_collectives_hint_at_a_mismatch(cli, name, detail):
    rc, doc = _json(cli, "--file", os.path.join(X2, name + ".log"))
    timeout = next(f for f in doc["findings"] if f["id"] == "nccl.timeout")
    hints = [n for n in timeout["notes"] if n.startswith("The watchdog lines show")]
    assert hints == ([] if detail is None else [hints[0]]) and (detail is None or detail in hints[0])


def test_the_same_collective_timing_out_on_every_rank_is_no_mismatch():
    from gpudoctor.explain import flight

    line = ("[rank%d]:[E1125 20:52:58.1 1 ProcessGroupNCCL.cpp:689] [Rank %d] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=65536, NumelOut=65536, Timeout(ms)=15000) ran "
            "for 15014 milliseconds before timing out.")
    assert flight.watchdog_disagreement(line % (r, r) for r in range(8)) is None
    assert "rank 3: BROADCAST" in flight.watchdog_disagreement(
        [line % (r, r) for r in range(3)] + [(line % (3, 3)).replace("ALLREDUCE", "BROADCAST")])


def test_the_skip_log_alone_names_the_rank_that_never_enqueued_the_collective(cli, tmp_path):
    """Rank 1's 'Received a dump signal ... Last enqueued NCCL work: 5' against rank 0's 'failure
    detected by watchdog at work sequence id: 6' (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp):
    rank 1 is behind; in one log and split into one file per rank."""
    log = os.path.join(X2, "nccl_skip_eval.log")
    rc, doc = _json(cli, "--file", log)
    late = doc["findings"][0]["late_rank"]
    assert doc["root"] == "nccl.timeout" and doc["findings"][0]["role"] == "root"
    assert (late["rank"], late["seq"], late["op"], late["pg"], late["waiting"], late["confidence"]) == \
        (1, 6, "ALLREDUCE", "0 (default_pg)", [0], "log")
    assert doc["findings"][0]["notes"][0].startswith("Likely late rank")
    rc, out, _ = cli("explain", "--file", log)
    assert "likely late: rank 1 never enqueued collective #6 (ALLREDUCE) that rank 0 waits in" in out
    with open(log) as f:
        lines = f.readlines()
    for r in (0, 1):
        (tmp_path / ("rank%d.log" % r)).write_text("".join(ln for ln in lines if ln.startswith("[rank%d]" % r)))
    rc, doc = _json(cli, str(tmp_path))
    assert doc["findings"][0]["late_rank"]["rank"] == 1 and doc["findings"][0]["late_rank"]["seq"] == 6


@pytest.mark.parametrize("name", ["nccl_mismatch_op", "nccl_mismatch_size", "healthy_nccl_2gpu"])
def test_logs_where_every_rank_enqueued_the_collective_name_no_late_rank(cli, name):
    """Both ranks enqueued #3 and #4 and timed out in #3 (a mismatch): no rank is behind."""
    rc, doc = _json(cli, "--file", os.path.join(X2, name + ".log"))
    assert all("late_rank" not in f for f in doc["findings"])
    assert not any("Likely late rank" in n for f in doc["findings"] for n in f["notes"])
    assert doc["verdict"] == ("no_error" if name.startswith("healthy") else "root_cause")


def test_with_the_dumps_the_recorder_stays_root_and_the_late_rank_is_a_note_of_the_timeout(cli):
    rc, doc = _json(cli, os.path.join(X2, "nccl_skip_eval"), os.path.join(X2, "nccl_skip_eval.log"))
    assert doc["root"] == "flight_recorder.not_arrived"
    timeout = next(f for f in doc["findings"] if f["id"] == "nccl.timeout")
    assert timeout["role"] == "cascade" and timeout["late_rank"]["rank"] == 1


def test_older_torch_status_lines_name_the_late_rank_too():
    """A synthetic text in the format of older torch releases ('[Rank N] Exception (either an error or
    timeout) detected by watchdog at work: S, last enqueued NCCL work: E', ProcessGroupNCCL.cpp): rank 3,
    told to dump, had enqueued only up to 40."""
    from gpudoctor import explain

    text = "\n".join(
        ["[rank%d]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank %d] Watchdog caught collective operation timeout: "
         "WorkNCCL(SeqNum=41, OpType=BROADCAST, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for 600010 "
         "milliseconds before timing out.\n[rank%d]:[E ProcessGroupNCCL.cpp:1537] [Rank %d] Exception (either "
         "an error or timeout) detected by watchdog at work: 41, last enqueued NCCL work: 41, last completed "
         "NCCL work: 40." % (r, r, r, r) for r in (0, 1, 2)] +
        ["[rank3]:[E ProcessGroupNCCL.cpp:1400] [PG 0 Rank 3] Received a dump signal due to a collective timeout "
         "from  rank 0 and we will try our best to dump the debug info. Last enqueued NCCL work: 40, last "
         "completed NCCL work: 40."])
    r = explain.explain_text(text)
    late = next(f["late_rank"] for f in r["findings"] if f.get("late_rank"))
    assert (late["rank"], late["seq"], late["op"], late["waiting"]) == (3, 41, "BROADCAST", [0, 1, 2])
