"""rootguard.peer_finished's conditions one at a time (mutation16, docs/mutation.md "Round 11"), on P23's planted text
(bench/data/explain_heldout_2026-11-27p23.jsonl, p23-torchmetrics_compute_rank0_only: torchrun, 2 CPU workers,
metric.compute() under `if rank == 0`), each variant what torchrun or the launcher would print otherwise; and
_collective_frame on frames as pytb reads them."""

import json
import os

import pytest

from gpudoctor import explain
from gpudoctor.explain import rootguard

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _p23():
    with open(os.path.join(ROOT, "bench", "data", "explain_heldout_2026-11-27p23.jsonl"), encoding="utf-8") as f:
        for line in f:
            case = json.loads(line)
            if case["id"] == "p23-torchmetrics_compute_rank0_only":
                return case["text"]
    raise KeyError("p23")


TEXT = _p23()
BANNER_ROW = "W1127 01:54:12.617000 31282 torch/distributed/run.py:874] *****************************************\n"
OTHER_FAILURE = ("[1]:\n  time      : 2026-11-27_01:54:21\n  host      : localhost\n  rank      : 1 (local_rank: 1)\n"
                 "  exitcode  : 1 (pid: 31498)\n  error_file: <N/A>\n  traceback : To enable traceback see: "
                 "https://pytorch.org/docs/stable/elastic/errors.html")


def _root(text, kb):
    r = explain.explain_text(text, kb)
    return r["findings"][0]["id"] if r["findings"] else None


def _without_banner(text):
    lines = text.splitlines(keepends=True)
    out = [ln for ln in lines if "torch/distributed/run.py:874]" not in ln]
    assert len(out) == len(lines) - 4
    return "".join(out)


def test_the_planted_text_is_the_collective_mismatch(kb):
    r = explain.explain_text(TEXT, kb)
    f = r["findings"][0]
    assert f["id"] == "torch.collective_mismatch" and f["confidence"] == "cause"
    assert f["causes"][0]["text"].startswith("Rank 0 waited in torch.distributed.all_gather (line ")
    assert "lists rank 0 as the only failure" in f["causes"][0]["text"]
    assert f["notes"][0].startswith("How sure: medium. torchrun's own report says the other workers ended by "
                                    "themselves while rank 0 waited")


@pytest.mark.parametrize("variant", [
    # the worker was killed by a signal (torchrun's exitcode -9): not a worker that ended by itself
    lambda t: t.replace("exitcode  : 1 (pid: 31497)", "exitcode  : -9 (pid: 31497)"),
    # the report lists another failed worker
    lambda t: t.replace("  <NO_OTHER_FAILURES>", OTHER_FAILURE),
    # no OMP_NUM_THREADS banner: torchrun started one worker, there was no peer of this agent's
    _without_banner,
    # neither the command line nor the banner (no launch context read at all)
    lambda t: _without_banner(t.split("\n", 1)[1]),
    # the peer closed the connection outside a collective (a store read in torch's own code): no such frame
    lambda t: t.replace("distributed_c10d.py\", line 4287, in all_gather", "distributed_c10d.py\", line 4287, in "
                        "_store_based_barrier"),
    # another error in the collective (not the peer closing)
    lambda t: t.replace("Connection closed by peer [127.0.0.1]:56980", "Timed out waiting 1800000ms"),
    # the traceback is another rank's than the one the report names
    lambda t: t.replace("[rank0]:", "[rank1]:"),
])
def test_not_when_the_report_or_the_traceback_says_otherwise(kb, variant):
    text = variant(TEXT)
    assert text != TEXT
    assert _root(text, kb) != "torch.collective_mismatch"


def test_a_reset_peer_and_the_other_message_count_too(kb):
    text = TEXT.replace("Connection closed by peer", "Connection reset by peer")
    assert _root(text, kb) == "torch.collective_mismatch"
    # no rank prefix on the traceback: the report's rank is the one named
    text = TEXT.replace("[rank0]: ", "").replace("[rank0]:", "")
    assert _root(text, kb) == "torch.collective_mismatch"


def test_no_report_block_at_all(kb):
    # the launcher's echo without torchrun's Root Cause block (the paste ends at ChildFailedError)
    text = TEXT.split("===")[0]
    assert "Root Cause" not in text and _root(text, kb) != "torch.collective_mismatch"


def test_the_outermost_collective_frame():
    c10d = "/v/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"
    frames = [("/job/train.py", 3, "main"), (c10d, 10, "wrapper"), (c10d, 20, "all_reduce"), (c10d, 30, "barrier")]
    assert rootguard._collective_frame({"frames": frames}) == (c10d, 20, "all_reduce")
    win = "C:\\venv\\Lib\\site-packages\\torch\\distributed\\distributed_c10d.py"
    assert rootguard._collective_frame({"frames": [(win, 5, "broadcast")]}) == (win, 5, "broadcast")
    # a function of that name elsewhere, or another function of the module: none
    assert rootguard._collective_frame({"frames": [("/job/train.py", 3, "all_reduce"), (c10d, 9, "wrapper")]}) is None
    assert rootguard._collective_frame({"frames": []}) is None and rootguard._collective_frame({}) is None


def test_the_answer_said_whole(kb):
    r = explain.explain_text(TEXT, kb)
    f, echo = r["findings"][0], r["findings"][1]
    # the same fields as any finding, and its first cause as any cause
    # (a finding that stands on a generated message site carries its `site` too: spec28's JSON key)
    assert set(f) - {"site"} == set(echo) - {"site"} and set(f["causes"][0]) == set(echo["causes"][0] if echo["causes"] else f["causes"][1])
    assert f["role"] == "root" and f["match_count"] == 1 and f["confidence"] == "cause"
    c = f["causes"][0]
    assert c["text"] == (
        "Rank 0 waited in torch.distributed.all_gather (line 37) while the other workers had already ended without "
        "calling it: torchrun's report lists rank 0 as the only failure, no worker was still running to be stopped, "
        "and the peer closed the connection. The collective runs on some ranks only: a call that synchronises across "
        "processes (a metric's compute() or sync, an all_gather for logging, a barrier) made under `if rank == 0` / "
        "is_main_process, or after a loop the ranks leave at different steps.")
    assert c["confirm"] == ["the line of your code in the traceback above the collective: is it inside a branch that "
                            "only some ranks take?"] and c["checks"] == []
    assert c["fix"] == ["call it on every rank and only print / save on rank 0 (compute on all ranks, then `if rank == "
                        "0: print(...)`); torchmetrics: call metric.compute() on every rank, or build the metric with "
                        "sync_on_compute=False for a rank-local value; give every rank the same number of steps "
                        "(DistributedSampler, drop_last=True)"]
    assert c["evidence"][0]["line"] == 37 and "Connection closed by peer" in c["evidence"][0]["text"]
