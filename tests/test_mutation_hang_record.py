"""gpudoctor/explain/hang.py's record (the lines of FACTS and the user's complaint kept for the
hang answer), against the survivors of a mutation run (docs/mutation.md, "This round's new code"):
test_explain_hang.py never fed it `nvidia-smi topo -m` rows, two processes of one host, an
init line without NCCL's prefix, or more lines than it keeps.

The texts follow the tools' own formats: nccl-tests src/common.cu ('#  Rank %2d Group %2d Pid %6d on
%10s device %2d ...', '# nThread ...', '# Avg bus bandwidth : ...'), NCCL src/init.cc ('comm %p rank
%d nranks %d cudaDev %d ... - Init COMPLETE') and nvidia-smi topo -m's matrix."""

import types

from gpudoctor import explain
from gpudoctor.explain import hang
from gpudoctor.explain.scan import Hit

HANG = "training hangs after Init COMPLETE on one node with 2 RTX 4090, all_reduce never returns\n"
TOPO = """$ nvidia-smi topo -m
        GPU0    GPU1    CPU Affinity
GPU0     X      PHB     0-31
GPU1    PHB      X      0-31
"""


def _triage(kb, text):
    res = explain.explain_text(text, kb, assume_error=True)
    return [(t["cause"], t["score"], [(e["line"], e["text"]) for e in t["evidence"]])
            for f in res["findings"] for t in (f.get("triage") or [])]


def test_topo_rows_in_the_text_are_the_p2p_evidence(kb):
    got = _triage(kb, HANG + TOPO)
    assert got[0] == ("p2p", 85, [(1, HANG.strip()), (4, "GPU0     X      PHB     0-31")]), got
    # NVLink between the GPUs: P2P over PCIe is not the suspect
    got = _triage(kb, HANG + TOPO.replace("PHB", "NV12"))
    assert got[0] == ("p2p", 55, [(1, HANG.strip())]), got


def test_two_processes_of_one_host_that_each_list_rank_0_are_separate_jobs(kb):
    text = """# nThread 1 nGpus 1 minBytes 8192 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20
#
# Using devices
#  Rank  0 Group  0 Pid  41001 on      node1 device  0 [0x3b] NVIDIA H100 80GB HBM3
# nThread 1 nGpus 1 minBytes 8192 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20
#
# Using devices
#  Rank  0 Group  0 Pid  41002 on      node1 device  1 [0x5e] NVIDIA H100 80GB HBM3
"""
    res = explain.explain_text(text, kb)
    assert res["findings"] and res["findings"][0]["id"] == "nccltests.no_mpi", [f["id"] for f in res["findings"]]
    # the same process printed twice (one Pid): one list, no second job from the ranks
    st = _record(["#  Rank  0 Group  0 Pid  41001 on      node1 device  0 [0x3b] H100",
                  "#  Rank  0 Group  0 Pid  41002 on      node1 device  1 [0x5e] H100"], "nt_rank")
    assert [r[1:4] for r in st["ranks"]] == [(0, "41001", "node1"), (0, "41002", "node1")]


def _pattern(cls):
    return next(p for p in hang.patterns() if p.site["class"] == cls)


def _record(lines, cls, start=1):
    scan = types.SimpleNamespace(hang=None)
    p = _pattern(cls)
    for i, text in enumerate(lines):
        hang.record(scan, Hit(start + i, text, p, {}, None))
    return scan.hang


def test_record_keeps_a_bounded_number_of_lines_each_cut():
    n = hang.MAX_KEPT
    head = "# nThread 1 nGpus 1 minBytes 8 " + "x" * 300
    st = _record([head] * (n + 3), "nt_header")
    assert len(st["headers"]) == n and st["headers"][0] == (1, head[:200]) and st["headers"][-1][0] == n
    avg = "# Avg bus bandwidth    : 3.9 " + "x" * 300
    st = _record([avg] * (n + 1), "nt_avg")
    assert len(st["avg"]) == n and st["avg"][0] == (1, avg[:200])
    row = "GPU0     X      PHB     0-31" + " " * 300 + "x"
    st = _record([row] * (n + 1), "topo_row")
    assert len(st["topo"]) == n and st["topo"][0] == (1, row[:200])
    rank = "#  Rank %2d Group  0 Pid  41001 on      node1 device  0 [0x3b] NVIDIA H100 " + "x" * 300
    st = _record([rank % (i % 100) for i in range(n * 8 + 2)], "nt_rank")
    assert len(st["ranks"]) == n * 8 and st["ranks"][1] == (2, 1, "41001", "node1", (rank % 1)[:200])
    # nccl-tests prints 'Rank'; the scan matches without case, and so does record
    st = _record(["#  RANK  3 PID 7 ON node2 DEVICE 0"], "nt_rank")
    assert [r[1:4] for r in st["ranks"]] == [(3, "7", "node2")]


def test_record_one_communicator_of_one_rank_per_process():
    line = "node%d:%d:%d [0] NCCL INFO comm 0x55d0 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 1000 - Init COMPLETE "
    n = hang.MAX_KEPT
    st = _record([line % (i, 100 + i, 100 + i) + "x" * 300 for i in range(n + 1)], "nranks1")
    assert len(st["nranks1"]) == n
    assert st["nranks1"]["node0:100"] == (1, (line % (0, 100, 100) + "x" * 300)[:200])
    st = _record([line % (1, 5, 5), line % (1, 5, 6)], "nranks1")  # two threads of one process: its first line
    assert list(st["nranks1"].items()) == [("node1:5", (1, line % (1, 5, 5)))]
    # without NCCL's prefix the line names no process: not kept, no crash
    st = _record(["comm 0x55d0 rank 0 nranks 1 cudaDev 0 busId 1000 - Init COMPLETE"], "nranks1")
    assert st["nranks1"] == {}


def test_record_keeps_the_first_complaint_cut_at_300():
    words = "the job hangs forever after the first all_reduce, no output after that " + "x" * 400
    st = _record([words, "it is stuck again"], "complaint")
    assert st["complaint"] == (1, words[:300])
    # a figure the user calls fine is no complaint; the next line that complains is kept
    st = _record(["busbw is 370 GB/s, looks fine", words], "complaint")
    assert st["complaint"] == (2, words[:300])


def test_called_fine_judges_the_clause_that_says_so():
    # (1a69cbc) 'fine' cancels the complaint unless its clause is about another scope than the complaint
    fine = hang._called_fine
    assert fine("busbw is 370 GB/s, looks fine") is True
    assert fine("busbw is only 20 GB/s across the two nodes, intra-node is fine") is False
    assert fine("intra-node is fine, busbw is slow") is False  # the clause before the first mark
    assert fine("intra-node is slow, busbw 370 GB/s looks fine") is True  # only the fine clause counts
    assert fine("busbw 370 GB/s looks fine, intra-node is slow") is True  # up to the next mark only
    assert fine("p2p is fine") is False and fine("单机正常") is False  # the scope word at the very start
    assert fine("no output after that") is False
    # the first 1000 characters and the first 8 'fine's only (bounded on any paste)
    assert fine(" " * (1001 - len("is fine")) + "is fine") is False
    assert fine(" " * (1000 - len("is fine")) + "is fine") is True
    assert fine("intra-node is fine; " * 8 + "busbw is fine") is False
    assert fine("intra-node is fine; " * 7 + "busbw is fine") is True
