"""gpudoctor/nccl_infolog.py: the one reader of NCCL's INFO lines that explain (explain/ncclinfo.py)
and the probe (probe/nccl_log.py) share. The formats are NCCL's (github.com/NVIDIA/nccl: src/debug.cc,
src/init.cc, src/transport/{net,net_socket,p2p,shm,coll_net}.cc, src/transport/net_ib, src/graph/topo.cc);
the consumers' own behaviour is pinned by tests/test_explain_nccl_info.py and tests/test_probe_units.py.
"""

import os
import re
import sys

from gpudoctor import nccl_infolog as infolog
from gpudoctor.probe import nccl_log

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_explain_generated import _repeats  # noqa: E402


def test_every_reader_pattern_is_bounded():
    pats = {k: v for k, v in vars(infolog).items() if isinstance(v, re.Pattern)}
    assert len(pats) >= 15
    for name, rx in pats.items():
        bound, depth = _repeats(rx.pattern)
        assert bound <= 200 and depth <= 1, name


def test_prefix_keeps_the_host_and_survives_other_prefixes():
    line = "[rank3]:gpu-07.cluster:4242:4301 [3] NCCL INFO Using network IB"
    assert infolog.split(line) == ("gpu-07.cluster", "4242", "Using network IB")
    assert infolog.split("[1] NCCL INFO Using network IB") == (None, None, "Using network IB")  # host lost
    assert infolog.split("NCCL WARN Cuda failure 'out of memory'") is None


def test_readers_on_the_lines_nccl_prints():
    assert infolog.version("NCCL version 2.18.1+cuda12.1") == ("2.18.1+cuda12.1", "2.18.1")
    ib = infolog.ib_using("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:10.0.0.1<0>")
    assert [(d["device"], d["port"], d["link"]) for d in ib["devices"]] == [("mlx5_0", 1, "IB"), ("mlx5_1", 1, "RoCE")]
    assert ib["oob"] == "ib0" and infolog.net_using("NET/IB : Using [0]mlx5_0:1/IB") == "IB"
    assert [i["name"] for i in infolog.socket_ifs("NET/Socket : Using [0]eth0:10.0.0.1<0> [1]ib0:10.1.0.1<0>")] == [
        "eth0", "ib0"]
    assert infolog.env("NCCL_IB_HCA set to mlx5_0") == ("NCCL_IB_HCA", "mlx5_0")  # string settings: no "by environment"
    assert infolog.env("NCCL_P2P_DISABLE set by environment to 1.") == ("NCCL_P2P_DISABLE", "1")
    assert infolog.gdr("NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)") == {
        "net": "IB", "enabled": False, "index": 0, "device": "mlx5_0"}
    c = infolog.channel("Channel 02/0 : 0[0] -> 8[0] [send] via NET/IB/1(5)/GDRDMA(PCI)/Shared")
    assert (c["channel"], c["src"], c["dst"], c["kind"], c["gdr"]) == (2, 0, 8, "NET/IB", True)
    old = infolog.channel("Ring 00 : 7 -> 8 [send] via NET/Socket/0")  # 2.4-2.6: no device after the rank
    assert (old["src"], old["dst"], old["kind"]) == (7, 8, "NET/Socket")
    coll = infolog.channel("CollNet 00/0 : 3 [send] via COLLNET/IB/0/GDRDMA")
    assert (coll["src"], coll["dst"], coll["kind"], coll["gdr"]) == (3, None, "COLLNET/IB", True)  # coll_net.cc's "/GDRDMA"
    coll = infolog.channel("CollNet 01/1 : 3 [receive] via COLLNET/SHARP/1")
    assert (coll["kind"], coll["gdr"]) == ("COLLNET/SHARP", False)
    assert infolog.channel("Channel 00/0 : 0[0] -> 1[1] [send] via NET//0") is None  # no transport named
    assert infolog.comm_rank("ncclCommInitRankConfig comm 0x30088530 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 70 "
                             "commId 0xd3 - Init START") == {"rank": 1, "nranks": 2, "cuda_dev": 1, "bus_id": "70"}
    assert infolog.comm_shape("comm 0x5 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 0") == (16, 2)
    assert infolog.nvls("NVLS multicast support is not available on dev 0") == "not available"


def test_probe_reads_what_explain_reads_from_one_log():
    """The same lines through both consumers: the probe's summary and explain's facts agree."""
    from gpudoctor import explain

    lines = ["gpu01:11:11 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
             "gpu01:11:11 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>",
             "gpu01:11:11 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0",
             "gpu01:11:11 [0] NCCL INFO Using network Socket",
             "gpu01:11:11 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1b000 - Init START",
             "gpu02:12:12 [0] NCCL INFO ncclCommInitRank comm 0x2 rank 1 nranks 2 cudaDev 0 busId 1b000 - Init START",
             "gpu01:11:11 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0",
             "gpu02:12:12 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/Socket/0"]
    s = nccl_log.parse(lines)
    assert s["version"] == "2.21.5+cuda12.4" and s["network"] == "Socket"
    assert [i["name"] for i in s["socket_ifs"]] == ["eth0"] and s["env"] == {"NCCL_SOCKET_IFNAME": "eth0"}
    assert nccl_log.transports(s) == {"inter": ["NET/Socket"], "intra": []}
    fx = explain.explain_text("\n".join(lines))["nccl_info"]
    assert fx["versions"] == {"2.21.5": ["gpu01"]} and fx["network"] == {"Socket": ["gpu01"]}
    assert fx["socket_interfaces"] == {"gpu01": ["eth0"]} and fx["env"] == {"NCCL_SOCKET_IFNAME": "eth0"}
    assert fx["transports"] == {"NET/Socket": 2} and fx["transports_by_host"] == {"gpu01": {"NET/Socket": 1},
                                                                                  "gpu02": {"NET/Socket": 1}}
