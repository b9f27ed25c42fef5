"""NCCL logs with only INFO lines (issue 18): the transport, network and interface NCCL chose are
read from the INFO format strings of NCCL's source (tools/gen_nccl_info.py ->
generated/nccl_info.json), and explain answers from them when they are wrong across nodes or when
the text says the job was slow or hung; a healthy INFO log stays no_error.

Real texts: the captures of fixtures/explain/nccl-info-h100-2026-11-25/ (one H100, torch 2.11 /
NCCL 2.28.9, two ranks taken for two nodes through NCCL_HOSTID; its README), and excerpts of
public threads cited at each test (nothing from bench/data/).
"""

import os
import sys

import pytest

from gpudoctor import explain

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPS = os.path.join(REPO, "fixtures", "explain", "nccl-info-h100-2026-11-25")
sys.path.insert(0, os.path.join(REPO, "tools"))

import gen_nccl_info  # noqa: E402
import knowgen  # noqa: E402


def _log(name):
    with open(os.path.join(CAPS, name)) as f:
        return f.read()


def _run(kb, text):
    return explain.explain_text(text, kb)


def test_generator_regenerates_the_committed_sites_from_its_slice(tmp_path):
    got = knowgen.regenerated(gen_nccl_info.main, os.path.join(REPO, "tools", "data", "nccl_info_slice.txt"),
                              tmp_path / "nccl_info.json")
    full = knowgen.committed("nccl_info")
    assert full["header"]["generator"] == got["header"]["generator"] == "tools/gen_nccl_info.py"
    assert "5067397c2676d5aed50042fc39e5c8ee96eb0027" in full["header"]["version"]  # gen_nccl_messages' commit
    assert full["sites"] == [] and len(full["info_sites"]) > 100
    by_id = {s["id"]: s for s in full["info_sites"]}
    assert len(got["info_sites"]) >= 15
    for s in got["info_sites"]:
        assert s == by_id[s["id"]], s["id"]
    classes = {s["class"] for s in full["info_sites"]}
    assert classes >= {"version", "ib_none", "ib_active", "socket_iface", "net_chosen", "gdr", "env", "channel_net",
                       "channel_p2p", "channel_shm", "nvls", "comm_shape", "cuda_driver", "bootstrap_iface"}
    # older releases' formats: 2.4's 'Ring 00 : 7 -> 8 [send] via NET/Socket/0', 2.12's GDR '(no module)'
    assert any(s.get("until") == "2.4.8" and s["class"] == "channel_net" for s in full["info_sites"])
    assert any("(no module)" in s["text"] for s in full["info_sites"] if s["class"] == "gdr")


def test_info_site_matchers_are_bounded(kb):
    sys.path.insert(0, os.path.join(REPO, "tests"))
    from test_explain_generated import _repeats

    # (the user's words, meaning.py's one pattern of role fact, are bounded at 600 as symptoms.py's ways: their
    # own test, tests/test_explain_generated.py test_symptom_word_matchers_are_anchored_bounded_and_linear)
    pats = [p for p in kb.patterns if p.role == "fact" and "symptom" not in (p.site or {})]
    assert len(pats) > 60
    for p in pats:
        bound, depth = _repeats(p.source)
        assert bound <= 200 and depth <= 1, p.source


def test_h100_two_nodes_over_sockets_without_hca_is_healthy_and_its_facts_are_read(kb):
    res = _run(kb, _log("fakehosts-2ranks-default.log"))
    assert (res["verdict"], res["findings"]) == ("no_error", [])
    fx = res["nccl_info"]
    assert fx["nodes"] == 2 and fx["network"] == {"Socket": ["vm"]} and fx["ib_no_device"] == ["vm"]
    assert fx["versions"] == {"2.28.9": ["vm"]} and fx["cuda_driver"] == {"13000": ["vm"]}
    assert fx["socket_interfaces"] == {"vm": ["eth0"]} and fx["transports"] == {"NET/Socket": 8}
    assert fx["gdr"] == {"Socket eth0": ["Disabled@vm"]}
    assert "network Socket" in fx["summary"] and "NCCL 2.28.9" in fx["summary"]


def test_h100_two_nodes_over_sockets_with_a_hang_is_the_socket_fallback_hedged(kb):
    res = _run(kb, "after this the training hangs, nothing else is printed\n" + _log("fakehosts-2ranks-default.log"))
    f = res["findings"][0]
    assert (res["verdict"], f["id"], f["confidence"]) == ("root_cause", "nccl.ib_no_device", "family")
    assert "How sure: medium" in f["notes"][0] and "cloud VMs" in f["notes"][0]
    assert "NCCL_DEBUG_SUBSYS=INIT,NET" in " ".join(f["notes"])


def test_h100_loopback_for_two_nodes_of_one_host_is_healthy_and_ib_decline_is_no_internal_error(kb):
    # two ranks that NCCL counts as two nodes (NCCL_HOSTID), every line from host 'vm', over lo, all_reduce ok:
    # loopback reaches every rank of one machine, nothing failed (issue 18: no socket-interface finding)
    res = _run(kb, _log("fakehosts-2ranks-ibdisable-lo.log"))
    assert (res["verdict"], res["findings"]) == ("no_error", [])
    assert any(n["id"] == "nccl.socket_ifname" and "one host (vm)" in n["note"] for n in res["context"])
    assert any(n["id"] == "nccl.ib_declined" and "NCCL_IB_DISABLE=1" in n["note"] for n in res["context"])
    # the user saying the job spans nodes: lo cannot reach another machine, the interface is the answer
    res = _run(kb, "we train on two nodes\n" + _log("fakehosts-2ranks-ibdisable-lo.log"))
    ids = [f["id"] for f in res["findings"]]
    assert (res["verdict"], ids[0], res["findings"][0]["confidence"]) == ("root_cause", "nccl.socket_ifname", "cause")
    assert "nccl.internal_error" not in ids
    assert "lo for a job of 2 nodes" in res["findings"][0]["notes"][0]
    assert "NCCL_SOCKET_IFNAME" in res["findings"][0]["notes"][1]


def test_h100_single_node_logs_stay_healthy_and_the_real_warn_stays_the_root(kb):
    for name in ("default-1rank.log", "fakehosts-2ranks-netsocket-p2pdisable.log"):
        res = _run(kb, _log(name))
        assert (res["verdict"], res["findings"]) == ("no_error", []), name
    assert _run(kb, _log("fakehosts-2ranks-netsocket-p2pdisable.log"))["nccl_info"]["env"]["NCCL_P2P_DISABLE"] == "1"
    res = _run(kb, _log("sameHost-2ranks-duplicate-gpu.log"))
    assert res["root"] == "nccl.duplicate_gpu" and res["nccl_info"]["versions"] == {"2.28.9": ["vm"]}


def test_one_node_hang_with_nothing_wrong_in_the_info_lines_is_the_structural_family(kb):
    res = _run(kb, "the job is stuck at the first all_reduce\n" + _log("default-1rank.log"))
    f = res["findings"][0]
    assert (f["id"], f["confidence"]) == ("nccl.info_only", "structural")
    assert "How sure: low" in f["notes"][0] and "the rank that is behind" in f["notes"][1]


# NVIDIA/nccl#447 (https://github.com/NVIDIA/nccl/issues/447): GCP, two nodes, "Training get stuck";
# NCCL 2.7.8 prints NET/IB no device and sockets on eth0 (excerpt of the thread's log)
NCCL_447 = """When using 1 nodes it works . But when using more than 1 nodes,  Training get stuck due to NCCL,
slurm-train-compute-0-0:2139:2139 [0] NCCL INFO Bootstrap : Using [0]eth0:10.0.0.34<0>
slurm-train-compute-0-0:2139:2139 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
slurm-train-compute-0-0:2139:2139 [0] NCCL INFO NET/IB : No device found.
slurm-train-compute-0-0:2139:2139 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.34<0>
slurm-train-compute-0-0:2139:2139 [0] NCCL INFO Using network Socket
NCCL version 2.7.8+cuda10.2
slurm-train-compute-0-1:2119:2119 [1] NCCL INFO Bootstrap : Using [0]eth0:10.0.0.33<0>
slurm-train-compute-0-1:2119:2119 [1] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation
slurm-train-compute-0-1:2119:2119 [1] NCCL INFO NET/IB : No device found.
slurm-train-compute-0-1:2119:2119 [1] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.33<0>
slurm-train-compute-0-1:2119:2119 [1] NCCL INFO Using network Socket
"""


def test_public_gcp_two_nodes_stuck_over_sockets_is_hedged_not_certain(kb):
    res = _run(kb, NCCL_447)
    f = res["findings"][0]
    assert (f["id"], f["confidence"]) == ("nccl.ib_no_device", "family")
    assert res["nccl_info"]["hosts"] == ["slurm-train-compute-0-0", "slurm-train-compute-0-1"]
    assert res["nccl_info"]["bootstrap_interfaces"] == {"slurm-train-compute-0-0": ["eth0"],
                                                        "slurm-train-compute-0-1": ["eth0"]}
    # without the complaint, the same lines are a healthy two-node setup over sockets
    assert _run(kb, NCCL_447.split("\n", 1)[1])["verdict"] == "no_error"


# the healthy corpus' NCCL#1357 lines (NET/IB with SHARP on two nodes), and a node of the same job
# whose NET/IB found no HCA and fell back to sockets: the nodes differ
IB_NODE = ("qh100-gpu20:39636:39690 [7] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB/SHARP [1]mlx5_1:1/IB/SHARP [RO]; "
           "OOB ibp25s0:10.20.0.120<0>\nqh100-gpu20:39636:39690 [7] NCCL INFO Using network IB\n")
SOCKET_NODE = ("qh100-gpu21:4242:4290 [0] NCCL INFO NET/IB : No device found.\n"
               "qh100-gpu21:4242:4290 [0] NCCL INFO NET/Socket : Using [0]eno1:10.20.1.121<0>\n"
               "qh100-gpu21:4242:4290 [0] NCCL INFO Using network Socket\n")


def test_a_node_without_its_hca_among_ib_nodes_is_the_socket_fallback_as_a_cause(kb):
    res = _run(kb, IB_NODE + SOCKET_NODE)
    f = res["findings"][0]
    assert (f["id"], f["confidence"]) == ("nccl.ib_no_device", "cause")
    assert "no device on qh100-gpu21 but HCAs on qh100-gpu20" in f["notes"][0]
    assert _run(kb, IB_NODE)["verdict"] == "no_error"


def test_gdr_disabled_on_one_node_only_is_peermem(kb):
    text = ("nodeA:11:11 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'\n"
            "nodeB:12:12 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
            "nodeA:11:11 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n")
    f = _run(kb, text)["findings"][0]
    assert (f["id"], f["confidence"]) == ("rdma.peermem", "cause") and "on nodeB" in f["notes"][0]
    assert "modprobe nvidia-peermem" in f["notes"][1]


# areal-project/AReaL#639 (https://github.com/areal-project/AReaL/issues/639): cross-node collectives 4-5x slower,
# NCCL on sockets over bond0 where RoCE (mlx5_bond) was expected; fixed by opting into IB (NCCL_IB_HCA, PR #640)
AREAL_639 = """Cross-node collective operations (AllReduce, Broadcast) are 4-5x slower than expected due to NCCL falling back to Socket transport instead of InfiniBand.

NCCL logs show:
```
NCCL INFO NET/Socket : Using [0]bond0:200.8.184.2<0>
```
"""


def test_public_cross_node_slower_than_expected_over_sockets_names_the_fallback_and_ib_hca(kb):
    res = _run(kb, AREAL_639)
    f = res["findings"][0]
    assert (f["id"], f["confidence"]) == ("nccl.ib_no_device", "family")
    assert "slower than expected" in f["notes"][0] and "NCCL_IB_HCA" in f["notes"][1]
    # the socket line alone, with no complaint and no word of nodes: what NCCL chose, no cause
    assert _run(kb, "NCCL INFO NET/Socket : Using [0]bond0:200.8.184.2<0>\n")["verdict"] == "no_error"


def test_versions_that_differ_name_the_host_of_each(kb):
    # the H100 capture's two ranks, one of them put on another host with another NCCL (constructed from the real lines)
    lines = [ln.replace("vm:560:", "node2:560:").replace("2.28.9+cuda13.0", "2.27.7+cuda12.9") if "vm:560:" in ln else ln
             for ln in _log("fakehosts-2ranks-default.log").splitlines()]
    res = _run(kb, "\n".join(lines) + "\n")
    f = next(f for f in res["findings"] if f["id"] == "nccl.version_mismatch")
    assert res["root"] == "nccl.version_mismatch"
    assert f["notes"][0] == "NCCL version per host (from the INFO lines): 2.27.7 on node2; 2.28.9 on vm."
