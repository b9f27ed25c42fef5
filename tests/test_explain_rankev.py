"""What each rank was doing, read from a multi-rank log (gpudoctor/explain/rankev.py, issue 18): a
watchdog or store timeout whose ranks' own lines show the bug behind it gets that bug as its first
cause (or its entry as the root), with the ranks, the collective and the sizes filled in; without
that evidence the symptom's answer stays as it was.

Real texts: pytorch/pytorch#152623 (a TORCH_NCCL_DESYNC_DEBUG report), XPixelGroup/BasicSR#737 and
huggingface/trl#1726 (every rank in the same collective: no rank to blame), NVIDIA-NeMo/Speech#14399
(the store key '0' of a first communicator), verbatim excerpts cited at each; and logs made on 2 H100s
by bench/plant6_h100x2.py (set P6, bench/data/explain_heldout_2026-11-26p6.jsonl, already scored:
development data), read from that file by id."""

import json
import os

import pytest
from explainhelp import fixes, root_of

from gpudoctor import explain
from gpudoctor.explain import rankev

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
P6 = os.path.join(REPO, "bench", "data", "explain_heldout_2026-11-26p6.jsonl")


def _p6(case_id):
    with open(P6, encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            if d["id"] == case_id:
                return d["text"]
    raise AssertionError("no case %s in %s" % (case_id, P6))


def _explain(kb, text):
    return explain.explain_text(text, kb=kb)


def _first_cause(f):
    return f["causes"][0]["text"] if f["causes"] else ""


# https://github.com/pytorch/pytorch/issues/152623 (xmfan's comment of 2025-05-16, the first lines of the
# desync report quoted there, verbatim)
PT_152623 = """\
[rank0]:[E515 18:36:47.341808597 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=241, OpType=ALLREDUCE, NumelIn=6, NumelOut=6, Timeout(ms)=600000) ran for 600086 milliseconds before timing out.
[rank0]:[E515 18:36:47.343377708 ProcessGroupNCCL.cpp:1937] Rank 0
         - [0] Timeout at collective: ALLREDUCE, #315
         - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:
             [7] finished collective #182, but didn't join collective #183 (count from 1)
         - Snapshot of ranks' latest states:
           #182 finished ranks:
             [7] finished ALLREDUCE
           #315 started ranks:
             [0, 1, 2] started ALLREDUCE
           #317 started ranks:
             [3, 4, 5, 6] started _ALLGATHER_BASE
[rank0]:[E515 18:36:47.343391940 ProcessGroupNCCL.cpp:2268] [PG ID 0 PG GUID 0(default_pg) Rank 0]  failure detected by watchdog at work sequence id: 241 PG status: last enqueued work: 315, last completed work: 183
"""

# https://github.com/XPixelGroup/BasicSR/issues/737 (the description's first lines, verbatim): every rank
# times out in the same collective with the same size, and every one completed the one before
BASICSR_737 = """\
[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.
[rank1]:[E626 06:24:44.906457629 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank 1] Exception (either an error or timeout) detected by watchdog at work: 808, last enqueued NCCL work: 811, last completed NCCL work: 807.
[rank0]:[E626 06:24:44.159932949 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600030 milliseconds before timing out.
[rank0]:[E626 06:24:44.160366013 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank 0] Exception (either an error or timeout) detected by watchdog at work: 808, last enqueued NCCL work: 811, last completed NCCL work: 807.
"""

# https://github.com/huggingface/trl/issues/1726 (artkpv's comment of 2024-06-17, verbatim): FSDP's all-gather,
# the same size on every rank (a generate() that FSDP does not support, not a wrap difference)
TRL_1726 = """\
[rank1]:[E617 08:47:15.010046090 ProcessGroupNCCL.cpp:572] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7930, OpType=_ALLGATHER_BASE, NumelIn=214016000, NumelOut=856064000, Timeout(ms)=600000) ran for 600029 milliseconds before timing out.
[rank1]:[E617 08:47:15.011359495 ProcessGroupNCCL.cpp:1587] [PG 0 (default_pg) Rank 1] Exception (either an error or timeout) detected by watchdog at work: 7930, last enqueued NCCL work: 7931, last completed NCCL work: 7929.
[rank2]:[E617 08:47:15.047646334 ProcessGroupNCCL.cpp:572] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7930, OpType=_ALLGATHER_BASE, NumelIn=214016000, NumelOut=856064000, Timeout(ms)=600000) ran for 600073 milliseconds before timing out.
[rank2]:[E617 08:47:15.048060595 ProcessGroupNCCL.cpp:1587] [PG 0 (default_pg) Rank 2] Exception (either an error or timeout) detected by watchdog at work: 7930, last enqueued NCCL work: 7931, last completed NCCL work: 7929.
"""

# https://github.com/NVIDIA-NeMo/Speech/issues/14399 (the description, verbatim): key '0', the group's first
# communicator: rank 0 never published it (it was elsewhere), not a second device
NEMO_14399 = """\
B-nemo-ft3/0 [default1]:[rank1]:   File "/usr/local/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py", line 2780, in broadcast
B-nemo-ft3/0 [default1]:[rank1]:     work = group.broadcast([tensor], opts)
B-nemo-ft3/0 [default1]:[rank1]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
B-nemo-ft3/0 [default1]:[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: wait timeout after 600000ms, keys: /default_pg/0//cuda//0
B-nemo-ft3/0 [default1]:[rank1]: Exception raised from doWait at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/TCPStore.cpp:578 (most recent call first):
"""


def test_desync_report_names_the_rank_behind(kb):
    doc = _explain(kb, PT_152623)
    root = root_of(doc)
    assert root["id"] == "nccl.timeout"
    first = _first_cause(root)
    assert first.startswith("Rank 7 finished collective #182 but never joined #183")
    assert "rank 0 timed out in ALLREDUCE #315" in first
    assert root["confidence"] == "cause" and root["notes"][0].startswith("How sure: medium.")
    # the snapshot's different collectives are at different numbers (#315, #317): no order claimed
    assert "different order" not in first


@pytest.mark.parametrize("text", [BASICSR_737, TRL_1726], ids=["basicsr-737", "trl-1726"])
def test_every_rank_in_the_same_collective_blames_no_rank(kb, text):
    doc = _explain(kb, text)
    root = root_of(doc)
    assert root["id"] == "nccl.timeout"
    assert rankev.answer(_scan(kb, text)) is None
    assert root.get("confidence") == "family"


def test_first_communicator_key_is_no_device_answer(kb):
    assert rankev.answer(_scan(kb, NEMO_14399)) is None
    doc = _explain(kb, NEMO_14399)
    assert "another GPU" not in _first_cause(root_of(doc))


def _scan(kb, text):
    import io

    from gpudoctor.explain.scan import Scan, scan_stream

    scan = Scan()
    scan_stream(io.BytesIO(text.encode()), kb, scan, "<t>")
    return scan


# ------------------------------------------------------------------ logs made on 2 H100s (P6)


def test_ddp_construction_broadcast_is_the_model_differing(kb):
    doc = _explain(kb, _p6("p6-ddp_buffer_shape_differs"))
    root = root_of(doc)
    assert root["id"] == "torch.ddp_model_mismatch"
    first = _first_cause(root)
    assert "rank 1's BROADCAST #4 of 4096 elements never completed, while rank 0 completed it" in first
    assert "buffer" in fixes(root).lower() and "identically" in fixes(root)
    assert [f["id"] for f in doc["findings"]][1:2] == ["nccl.timeout"]


def test_fsdp_all_gathers_of_different_sizes_are_the_wrap_policy(kb):
    doc = _explain(kb, _p6("p6-fsdp_wrap_policy_differs"))
    root = root_of(doc)
    assert root["id"] == "torch.collective_mismatch"
    first = _first_cause(root)
    assert first.startswith("FSDP wraps the model differently on the ranks")
    assert "2565" in first and "4201989" in first
    assert "auto_wrap_policy" in fixes(root)


def test_second_communicator_key_is_a_tensor_on_another_gpu(kb):
    doc = _explain(kb, _p6("p6-rank1_tensor_on_cuda0"))
    root = root_of(doc)
    first = _first_cause(root)
    assert first.startswith("Rank 1 ran a collective on another GPU than its earlier ones")
    assert "store key '1'" in first and "rank 0 waits in ALLREDUCE #2" in first
    assert "set_device(local_rank)" in fixes(root) and "device_id" in fixes(root)


def test_desync_snapshot_with_two_operations_is_the_order(kb):
    doc = _explain(kb, _p6("p6-collective_order_swapped_desync"))
    root = root_of(doc)
    assert root["id"] == "torch.collective_mismatch"
    first = _first_cause(root)
    assert "collective #5 started as different operations (rank 0: ALLREDUCE; rank 1: _ALLGATHER_BASE" in first


def test_a_rank_behind_by_status_lines_keeps_the_timeout_root(kb):
    # built from the status lines' formats (ProcessGroupNCCL.cpp, quoted in rankev's docstring): rank 1 never
    # enqueued collective #6 that rank 0 waits in
    text = ("[rank0]:[E1126 09:01:45.829430831 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=6, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=20000) ran "
            "for 20061 milliseconds before timing out.\n"
            "[rank0]:[E1126 09:01:45.829625176 ProcessGroupNCCL.cpp:2303] [PG ID 0 PG GUID 0(default_pg) Rank 0]  "
            "failure detected by watchdog at work sequence id: 6 PG status: last enqueued work: 6, last completed "
            "work: 5\n"
            "[rank1]:[E1126 09:01:45.012940118 ProcessGroupNCCL.cpp:1914] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
            "Received a dump signal due to a collective timeout from rank 0 and we will try our best to dump the "
            "debug info. Last enqueued NCCL work: 5, last completed NCCL work: 5.\n")
    root = root_of(_explain(kb, text))
    assert root["id"] == "nccl.timeout"
    assert _first_cause(root).startswith("Rank 1 never enqueued collective #6 (ALLREDUCE) that rank 0 waits in")


def test_healthy_and_symptom_free_texts_get_nothing(kb):
    assert rankev.answer(_scan(kb, "rank 0 step 1 loss 0.5\nrank 1 step 1 loss 0.5\n")) is None
    doc = _explain(kb, "[rank1]: #0 _sync_module_states from /x/torch/distributed/utils.py:315\n")
    assert all(not _first_cause(f).startswith("The model differs") for f in doc["findings"])


def test_patterns_are_linear_on_long_lines(kb):
    # every FACTS regex over adversarial lines of 100,000 characters: no backtracking blow-up
    import re

    bad = ["[" + "1, " * 33000 + "x", "#1 " + "a" * 100000, "Watchdog caught collective operation timeout: "
           "WorkNCCL(SeqNum=" + "9" * 100000, "File \"" + "/" * 100000]
    for rx in rankev.FACTS.values():  # their CPU time (bound 2 s): bench/cpu_bounds.py
        r = re.compile(rx)
        for line in bad:
            assert r.search(line) is None, (rx, line[:40])
    for line in bad:
        assert rankev._frame(line) is None, line[:40]


def test_the_same_number_in_two_process_groups_is_no_mismatch(kb):
    # built from the watchdog and status lines' formats (ProcessGroupNCCL.cpp): rank 0 times out in group 0's
    # #12, rank 1 in group 3's #12 (a tensor-parallel group counts its collectives apart)
    line = ("[rank{r}]:[E1126 09:01:45.829430831 ProcessGroupNCCL.cpp:689] [Rank {r}] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=12, OpType={op}, NumelIn={n}, NumelOut={n}, Timeout(ms)=600000) ran "
            "for 600061 milliseconds before timing out.\n"
            "[rank{r}]:[E1126 09:01:45.829625176 ProcessGroupNCCL.cpp:2303] [PG ID {g} PG GUID {g} Rank {r}]  failure "
            "detected by watchdog at work sequence id: 12 PG status: last enqueued work: 12, last completed work: 11\n")
    text = line.format(r=0, op="ALLREDUCE", n=8, g=0) + line.format(r=1, op="_ALLGATHER_BASE", n=4096, g=3)
    assert rankev.answer(_scan(kb, text)) is None
    assert root_of(_explain(kb, text))["id"] == "nccl.timeout"
    # the same two lines in one group are the order mismatch
    same = line.format(r=0, op="ALLREDUCE", n=8, g=0) + line.format(r=1, op="_ALLGATHER_BASE", n=4096, g=0)
    assert rankev.answer(_scan(kb, same))["entry"] == "torch.collective_mismatch"


def _wd(r, seq, op, n, g=0, done=None, frames=()):
    """A rank's watchdog line, its status line and the stack of the failed collective, in torch 2.11's formats
    (ProcessGroupNCCL.cpp: WorkNCCL::checkTimeout, the watchdog's status line, WorkNCCL::printTraceback)."""
    done = seq - 1 if done is None else done
    out = ("[rank{r}]:[E1126 09:01:41.257393804 ProcessGroupNCCL.cpp:689] [Rank {r}] Watchdog caught collective "
           "operation timeout: WorkNCCL(SeqNum={s}, OpType={op}, NumelIn={n}, NumelOut={n}, Timeout(ms)=20000) ran "
           "for 20011 milliseconds before timing out.\n"
           "[rank{r}]:[E1126 09:01:41.257559253 ProcessGroupNCCL.cpp:2303] [PG ID {g} PG GUID {g}(default_pg) Rank "
           "{r}]  failure detected by watchdog at work sequence id: {s} PG status: last enqueued work: {s}, last "
           "completed work: {d}\n").format(r=r, s=seq, op=op, n=n, g=g, d=done)
    if frames:
        out += "[rank%d]:[E1126 09:01:41.258100301 ProcessGroupNCCL.cpp:733] Stack trace of the failed collective: \n" % r
        out += "".join("#%d %s from /opt/torch/.venv/lib/python3.12/site-packages/torch/%s:100\n" % (i, fn, path)
                       for i, (fn, path) in enumerate(frames)) + "\n"
    return out


_FSDP = [("all_gather_into_tensor", "distributed/distributed_c10d.py"),
         ("_all_gather_flat_param", "distributed/fsdp/_flat_param.py"),
         ("_lazy_init", "distributed/fsdp/_runtime_utils.py")]


def test_fsdp_all_gathers_at_different_numbers_are_the_wrap_policy(kb):
    text = _wd(0, 3, "_ALLGATHER_BASE", 2565, frames=_FSDP) + _wd(1, 1, "_ALLGATHER_BASE", 4201989, frames=_FSDP)
    got = rankev.answer(_scan(kb, text))
    assert got["entry"] == "torch.collective_mismatch" and got["cause"].startswith("FSDP wraps the model")
    assert "rank 0 waits in _ALLGATHER_BASE #3 of 2565 elements and rank 1 in _ALLGATHER_BASE #1" in got["cause"]
    # the same numbers and sizes on both ranks inside FSDP: nothing differs between them
    same = _wd(0, 3, "_ALLGATHER_BASE", 2565, frames=_FSDP) + _wd(1, 3, "_ALLGATHER_BASE", 2565, frames=_FSDP)
    assert rankev.answer(_scan(kb, same)) is None


def test_a_buffer_broadcast_in_ddp_forward_that_rank_0_completed(kb):
    text = (_wd(1, 9, "BROADCAST", 4096, frames=[("broadcast", "distributed/distributed_c10d.py"),
                                                 ("_sync_buffers", "nn/parallel/distributed.py")])
            + _wd(0, 10, "ALLREDUCE", 8, done=9))
    got = rankev.answer(_scan(kb, text))
    assert got["entry"] == "torch.ddp_model_mismatch" and "DDP's forward" in got["cause"]
    assert "rank 1's BROADCAST #9 of 4096 elements never completed, while rank 0 completed it" in got["cause"]
    assert any("broadcast_buffers=False" in x for x in got["fix"])


def test_deepspeed_log_dist_prefix_names_the_rank():
    from gpudoctor.explain.scan import Scan

    line = "[2024-05-02 10:00:01,123] [INFO] [logging.py:96:log_dist] [Rank 3] step=10, skipped=0, lr=[1e-05]"
    assert rankev._line_rank(Scan(), line) == 3
    assert rankev._line_rank(Scan(), "[2024-05-02 10:00:01,123] [INFO] [logging.py:96:log_dist] [Rank -1] x") is None
