"""gpudoctor/explain/hang.py's ranking of a hang's causes (rank) and its reading of `nvidia-smi
topo -m` (_topo), scenario by scenario, written against the survivors of a mutation run
(docs/mutation.md, "This round's new code"): test_explain_hang.py judges them through whole texts,
where most branches of the ranking are not reached. Each scenario is the evidence dict evidence()
builds; the expected answer is the whole ranking (cause, score, evidence lines, whether a line of
NCCL's or nvidia-smi's names it), which explain --json shows under `triage` (score included),
reviewed against the rules of the module's docstring and NCCL's troubleshooting guide
(https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html): P2P over PCIe
is the first suspect on one node after init, not when NCCL_P2P_DISABLE / NCCL_P2P_LEVEL=LOC turned
it off; the interface before init completes across nodes; sockets or IB without GPUDirect RDMA
between nodes; nothing of NCCL's transports once its communicators are destroyed."""

import pytest

from gpudoctor.explain import hang

L = (40, "gpu1:1:1 [0] NCCL INFO Connected all rings", None)  # NCCL's last line (line, text, host)
LAST = L[:2]
T = (7, "GPU0\t X \tPIX")  # a topo -m row
P = [(9, "via P2P/IPC")]
SOCK = (4, "NET/Socket : Using [0]eth0")
GDR = (14, "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'")


def ev(**kw):
    words = {k: None for k in hang._WORDS}
    words.update(kw.pop("words", {}))
    base = {"words": words, "multi": False, "stage": None, "slow": False, "last": None, "p2p": [], "topo": None,
            "topo_line": None, "env": {}, "net": [], "sockets": [], "ib_devices": {}, "gdr": {}, "info_first": {},
            "ring_gdr0": None, "shm": False}
    base.update(kw)
    return base


CASES = {
    "pcie_after_init": (ev(stage="after_init", last=L, topo="pcie", topo_line=T),
                        [("p2p", 70, [LAST, T], True), ("rank_behind", 40, [LAST], False)]),
    "pcie_p2p_disabled": (ev(stage="after_init", last=L, topo="pcie", topo_line=T, env={"NCCL_P2P_DISABLE": "1"}),
                          [("rank_behind", 40, [LAST], False)]),
    "pcie_p2p_level_loc": (ev(stage="after_init", last=L, topo="pcie", topo_line=T, env={"NCCL_P2P_LEVEL": "LOC"}),
                           [("rank_behind", 40, [LAST], False)]),
    "pcie_p2p_not_disabled": (ev(stage="after_init", last=L, topo="pcie", topo_line=T,
                                 env={"NCCL_P2P_DISABLE": "0", "NCCL_P2P_LEVEL": "NVL"}),
                              [("p2p", 70, [LAST, T], True), ("rank_behind", 40, [LAST], False)]),
    "nvlink_after_init": (ev(stage="after_init", last=L, topo="nvlink", topo_line=T),
                          [("rank_behind", 40, [LAST], False), ("p2p", 20, [], False)]),
    # rank_behind, not not_joined (issue 18's review asked): torch runs NCCL's init at the first collective,
    # after every rank passed init_process_group; a rank missing from NCCL's bootstrap skipped that collective.
    # not_joined needs torch's store-based barrier line (sbb), the stage before
    "one_node_init": (ev(stage="init", last=L), [("rank_behind", 30, [LAST], False), ("p2p", 25, [], False)]),
    "multi_init": (ev(multi=True, stage="init", last=L),
                   [("interface", 55, [LAST], False), ("net_path", 35, [], False), ("rank_behind", 20, [], False),
                    ("p2p", 15, [], False), ("gdr", 10, [], False)]),
    "multi_connect_p2p": (ev(multi=True, stage="connect", last=L, p2p=[(9, "via P2P/IPC")]),
                          [("p2p", 45, [LAST, (9, "via P2P/IPC")], False), ("net_path", 45, [LAST], False),
                           ("interface", 35, [], False), ("rank_behind", 20, [], False), ("gdr", 10, [], False)]),
    "multi_sockets_with_ib": (ev(multi=True, stage="after_init", last=L, sockets=["gpu1"],
                                 ib_devices={"mlx5_0": ["gpu1"]},
                                 info_first={"ib_active": (3, "NET/IB : Using [0]mlx5_0:1/IB")}),
                              [("net_path", 50, [(3, "NET/IB : Using [0]mlx5_0:1/IB")], True),
                               ("rank_behind", 40, [LAST], False), ("interface", 25, [], False),
                               ("p2p", 20, [], False), ("gdr", 10, [], False)]),
    "multi_sockets_slow": (ev(multi=True, slow=True, stage="after_init", last=L, sockets=["gpu1"],
                              info_first={"socket_iface": (4, "NET/Socket : Using [0]eth0")}),
                           [("net_path", 55, [(4, "NET/Socket : Using [0]eth0")], False),
                            ("rank_behind", 30, [LAST], False), ("p2p", 20, [], False), ("gdr", 20, [], False),
                            ("interface", 10, [], False)]),
    "multi_ib_without_gdr": (ev(multi=True, stage="after_init", last=L, net=[("IB", False, 11, "via NET/IB/0")],
                                gdr={"IB mlx5_0": ["Disabled@gpu1"]}, ring_gdr0=(12, "Ring 00 GDR 0")),
                             [("gdr", 45, [(11, "via NET/IB/0"), (12, "Ring 00 GDR 0")], True),
                              ("rank_behind", 40, [LAST], False), ("net_path", 30, [], False),
                              ("interface", 25, [], False), ("p2p", 20, [], False)]),
    "multi_ib_gdr_on": (ev(multi=True, stage="after_init", last=L, net=[("IB", True, 11, "via NET/IB/0/GDRDMA")]),
                        [("rank_behind", 40, [LAST], False), ("net_path", 30, [], False), ("interface", 25, [], False),
                         ("p2p", 20, [], False)]),
    "multi_socket_channel": (ev(multi=True, stage="after_init", last=L,
                                net=[("Socket", False, 13, "via NET/Socket/0")]),
                             [("rank_behind", 40, [LAST], False), ("net_path", 40, [(13, "via NET/Socket/0")], False),
                              ("interface", 25, [], False), ("p2p", 20, [], False), ("gdr", 10, [], False)]),
    "ended": (ev(stage="ended", last=L, topo="pcie", topo_line=T, multi=True), [("rank_behind", 35, [LAST], False)]),
    "ended_slow": (ev(stage="ended", last=L, slow=True, multi=True),
                   [("net_path", 30, [], False), ("rank_behind", 25, [LAST], False), ("gdr", 20, [], False),
                    ("interface", 10, [], False)]),
    "after_some_steps": (ev(stage="after_init", last=L, words={"later": (2, "hangs after 500 steps")}),
                         [("rank_behind", 80, [(2, "hangs after 500 steps"), LAST], False), ("p2p", 20, [], False)]),
    "first_collective": (ev(words={"first": (2, "hangs at the first allreduce")}),
                         [("p2p", 40, [(2, "hangs at the first allreduce")], False), ("rank_behind", 25, [], False)]),
    "container_one_node": (ev(words={"container": (3, "in a docker container")}, shm=True),
                           [("container", 45, [(3, "in a docker container")], False), ("p2p", 25, [], False),
                            ("rank_behind", 20, [], False)]),
    "container_nodes": (ev(multi=True, words={"container": (3, "in a docker container")}),
                        [("net_path", 45, [(3, "in a docker container")], False), ("interface", 25, [], False),
                         ("rank_behind", 20, [], False), ("container", 20, [(3, "in a docker container")], False),
                         ("p2p", 15, [], False), ("gdr", 10, [], False)]),
    "ib_words_one_node": (ev(words={"ib": (5, "over InfiniBand")}, net=[("IB", False, 11, "via NET/IB/0")],
                             gdr={"Socket eth0": ["Disabled@x"]}),
                          [("gdr", 40, [(11, "via NET/IB/0")], False), ("rank_behind", 20, [], False),
                           ("net_path", 20, [], False), ("p2p", 15, [], False), ("interface", 10, [], False)]),
    "pcie_in_words": (ev(stage="after_init", last=L, words={"pcie": (6, "an EPYC box with ACS on")}),
                      [("p2p", 65, [(6, "an EPYC box with ACS on")], False), ("rank_behind", 40, [LAST], False)]),
    # second round, against the survivors of the run with the cases above
    "pcie_topo_only": (ev(topo="pcie", topo_line=T), [("p2p", 45, [T], True), ("rank_behind", 20, [], False)]),
    "multi_after_init_p2p_lines": (ev(multi=True, stage="after_init", last=L, p2p=P),
                                   [("p2p", 55, [LAST, P[0]], True), ("rank_behind", 40, [LAST], False),
                                    ("net_path", 30, [], False), ("interface", 25, [], False), ("gdr", 10, [], False)]),
    "p2p_disable_empty": (ev(stage="after_init", last=L, topo="pcie", topo_line=T, env={"NCCL_P2P_DISABLE": ""}),
                          [("p2p", 70, [LAST, T], True), ("rank_behind", 40, [LAST], False)]),
    "p2p_level_0": (ev(stage="after_init", last=L, topo="pcie", topo_line=T, env={"NCCL_P2P_LEVEL": "0"}),
                    [("rank_behind", 40, [LAST], False)]),
    "socket_channel_without_line": (ev(multi=True, stage="after_init", last=L,
                                       net=[("Socket", False, None, "via NET/Socket/0")]),
                                    [("rank_behind", 40, [LAST], False), ("net_path", 40, [], False),
                                     ("interface", 25, [], False), ("p2p", 20, [], False), ("gdr", 10, [], False)]),
    "ended_slow_one_node": (ev(stage="ended", last=L, slow=True),
                            [("rank_behind", 25, [LAST], False), ("p2p", 15, [], False)]),
    "multi_init_sockets": (ev(multi=True, stage="init", last=L, sockets=["gpu1"], info_first={"socket_iface": SOCK}),
                           [("interface", 55, [LAST], False), ("net_path", 35, [SOCK], False),
                            ("rank_behind", 20, [], False), ("p2p", 15, [], False), ("gdr", 10, [], False)]),
    "multi_sockets_net_chosen": (ev(multi=True, stage="after_init", last=L, sockets=["gpu1"],
                                    info_first={"net_chosen": (5, "Using network Socket")}),
                                 [("rank_behind", 40, [LAST], False),
                                  ("net_path", 40, [(5, "Using network Socket")], False), ("interface", 25, [], False),
                                  ("p2p", 20, [], False), ("gdr", 10, [], False)]),
    "multi_sockets_ib_words": (ev(multi=True, stage="after_init", last=L, sockets=["gpu1"],
                                  words={"ib": (6, "our IB fabric")}),
                               [("net_path", 50, [(6, "our IB fabric")], False), ("rank_behind", 40, [LAST], False),
                                ("interface", 25, [], False), ("p2p", 20, [], False), ("gdr", 10, [], False)]),
    "multi_sockets_ib_active_without_hcas": (ev(multi=True, stage="after_init", last=L, sockets=["gpu1"],
                                                info_first={"ib_active": (3, "NET/IB : Using [0]mlx5_0:1/IB"),
                                                            "socket_iface": SOCK}),
                                             [("rank_behind", 40, [LAST], False), ("net_path", 40, [SOCK], False),
                                              ("interface", 25, [], False), ("p2p", 20, [], False),
                                              ("gdr", 10, [], False)]),
    "multi_gdr_disabled_info": (ev(multi=True, stage="after_init", last=L, gdr={"IB mlx5_0": ["Disabled@gpu1"]},
                                   info_first={"gdr": GDR}),
                                [("rank_behind", 40, [LAST], False), ("gdr", 35, [GDR], True),
                                 ("net_path", 30, [], False), ("interface", 25, [], False), ("p2p", 20, [], False)]),
    "multi_slow_ib_without_gdr": (ev(multi=True, slow=True, stage="after_init", last=L,
                                     net=[("IB", False, 11, "via NET/IB/0")]),
                                  [("gdr", 60, [(11, "via NET/IB/0")], False), ("rank_behind", 30, [LAST], False),
                                   ("net_path", 30, [], False), ("p2p", 20, [], False), ("interface", 10, [], False)]),
    # five lines name P2P: three are shown, NCCL's own first
    "p2p_everything": (ev(stage="after_init", last=L, p2p=P, topo="pcie", topo_line=T,
                          words={"first": (2, "hangs at the first allreduce"), "pcie": (6, "an EPYC box with ACS on")}),
                       [("p2p", 115, [LAST, (2, "hangs at the first allreduce"), P[0]], True),
                        ("rank_behind", 45, [LAST], False)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rank(name):
    evidence, want = CASES[name]
    assert [(c, s, w, sp) for c, s, w, sp in hang.rank(evidence)] == want


@pytest.mark.parametrize("rows,want", [
    (None, (None, None)),
    ([], (None, None)),
    ([(7, "GPU0\t X ")], (None, None)),  # one GPU: nothing but itself
    ([(7, "GPU0\t X \tNV18\tNV18")], ("nvlink", (7, "GPU0\t X \tNV18\tNV18"))),
    ([(7, "GPU0\t X \tPHB"), (8, "GPU1\tPHB\t X ")], ("pcie", (7, "GPU0\t X \tPHB"))),
    # an NVLink on a later row is an NVLink machine (rows read together), shown by the first row
    ([(7, "GPU0\t X \tPIX\tSYS"), (8, "GPU1\tPIX\t X \tNV4")], ("nvlink", (7, "GPU0\t X \tPIX\tSYS"))),
    ([(7, "GPU0\t X \tNV4"), (8, "GPU1\tNV4\t X \tSYS")], ("nvlink", (7, "GPU0\t X \tNV4"))),
    ([(7, "GPU0\t X \tNV4\tSYS"), (8, "GPU1\tNV4\t X \tSYS"), (9, "GPU2\tSYS\tSYS\t X ")],
     ("nvlink", (7, "GPU0\t X \tNV4\tSYS"))),
])
def test_topo_rows(rows, want):
    assert hang._topo(None if rows is None else {"topo": rows}) == want


def _st(ranks=(), avg=(), headers=(), nranks1=None):
    return {"ranks": list(ranks), "avg": list(avg), "headers": list(headers), "nranks1": dict(nranks1 or {})}


def _r(ln, rank, pid, host):  # nccl-tests' '#  Rank  0 Pid 100 on n1 device 0' (src/common.cu), as hang reads it
    return (ln, rank, pid, host, "#  Rank %2d Pid %6d on %10s device  0" % (rank, pid, host))


def _avg(ln):
    return (ln, "# Avg bus bandwidth    : 1.2")


def _head(ln):
    return (ln, "# nThread 1 nGpus 1 minBytes 8 maxBytes 128M")


RANK0 = "each start their own GPU list at 'Rank 0'"
TWO_RUNS = [_r(10, 0, 100, "n1"), _r(30, 0, 100, "n2")]  # two hosts, each its own Rank 0


@pytest.mark.parametrize("args,want", [
    ((None,), (None, [])),
    ((_st([_r(10, 0, 100, "n1"), _r(11, 0, 200, "n1")]),), (RANK0, [(10, _r(10, 0, 100, "n1")[4]),
                                                                  (11, _r(11, 0, 200, "n1")[4])])),
    # a summary between them: one run, then the other (one input)
    ((_st([_r(10, 0, 100, "n1"), _r(30, 0, 200, "n1")], avg=[_avg(20)]),), (None, [])),
    ((_st([_r(10, 0, 100, "n1"), _r(30, 0, 200, "n1")], avg=[_avg(10)]),), (RANK0, [(10, _r(10, 0, 100, "n1")[4]),
                                                                                  (30, _r(30, 0, 200, "n1")[4])])),
    ((_st([_r(10, 0, 100, "n1"), _r(30, 0, 200, "n1")], avg=[_avg(30)]),), (RANK0, [(10, _r(10, 0, 100, "n1")[4]),
                                                                                  (30, _r(30, 0, 200, "n1")[4])])),
    ((_st(TWO_RUNS, avg=[_avg(20)]),), (None, [])),
    # per-node inputs (each ends with its own summary): separate jobs; an input that starts at the
    # first Rank 0 line splits them, one that starts at the second does not
    ((_st(TWO_RUNS, avg=[_avg(20)]), False, (0, 25)), (RANK0, [(10, TWO_RUNS[0][4]), (30, TWO_RUNS[1][4])])),
    ((_st(TWO_RUNS, avg=[_avg(20)]), False, (10,)), (RANK0, [(10, TWO_RUNS[0][4]), (30, TWO_RUNS[1][4])])),
    ((_st(TWO_RUNS, avg=[_avg(20)]), False, (30,)), (None, [])),
    ((_st([_r(10, 0, 100, "n1"), _r(11, 0, 100, "n1")]),), (None, [])),  # one process
    ((_st([_r(10, 0, 100, "n1"), _r(11, 1, 200, "n1")]),), (None, [])),  # rank 1 is not a Rank 0
    ((_st([_r(12, 0, 300, "n1"), _r(10, 0, 100, "n1"), _r(11, 0, 200, "n1")]),),
     (RANK0, [(10, _r(10, 0, 100, "n1")[4]), (11, _r(11, 0, 200, "n1")[4])])),  # the first two
    ((_st(headers=[_head(10), _head(14)]),), ("are two '# nThread' headers printed together", [_head(10), _head(14)])),
    ((_st(headers=[_head(10), _head(15)]),), (None, [])),
    ((_st(avg=[_avg(10), _avg(14)]),),
     ("are two 'Avg bus bandwidth' summaries printed together", [_avg(10), _avg(14)])),
    ((_st(avg=[_avg(10), _avg(15)]),), (None, [])),
    ((_st(nranks1={"p1": (5, "a"), "p2": (3, "b"), "p3": (9, "c")}), True),
     ("are communicators of one rank ('rank 0 nranks 1 ... Init COMPLETE') in two processes", [(3, "b"), (5, "a")])),
    ((_st(nranks1={"p1": (5, "a"), "p2": (3, "b")}), False), (None, [])),  # not an nccl-tests text
    ((_st(nranks1={"p1": (5, "a")}), True), (None, [])),
    ((_st(nranks1={"p1": (5, "a"), "p2": (3, "b")}),), (None, [])),  # nccl_tests is off unless the caller says so
    # one host, a summary between, per-node inputs: one process's runs, one after another
    ((_st([_r(10, 0, 100, "n1"), _r(30, 0, 200, "n1")], avg=[_avg(20)]), False, (0, 25)), (None, [])),
    ((_st(TWO_RUNS, avg=[_avg(20)]), False, (5,)), (None, [])),  # an input that starts before both: one input
])
def test_separate_jobs(args, want):
    assert hang.separate_jobs(*args) == want
