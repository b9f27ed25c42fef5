"""A job that hangs or is slow and prints no error (issue 18): gpudoctor/explain/hang.py ranks the
causes of NCCL's troubleshooting guide and PyTorch's debugging docs from what the text shows, and
names nccl-tests runs that are separate one-process jobs (built without MPI=1).

Real texts: excerpts of public threads, cited at each (none from bench/data/); the real INFO
captures of fixtures/explain/nccl-info-h100-2026-11-25/ (cut where a hung job's paste would end,
said at each); the users' own Chinese phrasing from ../shared/seeds (001: '训练速度比较慢，远慢于单机多卡').
"""

import os

from gpudoctor import explain
from gpudoctor.explain import hang

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPS = os.path.join(REPO, "fixtures", "explain", "nccl-info-h100-2026-11-25")


def _run(kb, text, **kw):
    return explain.explain_text(text, kb, **kw)


def _cap(name, upto=None):
    with open(os.path.join(CAPS, name)) as f:
        lines = f.read().splitlines(True)
    return "".join(lines[:upto])


def _root(res):
    f = res["findings"][0]
    return f["id"], f["confidence"]


def test_the_causes_order_in_hang_toml_is_the_modules(kb):
    e = kb.by_id["nccl.hang"]
    assert len(e["causes"]) == len(hang.CAUSES)
    words = {"rank_behind": "never called the collective", "p2p": "Peer-to-peer", "net_path": "InfiniBand / RoCE",
             "gdr": "GPU Direct RDMA", "interface": "do not reach each other", "container": "container",
             "not_joined": "store-based barrier", "device": "set_device"}
    for key, c in zip(hang.CAUSES, e["causes"]):
        assert words[key] in c["text"], key
        assert c["confirm"], key  # the one command that tells it apart


# NVIDIA/nccl#606 (https://github.com/NVIDIA/nccl/issues/606): all_reduce_perf on two RTX A6000 of one
# host hangs; the output while it hangs (its title as the first line), the last line a P2P channel
NCCL_606 = """NCCL test hangs between GPU2 and GPU3 all the time
The STDOUTs of `NCCL_DEBUG=info CUDA_VISIBLE_DEVICES=2,3 ./all_reduce_perf -b 8 -e 16M -f 2 -g 2` while hanging is as followings:
# nThread 1 nGpus 2 minBytes 8 maxBytes 16777216 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#
# Using devices
#   Rank  0 Pid    225 on nccl-tests device  0 [0xc1] NVIDIA RTX A6000
#   Rank  1 Pid    225 on nccl-tests device  1 [0xc2] NVIDIA RTX A6000
nccl-tests:225:225 [0] NCCL INFO Bootstrap : Using eno1np0:172.31.45.2<0>
nccl-tests:225:225 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
nccl-tests:225:225 [0] NCCL INFO NET/IB : No device found.
nccl-tests:225:225 [0] NCCL INFO NET/Socket : Using [0]eno1np0:172.31.45.2<0>
nccl-tests:225:225 [0] NCCL INFO Using network Socket
NCCL version 2.8.2+cuda11.1
nccl-tests:225:240 [1] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] -1/-1/-1->1->0
nccl-tests:225:239 [0] NCCL INFO Channel 00/02 :    0   1
nccl-tests:225:239 [0] NCCL INFO Channel 01/02 :    0   1
nccl-tests:225:240 [1] NCCL INFO Setting affinity for GPU 3 to ffffffff,ffffffff,ffffffff,ffffffff
nccl-tests:225:239 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1
nccl-tests:225:239 [0] NCCL INFO Setting affinity for GPU 2 to ffffffff,ffffffff,ffffffff,ffffffff
nccl-tests:225:240 [1] NCCL INFO Channel 00 : 1[c2000] -> 0[c1000] via P2P/direct pointer
"""


def test_public_one_host_hang_over_p2p_is_p2p_first_with_the_test_that_tells_it_apart(kb):
    res = _run(kb, NCCL_606)
    assert _root(res) == ("gpu.p2p", "family")
    f = res["findings"][0]
    assert f["notes"][0].startswith("How sure: medium.") and "last NCCL line is line 20" in f["notes"][0]
    assert "via P2P/direct pointer" in f["notes"][1] and "NCCL_P2P_DISABLE=1" in f["notes"][1]
    assert [t["cause"] for t in f["triage"]][:2] == ["p2p", "rank_behind"]
    assert "ACSCtl" in f["triage"][0]["tell_apart"]
    # one host: the network causes are not listed; without the complaint it is a healthy setup
    assert "net_path" not in [t["cause"] for t in f["triage"]]
    assert _run(kb, NCCL_606.split("\n", 2)[2])["verdict"] == "no_error"


# NVIDIA/nccl-tests#109 (https://github.com/NVIDIA/nccl-tests/issues/109): `mpirun -np 2` over two hosts,
# each process prints its own header: "does the test run standalone on each host?"
NT_109 = """mpirun -np 2 -x ./all_reduce_perf  -b 256k -e 512M -f 2 -g 6 -n 20
# nThread 1 nGpus 6 minBytes 262144 maxBytes 536870912 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 
#
# Using devices
# nThread 1 nGpus 6 minBytes 262144 maxBytes 536870912 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 
#
# Using devices
#   Rank  0 Pid   1115 on host0 device  0 [0x3b] Tesla V100-PCIE-32GB
#   Rank  1 Pid   1115 on host0 device  1 [0x60] Tesla V100-PCIE-32GB
#   Rank  5 Pid   1115 on host0 device  5 [0xdb] Tesla V100-PCIE-32GB
host0:1115:1115 [0] NCCL INFO Bootstrap : Using eth0:<IP><0>
"""
# NVIDIA/nccl-tests#27 (https://github.com/NVIDIA/nccl-tests/issues/27): two hosts, two summaries at the end
# (settled: make clean, then build with MPI=1)
NT_27 = """`mpirun -H 10.251.154.148,10.251.154.143 -np 2 ./all_reduce_perf -b 8 -e 128M -f 128 -g 2`
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 3.94145 
#
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 3.94156 
"""
# NVIDIA/dgx-spark-playbooks#103 (https://github.com/NVIDIA/dgx-spark-playbooks/pull/103): a real 2-node MPI
# run, one header listing Rank 0 and Rank 1 (healthy)
SPARK_103 = """# nThread 1 nGpus 1 minBytes 8192 maxBytes 8589934592 step: 2(factor) warmup iters: 10 iters: 100 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid 1666603 on spark-d708 device  0 [000f:01:00] NVIDIA GB10
#  Rank  1 Group  0 Pid 1669515 on spark-dbf4 device  0 [000f:01:00] NVIDIA GB10
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
        8192          2048     float     sum      -1    35.15    0.23    0.23       0    30.33    0.27    0.27       0
       16384          4096     float     sum      -1    31.67    0.52    0.52       0    30.75    0.53    0.53       0
"""


def test_public_nccl_tests_without_mpi_are_separate_jobs_and_a_real_mpi_run_is_healthy(kb):
    for text, what in ((NT_109, "two '# nThread' headers"), (NT_27, "'Avg bus bandwidth' summaries")):
        res = _run(kb, text)
        assert _root(res) == ("nccltests.no_mpi", "cause"), text[:40]
        f = res["findings"][0]
        assert what in f["notes"][0]
        assert "MPI=1" in " ".join(f["causes"][0]["fix"]) and "libmpi" in f["causes"][0]["confirm"][0]
    assert (_run(kb, SPARK_103)["verdict"], _run(kb, SPARK_103)["findings"]) == ("no_error", [])
    # the same run told with Rank 0 on both hosts (each process its own list) is two jobs
    two = SPARK_103.replace("#  Rank  1 Group  0 Pid 1669515", "#  Rank  0 Group  0 Pid 1669515")
    assert _root(_run(kb, two)) == ("nccltests.no_mpi", "cause")
    # runs one after another on one host (each ends with its summary before the next header): not separate jobs
    seq = SPARK_103.replace("#  Rank  1 Group  0 Pid 1669515 on spark-dbf4 device  0 [000f:01:00] NVIDIA GB10\n", "")
    seq = seq + "# Avg bus bandwidth    : 0.7\n" + seq.replace("Pid 1666603", "Pid 1666999")
    assert _run(kb, seq)["verdict"] == "no_error"


def test_words_only_hangs_get_the_ranked_causes_hedged(kb):
    res = _run(kb, "training hangs at the first all_reduce", assume_error=True)
    assert _root(res) == ("nccl.hang", "structural")
    f = res["findings"][0]
    assert f["notes"][0].startswith("How sure: low.")
    assert [t["cause"] for t in f["triage"]][:2] == ["p2p", "rank_behind"]
    assert f["causes"][0]["text"].startswith("Peer-to-peer")  # nccl.hang's causes in the ranking's order
    res = _run(kb, "nccl-tests hangs with 2 nodes", assume_error=True)
    assert [t["cause"] for t in res["findings"][0]["triage"]][:2] == ["net_path", "interface"]
    res = _run(kb, "the bandwidth is 1 GB/s over IB between two nodes", assume_error=True)
    f = res["findings"][0]
    assert "is slow" in f["notes"][0] and [t["cause"] for t in f["triage"]][:2] == ["net_path", "gdr"]
    # a hang that starts after some steps: a rank behind first (PyTorch's debugging docs)
    res = _run(kb, "DDP training on 2 nodes hangs after 300 steps, no error", assume_error=True)
    f = res["findings"][0]
    assert f["triage"][0]["cause"] == "rank_behind" and "TORCH_NCCL_DUMP_ON_TIMEOUT=1" in f["triage"][0]["tell_apart"]
    # the user quotes NCCL's last line: the stage is read from it, and the complaint is the user's
    res = _run(kb, "two nodes: stuck after NCCL INFO Connected all rings", assume_error=True)
    assert "after NCCL's init completed" in res["findings"][0]["notes"][0]
    # "hangs" with nothing that says a distributed job stays as it was; a library's warning is not the user's complaint
    assert _run(kb, "my code hangs", assume_error=True)["root"] is None
    warned = "UserWarning: all_reduce on 2 nodes without NCCL_IB_HCA may be very slow\n" + _cap("default-1rank.log")
    assert _run(kb, warned)["verdict"] == "no_error"
    # a figure the user calls fine is no complaint (the same figure without it is)
    assert _run(kb, "all_reduce_perf on 2 nodes: busbw is 370 GB/s, looks fine", assume_error=True)["root"] is None
    assert _run(kb, "两台机器 all_reduce 带宽正常，busbw is 370 GB/s", assume_error=True)["root"] is None
    assert _root(_run(kb, "all_reduce_perf on 2 nodes: busbw is 37 GB/s", assume_error=True)) == (
        "nccl.hang", "structural")


def test_chinese_complaints_from_the_users_notes(kb):
    # ../shared/seeds/001: "training is rather slow, far slower than one node with several GPUs"
    res = _run(kb, "训练速度比较慢，远慢于单机多卡", assume_error=True)
    f = res["findings"][0]
    assert f["id"] == "nccl.hang" and "is slow" in f["notes"][0]
    # a real two-node INFO capture (H100, NCCL 2.28.9, sockets: no HCA) cut after 'Connected all rings'
    # (where a hung job's paste ends), with "multi-node training is stuck, no error at all"
    res = _run(kb, "多机训练卡住了，没有任何报错\n" + _cap("fakehosts-2ranks-default.log", 155))
    f = res["findings"][0]
    assert _root(res) == ("nccl.hang", "structural")
    assert "after NCCL's init completed" in f["notes"][0] and "line 156" in f["notes"][0]
    assert f["triage"][0]["cause"] == "net_path" and "NET/Socket" in f["triage"][0]["evidence"][-1]["text"]
    assert res["nccl_info"]["nodes"] == 2
    # the whole capture ends with 'Destroy COMPLETE': NCCL finished, so no transport of its is the answer
    res = _run(kb, "多机训练卡住了\n" + _cap("fakehosts-2ranks-default.log"))
    f = res["findings"][0]
    assert "after NCCL finished" in f["notes"][0] and [t["cause"] for t in f["triage"]] == ["rank_behind"]


def test_ncclinfo_answers_stay_and_gain_the_ranking(kb):
    # the existing hedged answer for sockets between nodes is kept; the ranking follows its notes
    res = _run(kb, "after this the training hangs, nothing else is printed\n" + _cap("fakehosts-2ranks-default.log"))
    f = res["findings"][0]
    assert _root(res) == ("nccl.ib_no_device", "family") and f["notes"][0].startswith("How sure: medium")
    assert any(n.startswith("Causes ranked from the whole text: The text says the job hangs") for n in f["notes"])
    assert f["triage"] and sum(n.startswith("How sure") for n in f["notes"]) == 1
    # a specific answer from the INFO lines (loopback for 2 nodes) is left alone
    res = _run(kb, "two nodes, the job hangs after this\n" + _cap("fakehosts-2ranks-ibdisable-lo.log"))
    assert _root(res) == ("nccl.socket_ifname", "cause") and "triage" not in res["findings"][0]


def test_healthy_captures_stay_healthy(kb):
    for name in ("default-1rank.log", "fakehosts-2ranks-default.log", "fakehosts-2ranks-netsocket-p2pdisable.log"):
        res = _run(kb, _cap(name))
        assert (res["verdict"], res["findings"]) == ("no_error", []), name


def test_the_tail_is_bounded_and_numbered(kb):
    import io

    body = "".join("step %d loss 0.1\n" % i for i in range(20000)) + _cap("default-1rank.log")
    scan = explain.Scan()
    explain.scan_stream(io.BytesIO(body.encode()), kb, scan, "a.log")
    (t,) = scan.tails
    assert t["path"] == "a.log" and t["stage"] == "ended" and t["last"][0] == 20000 + 96
    assert "Closing env plugin" in t["last"][1] and len(t["user"]) <= 64 and t["user"][-1][0] < t["last"][0]
    # a folder of many per-rank logs keeps the user's lines of the first MAX_USER_TAILS inputs only
    scan = explain.Scan()
    for i in range(hang.MAX_USER_TAILS + 2):
        explain.scan_stream(io.BytesIO(b"the job hangs\n"), kb, scan, "rank%d.log" % i)
    assert scan.tails[0]["user"] and not scan.tails[-1]["user"]


def test_one_rank_communicators_in_two_nccl_tests_processes(kb):
    # the H100 capture of one process (torch 2.11 / NCCL 2.28.9: 'rank 0 nranks 1 ... Init COMPLETE'), and the same
    # lines from a second process (its pid changed: a derived text, as NCCL_DEBUG_FILE=%h.%p gives one per process)
    one = _cap("default-1rank.log")
    two = one + one.replace("vm:507:", "vm:508:")
    cmd = "mpirun -np 2 ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 1\n"
    res = _run(kb, cmd + two)
    assert _root(res) == ("nccltests.no_mpi", "cause")
    assert "'rank 0 nranks 1" in res["findings"][0]["notes"][0]
    # one process alone, or two without nccl-tests in view (a torch job's own single-rank groups): no answer
    assert _run(kb, cmd + one)["verdict"] == "no_error"
    assert _run(kb, two)["verdict"] == "no_error"


def test_per_node_files_the_node_that_stopped_earliest_sets_the_stage(kb):
    import io

    # the H100 two-node capture as two per-node files (derived: one process's lines each): node A's paste ends
    # after 'Connected all rings', node B's during its init (its last line 'Init START': it never got further)
    lines = _cap("fakehosts-2ranks-default.log", 155).splitlines(True)
    a = "".join(l for l in lines if "vm:559:" in l)
    b = "".join(l for l in lines[:36] if "vm:560:" in l)
    inputs = [("node-a.log", lambda: io.BytesIO(("two nodes, the job hangs\n" + a).encode())),
              ("node-b.log", lambda: io.BytesIO(b.encode()))]
    res = explain.explain_inputs(inputs, kb)
    f = res["findings"][0]
    assert "before NCCL's init completed" in " ".join(f["notes"]) and "is node-b.log line" in " ".join(f["notes"])
    assert f["triage"][0]["cause"] == "interface"  # NCCL networking troubleshooting: init hangs, interfaces, ports
    last_b = [l for l in b.splitlines() if "NCCL INFO" in l][-1]
    assert any(last_b[:60] in e["text"] and e["file"] == "node-b.log" for t in f["triage"] for e in t["evidence"])


# autoscriptlabs/nccl-mesh-plugin#56 (https://github.com/autoscriptlabs/nccl-mesh-plugin/issues/56), "get very low
# bandwidth": channels over NET/IB without '/GDRDMA', NCCL's own 'use ring PXN 0 GDR 0' (the host name is empty)
MESH_56 = """get very low bandwidth
:22901:22901 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/4
:22901:22901 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/5
:22901:22901 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[0] [send] via NET/IB/4
:22901:22916 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.
:22901:22901 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 0
"""


def test_public_low_bandwidth_over_ib_without_gdrdma_is_gpu_direct_rdma_first(kb):
    res = _run(kb, MESH_56)
    f = res["findings"][0]
    assert _root(res) == ("rdma.peermem", "family") and "is slow" in f["notes"][0]
    assert f["triage"][0]["cause"] == "gdr" and "nvidia_peermem" in f["triage"][0]["tell_apart"]
    assert any("GDR 0" in e["text"] for e in f["triage"][0]["evidence"])
    # the same lines with '/GDRDMA' on every channel and 'GDR 1': GPU Direct RDMA is on, not the answer
    on = MESH_56.replace("/4\n", "/4/GDRDMA\n").replace("/5\n", "/5/GDRDMA\n").replace("GDR 0", "GDR 1")
    assert "gdr" not in [t["cause"] for t in _run(kb, on)["findings"][0]["triage"]]


def test_chinese_words_find_the_fabric_and_the_container(kb):
    # "two machines, training over the IB NICs is slow, run in a docker container" (re.A: 'IB' inside Chinese text)
    res = _run(kb, "两台机器用IB网卡训练很慢，docker容器里跑的", assume_error=True)
    f = res["findings"][0]
    assert [t["cause"] for t in f["triage"]][0] == "net_path" and "container" in [t["cause"] for t in f["triage"]]
    assert "/dev/infiniband" in f["causes"][0]["text"] or "/dev/infiniband" in " ".join(f["causes"][0]["fix"])
