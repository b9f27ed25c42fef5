"""The probe's planner and its node / link findings over the real 4x H100 recordings (mutation round 16,
docs/mutation.md): fixtures/probe/h100x4-* (four one-GPU sshd "nodes" of one host, NCCL over sockets; a CPU-starved
gpu04, a wrong NCCL_SOCKET_IFNAME on gpu02, four healthy runs). The planner's steps are replayed on them as
gpudoctor/probe/run.py calls them (suspects -> fast_nodes -> second_pass, unheard, isolate), and each finding is
compared whole: message, observed, expected, fix, hosts. Derived cases change one recorded reading (a slow link read
once or twice, a pair at the bound) and say so.
"""

import copy
import json
import os

import pytest

from conftest import FIXTURES
from gpudoctor.probe import findings, plan

PROBE = os.path.join(FIXTURES, "probe")
LIVE = ["gpu01", "gpu02", "gpu03", "gpu04"]


def doc(name):
    with open(os.path.join(PROBE, name)) as f:
        return json.load(f)


def ab(pairs):
    return [(p["a"], p["b"]) for p in pairs]


def whole(f):
    return (f.check, f.severity, f.hosts, f.message, f.observed, f.expected, f.fix)


# ---------------------------------------------------------------- the planner, replayed

def test_the_planner_on_the_cpu_starved_h100_run():
    first = doc("h100x4-ssh-slow.json")["pairs"]
    assert plan.rounds(LIVE) == [[("gpu01", "gpu04"), ("gpu02", "gpu03")], [("gpu01", "gpu02"), ("gpu03", "gpu04")],
                                 [("gpu01", "gpu03"), ("gpu04", "gpu02")]]
    assert ab(first) == [x for r in plan.rounds(LIVE) for x in r]  # the rounds the run measured, in order
    med, slow = plan.suspects(first, 0.5)
    assert med == pytest.approx(3.225) and ab(slow) == [("gpu01", "gpu04"), ("gpu03", "gpu04"), ("gpu04", "gpu02")]
    assert plan.fast_nodes(first, slow) == {"gpu01", "gpu02", "gpu03"}
    # every node was in a slow pair: no partner for a second pass; the first pass names gpu04 alone
    assert plan.second_pass(LIVE, slow, [], plan.fast_nodes(first, slow)) == ([], ["gpu01", "gpu04", "gpu03", "gpu02"])
    assert plan.unheard(LIVE, first) == []
    iso = plan.isolate(first, [])
    assert iso == {"median": pytest.approx(3.225), "slow_nodes": ["gpu04"], "slow_links": [], "unconfirmed": [],
                   "failed": []}


def test_the_planner_on_the_wrong_ifname_h100_run():
    first = doc("h100x4-ssh-ifname.json")["pairs"]
    ok = [p for p in first if not p["error"]]
    med, slow = plan.suspects(ok, 0.5)
    assert med == pytest.approx(3.603) and slow == []
    bad = [p for p in first if p["error"]]
    assert plan.fast_nodes(first, slow) == {"gpu01", "gpu03", "gpu04"}
    good = [h for h in LIVE if not any(h in (p["a"], p["b"]) for p in bad)]
    assert good == []
    rounds, sus = plan.second_pass(LIVE, bad, good, plan.fast_nodes(first, slow))
    assert rounds == [] and sus == ["gpu02", "gpu03", "gpu01", "gpu04"]  # failed pairs are not measured again
    iso = plan.isolate(first, [])
    assert iso["median"] == pytest.approx(3.603) and iso["slow_nodes"] == [] and iso["slow_links"] == []
    assert ab(iso["failed"]) == [("gpu02", "gpu03"), ("gpu01", "gpu02"), ("gpu04", "gpu02")]


def test_suspects_bounds():
    pairs = doc("h100x4-ssh-healthy.json")["pairs"]  # median of the best pairs: 3.527
    assert plan.suspects(pairs, 0.5) == (pytest.approx(3.527), [])
    at = copy.deepcopy(pairs)
    at[2]["gbps_ab"] = at[2]["gbps_ba"] = 3.527 / 2  # exactly half the reference: not slow
    assert plan.suspects(at, 0.5)[1] == []
    at[2]["gbps_ba"] = 3.527 / 2 - 0.001  # the slower direction counts
    assert ab(plan.suspects(at, 0.5)[1]) == [("gpu01", "gpu02")]
    none = [dict(p, gbps_ab=None, gbps_ba=None) for p in pairs]
    assert plan.suspects(none) == (None, [])
    assert plan.suspects(none[:1] + pairs[1:], 0.5) == (pytest.approx(3.3595), [])  # no figure: not slow, not counted


def test_second_pass_pairs_each_suspect_with_two_fast_partners():
    slow = [{"a": "n1", "b": "n2"}, {"a": "n3", "b": "n1", "error": "x"}]
    rounds, sus = plan.second_pass(["n%d" % i for i in range(1, 7)], slow, ["n4", "n5", "n6"],
                                   {"n1", "n2", "n4", "n5", "n6"})
    assert sus == ["n1", "n2", "n3"]
    assert rounds == [[("n1", "n2"), ("n3", "n6")], [("n1", "n4"), ("n2", "n5")], [("n1", "n5"), ("n2", "n6"), ("n3", "n4")]]
    # fast_nodes not given: every node is fast, so the slow pair is measured again
    assert plan.second_pass(["n1", "n2", "n3"], slow[:1], ["n3"])[0] == [[("n1", "n2")], [("n1", "n3")]]
    # an end that was slow with everyone: its slow pair is not measured again, only with partners
    assert plan.second_pass(["n1", "n2", "n3"], slow[:1], ["n3"], {"n2", "n3"})[0] == [[("n1", "n3")]]
    # one partner for two suspects: the second finds it used
    assert plan.second_pass(["n1", "n2", "n4"], slow[:1], ["n4"], set())[0] == [[("n1", "n4")]]


def test_unheard_nodes_listen_once():
    pairs = [{"a": "a", "b": "b"}, {"a": "a", "b": "c"}, {"a": "d", "b": "c"}]
    assert plan.unheard(["a", "b", "c", "d", "e"], pairs) == [("b", "a"), ("c", "a")]


def test_rounds_with_an_odd_count_rest_one_node():
    assert plan.rounds(["a", "b", "c"]) == [[("b", "c")], [("a", "b")], [("a", "c")]]
    assert plan.rounds(["a"]) == [] and plan.rounds([]) == []
    assert plan.rounds(["a", "b"]) == [[("a", "b")]]


def _slow_link(readings):
    """The healthy run with gpu01<->gpu02 read at each of ``readings`` (GB/s busbw; the first replaces the recorded
    2.706, the rest are second-pass readings)."""
    d = doc("h100x4-ssh-healthy.json")
    p = d["pairs"][2]
    assert ab([p]) == [("gpu01", "gpu02")]
    p["gbps"] = p["gbps_ab"] = p["gbps_ba"] = readings[0]
    second = [dict(p, gbps=r, gbps_ab=r, gbps_ba=r, **{"pass": 2}) for r in readings[1:]]
    return d, d["pairs"], second


def test_a_slow_link_read_twice_is_named_once_unconfirmed():
    d, first, second = _slow_link([0.35, 0.3])
    iso = plan.isolate(first, second)
    assert iso["median"] == pytest.approx(3.527) and iso["slow_nodes"] == [] and iso["unconfirmed"] == []
    assert [(p["a"], p["b"], p["gbps"]) for p in iso["slow_links"]] == [("gpu01", "gpu02", 0.3)]  # the worst reading
    d, first, second = _slow_link([0.35])
    iso = plan.isolate(first, second)
    assert iso["slow_links"] == [] and [(p["a"], p["b"], p["gbps"]) for p in iso["unconfirmed"]] == [
        ("gpu01", "gpu02", 0.35)]
    d, first, second = _slow_link([0.35, 3.0])  # one fast reading: the slow one was noise
    iso = plan.isolate(first, second)
    assert iso["slow_links"] == [] and iso["unconfirmed"] == [] and iso["slow_nodes"] == []
    d, first, second = _slow_link([3.527 / 2, 3.527 / 2])  # at the bound: not slow
    assert plan.isolate(first, second)["slow_links"] == []


def test_a_node_slow_only_with_slow_peers_is_not_named():
    """gpu04's three pairs of the starved run, alone: no peer of it is fast with anyone, so nobody is named."""
    first = [p for p in doc("h100x4-ssh-slow.json")["pairs"] if "gpu04" in (p["a"], p["b"])]
    iso = plan.isolate(first, [])
    assert iso["slow_nodes"] == [] and iso["slow_links"] == [] and iso["median"] == pytest.approx(0.3845)


# ---------------------------------------------------------------- the findings, whole

def test_the_slow_node_finding_on_the_cpu_starved_run():
    d = doc("h100x4-ssh-slow.json")
    (f,) = [x for x in findings.evaluate(d, {}) if x.check == "probe.node.slow"]
    assert whole(f) == (
        "probe.node.slow", "error", ["gpu04"],
        "gpu04 is slow with every peer: gpu01 0.314, gpu03 0.381, gpu02 0.388 (GB/s busbw; a healthy pair here: "
        "3.23 GB/s busbw, the median of the nodes' best pairs)",
        "0.314 GB/s busbw with every peer", ">= 0.5 x the median (3.23 GB/s busbw)",
        "check gpu04's link: ethtool <iface> (speed, errors), ip -s link, tc qdisc show, ibstat/ibv_devinfo for RDMA "
        "ports; over sockets also its CPUs (NCCL's socket threads are CPU-bound): processes competing with the job "
        "(top -H), the job's CPU affinity and cgroup limit (taskset -cp <pid>, cpu.max); drain it from the job until "
        "fixed")
    d["mode"] = "tcp"
    for p in d["pairs"]:
        p["transport"] = None  # TCP mode: no NCCL transport; the CPU clause is for sockets only
    (f,) = [x for x in findings.evaluate(d, {}) if x.check == "probe.node.slow"]
    assert f.message.endswith("(Gbit/s; a healthy pair here: 3.23 Gbit/s, the median of the nodes' best pairs)")
    assert f.fix.endswith("ibstat/ibv_devinfo for RDMA ports; drain it from the job until fixed")
    del d["isolation"]["median_gbps"]
    for p in d["pairs"]:
        p["gbps"] = None
    (f,) = [x for x in findings.evaluate(d, {}) if x.check == "probe.node.slow"]
    assert f.message == ("gpu04 is slow with every peer:  (Gbit/s; a healthy pair here: n/a, the median of the "
                         "nodes' best pairs)") and f.observed is None and f.expected == ">= 0.5 x the median (n/a)"


def test_the_failed_node_finding_on_the_wrong_ifname_run():
    d = doc("h100x4-ssh-ifname.json")
    got = findings.evaluate(d, {})
    assert [x.check for x in got] == ["probe.node.failed"]
    err = [n for n in d["nodes"] if n["host"] == "gpu02"][0]["error"]
    assert whole(got[0]) == ("probe.node.failed", "error", ["gpu02"], "the probe could not run on gpu02 (init-failed): "
                             "gpu02: " + err, "init-failed", None,
                             "torch.distributed / NCCL init raised: see the error, then `gpudoctor explain` on it")
    assert err.endswith("Bootstrap : no socket interface found")
    # the node's own record gone: its pairs' blame names it, once, with the first pair
    d["nodes"][1]["error_kind"] = None
    (f,) = [x for x in findings.evaluate(d, {}) if x.check == "probe.node.failed"]
    first = [p for p in d["pairs"] if p["error"]][0]
    assert f.hosts == ["gpu02"] and f.message == (
        "the probe could not run on gpu02 (init-failed): gpu02: in the pair gpu02<->gpu03: " + first["error"])
    # a pair whose failure blames nobody, or a kind that is no node's fault, names no node
    for p in d["pairs"]:
        p["blame"] = None
    assert [x.check for x in findings.evaluate(d, {})] == []


def test_failed_nodes_by_kind_and_the_hints():
    d = {"nodes": [{"host": "n1", "error_kind": "no-gpu", "error": "none visible"}, {"host": "n2", "error_kind": "hang"},
                   {"host": "n3", "error_kind": "stopped"}, {"host": "n4", "error_kind": "weird-kind"},
                   {"host": "n5", "error_kind": "no-gpu", "error": "x"}],
         "pairs": [{"a": "n6", "b": "n1", "error": "e", "error_kind": "init-hang", "blame": "n6"},
                   {"a": "n7", "b": "n6", "error": "e2", "error_kind": "init-hang", "blame": "n6"},
                   {"a": "n8", "b": "n1", "error": "e3", "error_kind": "no-gpu", "blame": "n1"},
                   {"a": "n2", "b": "n8", "error": "e5", "error_kind": "init-hang", "blame": "n2"},  # n2 failed: named once
                   {"a": "n8", "b": "n9", "error": "e4", "error_kind": "port-refused", "blame": "n9"},
                   {"a": "n8", "b": "n9", "error": None, "error_kind": "hang", "blame": "n8"}]}
    got = [whole(f) for f in findings.evaluate(d, {}) if f.check == "probe.node.failed"]  # (n9: probe.port.blocked)
    assert got == [
        ("probe.node.failed", "error", ["n2"], "the probe could not run on n2 (hang): n2: hang", "hang", None,
         findings.PROBE_HINTS["hang"]),
        ("probe.node.failed", "error", ["n6"], "the probe could not run on n6 (init-hang): n6: in the pair n6<->n1: e",
         "init-hang", None, findings.PROBE_HINTS["init-hang"]),
        ("probe.node.failed", "error", ["n1", "n5"], "the probe could not run on n1,n5 (no-gpu): n1: none visible; n5: x",
         "no-gpu", None, findings.PROBE_HINTS["no-gpu"]),
        ("probe.node.failed", "error", ["n4"], "the probe could not run on n4 (weird-kind): n4: weird-kind", "weird-kind",
         None, "see the error"),
    ]
    assert findings._hint("no-torch") == findings.PROBE_HINTS["no-torch"]


def test_a_slow_link_finding_from_the_healthy_run_with_one_pair_slowed():
    d, first, second = _slow_link([0.35, 0.3])
    d["pairs"] = first + second
    d["isolation"].update({"slow_links": [["gpu01", "gpu02"]], "unconfirmed_links": [["gpu03", "gpu04"]]})
    got = [whole(f) for f in findings.evaluate(d, {}) if f.check == "probe.link.slow"]
    assert got == [
        ("probe.link.slow", "warning", ["gpu01", "gpu02"], "the link gpu01<->gpu02 is slow: 0.3 GB/s busbw while both "
         "nodes are fast with other peers (median 3.53 GB/s busbw)", "0.3 GB/s busbw", ">= 0.5 x the median "
         "(3.53 GB/s busbw)", "look at the path between gpu01 and gpu02: the switch ports, cables, a congested uplink "
         "(ibnetdiscover / the switch's counters)"),
        ("probe.link.slow", "info", ["gpu03", "gpu04"], "one reading of gpu03<->gpu04 was slow; the budget left no time "
         "to measure it again", None, None, "a larger --budget lets the second pass confirm it"),
    ]


def test_port_findings():
    d = {"ports": [29600, 29699], "nodes": [{"host": "n1", "first_port_taken": True}, {"host": "n2"},
                                             {"host": "n3", "first_port_taken": True}],
         "pairs": [{"a": "n2", "b": "n1", "error": "timed out", "error_kind": "port-blocked", "blame": "n2",
                    "port": 29601},
                   {"a": "n3", "b": "n1", "error": "refused", "error_kind": "port-refused", "blame": "n3", "port": 29602}]}
    got = [whole(f) for f in findings.evaluate(d, {})]
    assert got[0] == ("probe.port.in_use", "warning", ["n1", "n3"], "port 29600, the first of the job's range "
                      "(torchrun's default MASTER_PORT is 29500), is already in use on n1,n3: a job whose rendezvous is "
                      "there fails with 'address already in use'", "port 29600 in use", "port 29600 free for the "
                      "rendezvous", "ss -ltnp 'sport = :29600' on n1,n3 shows who holds it; end it, or give the job "
                      "another --master_port (and the probe another --ports)")
    assert got[1:] == [
        ("probe.port.blocked", "error", ["n2"], "n2 refuses the job's port 29601: n1 could not connect (timed out)",
         "timed out", "peers connect to the job's port range", "open the job's ports on n2, e.g. firewall-cmd "
         "--permanent --add-port=29600-29699/tcp && firewall-cmd --reload (or the matching iptables/nftables rule); "
         "the rendezvous and NCCL's bootstrap use them"),
        ("probe.port.blocked", "error", ["n3"], "n3 refuses the job's port 29602: n1 could not connect (refused)",
         "refused", "peers connect to the job's port range", "open the job's ports on n3, e.g. firewall-cmd "
         "--permanent --add-port=29600-29699/tcp && firewall-cmd --reload (or the matching iptables/nftables rule); "
         "the rendezvous and NCCL's bootstrap use them"),
    ]
    del d["ports"]
    assert findings.evaluate(d, {})[0].message.startswith("port 29500, the first of the job's range")


@pytest.mark.parametrize("transport, yes", [("NET/Socket over eth0", True), ("NET/IB/0", False), (None, False),
                                            ("", False), ("P2P/CUMEM", False)])
def test_on_sockets(transport, yes):
    assert findings._on_sockets({"transport": transport}) is yes


def test_fmt():
    assert findings._fmt(3.2249, "GB/s busbw") == "3.22 GB/s busbw" and findings._fmt(None, "x") == "n/a"
    assert findings._fmt(0, "Gbit/s") == "0 Gbit/s"


def test_a_failed_kind_names_every_node_and_shows_five():
    d = {"nodes": [{"host": "n%d" % i, "error_kind": "no-torch", "error": "e%d" % i} for i in range(1, 7)]}
    (f,) = findings.evaluate(d, {})
    assert f.hosts == ["n1", "n2", "n3", "n4", "n5", "n6"] and f.message == (
        "the probe could not run on n1,n2,n3,n4,n5,n6 (no-torch): n1: e1; n2: e2; n3: e3; n4: e4; n5: e5")


def test_a_listener_reached_elsewhere_passes_the_blame_to_a_refusing_peer_or_to_nobody():
    ok = {"a": "n1", "b": "n2", "gbps": 3.0, "error": None}
    blocked = {"a": "n1", "b": "n3", "error": "t", "error_kind": "port-blocked", "blame": "n1", "port": 29501}
    refused = {"a": "n3", "b": "n2", "error": "r", "error_kind": "port-refused", "blame": "n3", "port": 29502}
    assert findings.evaluate({"pairs": [ok, blocked]}, {}) == []  # n1 was reached, n3 never refused: nobody
    (f,) = findings.evaluate({"pairs": [ok, blocked, refused]}, {})
    assert (f.check, f.hosts, f.message, f.observed) == (
        "probe.port.blocked", ["n3"], "n3 refuses the job's port 29501: n1,n2 could not connect (t)", "t")
    assert f.fix.startswith("open the job's ports on n3, e.g. firewall-cmd --permanent --add-port=29500-29599/tcp")
    # a failed pair that reached nothing does not make its listener reached
    (f,) = findings.evaluate({"pairs": [dict(ok, gbps=None), blocked]}, {})
    assert f.hosts == ["n1"] and f.message == "n1 refuses the job's port 29501: n3 could not connect (t)"
    (f,) = findings.evaluate({"pairs": [dict(ok, error="x", error_kind="init-failed"), blocked]}, {})
    assert f.hosts == ["n1"]


def _tcp(kind="physical", speed=100000, slow_nodes=()):
    """The healthy run read as a TCP-mode document (its figures as Gbit/s), each node's address on an interface of
    ``speed`` Mbit/s (facts' network section as the collector writes it)."""
    d = doc("h100x4-ssh-healthy.json")
    d["mode"], d["jobs"] = "tcp", []  # no NCCL job in TCP mode
    d["isolation"]["slow_nodes"] = list(slow_nodes)
    d["addresses"] = {h: "10.0.0.%d" % i for i, h in enumerate(LIVE, 1)}
    facts = {h: {"network": {"interfaces": [
        {"name": "lo", "kind": "loopback", "ipv4": [{"address": "127.0.0.1"}]},
        {"name": "eth0", "kind": kind, "speed_mbps": speed, "ipv4": [{"address": d["addresses"][h]}]}]}}
        for h in LIVE}
    return d, facts


def test_tcp_throughput_against_the_line_rate():
    d, facts = _tcp()
    (f,) = [x for x in findings.evaluate(d, facts) if x.check == "probe.bandwidth.line_rate"]
    assert whole(f) == (
        "probe.bandwidth.line_rate", "warning", LIVE,
        "TCP throughput under 0.5 x the line rate (sysfs speed of the interfaces that carry the nodes' addresses): "
        "gpu01<->gpu04 3.44 Gbit/s of 100 Gbit/s; gpu02<->gpu03 3.62 Gbit/s of 100 Gbit/s; gpu01<->gpu02 2.71 Gbit/s "
        "of 100 Gbit/s; gpu03<->gpu04 3.1 Gbit/s of 100 Gbit/s; gpu01<->gpu03 2.98 Gbit/s of 100 Gbit/s (and 1 more)",
        "3.44 Gbit/s", ">= 50 Gbit/s",
        "ethtool -S <iface> (drops, pause frames), the MTU on both ends and the switch port; a single TCP flow rarely "
        "fills 100 Gb/s+, NCCL's probe (--mode nccl) is the judge there")
    d, facts = _tcp(slow_nodes=["gpu04"])  # gpu04's pairs are the slow-node finding's
    (f,) = [x for x in findings.evaluate(d, facts) if x.check == "probe.bandwidth.line_rate"]
    assert f.hosts == ["gpu01", "gpu02", "gpu03"] and f.message.endswith(
        "gpu02<->gpu03 3.62 Gbit/s of 100 Gbit/s; gpu01<->gpu02 2.71 Gbit/s of 100 Gbit/s; gpu01<->gpu03 2.98 Gbit/s "
        "of 100 Gbit/s")
    for kind in ("bond", "vlan", "ipoib"):
        assert "probe.bandwidth.line_rate" in [x.check for x in findings.evaluate(*_tcp(kind=kind))]
    for args in ({"kind": "veth"}, {"speed": 5000}, {"speed": None}):  # a nominal speed; at the bound (2.5 < 2.706)
        assert "probe.bandwidth.line_rate" not in [x.check for x in findings.evaluate(*_tcp(**args))]
    d, facts = _tcp()
    del facts["gpu04"]  # one end's speed unknown: its pairs are not judged
    (f,) = [x for x in findings.evaluate(d, facts) if x.check == "probe.bandwidth.line_rate"]
    assert f.hosts == ["gpu01", "gpu02", "gpu03"]
    d["mode"] = "nccl"
    assert "probe.bandwidth.line_rate" not in [x.check for x in findings.evaluate(d, facts)]


def test_round16_after_run_survivors():
    """The probe survivors of the first after-run (docs/mutation.md, Round 16), each by the input that tells it apart."""
    from gpudoctor.transport.ssh import HINTS

    assert findings._hint("refused") == HINTS["refused"]  # a transport's kind: its own hint
    d = doc("h100x4-ssh-slow.json")  # a failed pair is no measurement: gpu04 stays slow with every measured peer
    assert plan.isolate(d["pairs"] + [{"a": "gpu04", "b": "gpu05", "error": "x", "gbps_ab": None, "gbps_ba": None}],
                        [])["slow_nodes"] == ["gpu04"]
    # a slow pair that failed is never measured again, even between fast ends
    assert plan.second_pass(["n1", "n2", "n3"], [{"a": "n1", "b": "n2", "error": "x"}], ["n3"],
                            {"n1", "n2", "n3"})[0] == [[("n1", "n3")]]
    ok = {"a": "n1", "b": "n2", "gbps": 3.0, "error": None}
    skipped = {"a": "n1", "b": "n3", "error": "t", "error_kind": "port-blocked", "blame": "n1", "port": 29501}
    other = {"a": "n4", "b": "n5", "error": "r", "error_kind": "port-refused", "blame": "n4", "port": 29502}
    assert [f.hosts for f in findings.evaluate({"pairs": [ok, skipped, other]}, {})] == [["n4"]]  # after a skipped one
    assert "probe.bandwidth.line_rate" not in [x.check for x in findings.evaluate(*_tcp(speed=5412))]  # 2.706 = half
    d, facts = _tcp()
    d["pairs"][3]["gbps"] = 60.0  # five pairs under the line rate: all shown, no '(and 0 more)'
    (f,) = [x for x in findings.evaluate(d, facts) if x.check == "probe.bandwidth.line_rate"]
    assert f.message.endswith("gpu01<->gpu03 2.98 Gbit/s of 100 Gbit/s; gpu04<->gpu02 2.89 Gbit/s of 100 Gbit/s")
    facts["gpu04"]["network"]["interfaces"][1]["speed_mbps"] = 25000  # the first pair's line, not the second's
    (f,) = [x for x in findings.evaluate(d, facts) if x.check == "probe.bandwidth.line_rate"]
    assert (f.observed, f.expected) == ("3.44 Gbit/s", ">= 12.5 Gbit/s")
