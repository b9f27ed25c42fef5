"""The probe's pure parts over recorded real data: rounds, isolation, nccl-tests arithmetic,
NCCL INFO parsing, findings and the step estimate (fixtures/probe/: a real 2x H200 host)."""

import io
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT, node_facts
from gpudoctor.probe import findings, metrics, nccl_log, plan, report

PROBE = os.path.join(FIXTURES, "probe")
LOGS = os.path.join(FIXTURES, "logs")


def doc(name):
    with open(os.path.join(PROBE, name)) as f:
        return json.load(f)


def by_check(found):
    out = {}
    for f in found:
        out.setdefault(f.check, []).append(f)
    return out


# ---------------------------------------------------------------- rounds and isolation

@pytest.mark.parametrize("n", range(2, 10))
def test_rounds_cover_every_pair_once_as_perfect_matchings(n):
    nodes = ["n%d" % i for i in range(n)]
    rounds = plan.rounds(nodes)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    pairs = [frozenset(p) for r in rounds for p in r]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
    for r in rounds:
        flat = [h for p in r for h in p]
        assert len(flat) == len(set(flat))  # no node twice in a round
        assert len(r) == n // 2  # a perfect matching (one node rests when n is odd)


def P(a, b, g, g2=None):
    return {"a": a, "b": b, "gbps_ab": g, "gbps_ba": g if g2 is None else g2}


def test_a_node_slow_with_everyone_is_the_slow_node_even_when_most_pairs_include_it():
    pairs = [P("n1", "n2", 10), P("n1", "s", 0.02), P("n2", "s", 0.03), P("n3", "s", 0.02), P("n1", "n3", 9)]
    iso = plan.isolate(pairs, [])
    assert iso["slow_nodes"] == ["s"] and iso["slow_links"] == []
    assert iso["median"] == 9.5  # the median of the nodes' best pairs: 10, 10, 9, 0.03


def test_a_slow_pair_whose_ends_are_fast_elsewhere_is_a_link_once_measured_twice():
    pairs = [P("n1", "n2", 10), P("n3", "n4", 9), P("n1", "n3", 0.5), P("n2", "n4", 11), P("n1", "n4", 10)]
    iso = plan.isolate(pairs, [])
    assert iso["slow_links"] == [] and [(p["a"], p["b"]) for p in iso["unconfirmed"]] == [("n1", "n3")]
    iso = plan.isolate(pairs, [P("n3", "n1", 0.6)])  # the second pass: slow again
    assert iso["slow_nodes"] == [] and [(p["a"], p["b"]) for p in iso["slow_links"]] == [("n1", "n3")]


def test_one_fast_reading_of_a_link_clears_it():
    # a noisy first reading (a busy host) is not a slow link when the second pass measures it well
    iso = plan.isolate([P("n1", "n2", 10), P("n3", "n4", 9), P("n1", "n3", 3), P("n2", "n4", 11)],
                       [P("n1", "n3", 9.5)])
    assert iso["slow_links"] == [] and iso["unconfirmed"] == [] and iso["slow_nodes"] == []


def test_the_slower_direction_judges_a_pair():
    iso = plan.isolate([P("n1", "n2", 10), P("n2", "n3", 10), P("n1", "n3", 10, 0.1)], [P("n3", "n1", 0.1, 10)])
    assert [(p["a"], p["b"]) for p in iso["slow_links"]] == [("n1", "n3")]


def test_healthy_spread_names_nobody():
    iso = plan.isolate([P("a", "b", 10), P("c", "d", 7), P("a", "c", 8), P("b", "d", 6)], [])
    assert iso["slow_nodes"] == [] and iso["slow_links"] == []


def test_second_pass_pairs_suspects_with_good_nodes_and_unheard_nodes_listen():
    rounds, sus = plan.second_pass(["n1", "n2", "n3", "s"], [P("n1", "s", 0.1)], ["n2", "n3"])
    assert sus == ["n1", "s"]
    pairs = [p for r in rounds for p in r]
    assert pairs[0] == ("n1", "s")  # the slow pair again, then each suspect with good nodes
    assert all(set(p) & {"n2", "n3"} for p in pairs[1:]) and len(pairs) == 5
    for r in rounds:
        flat = [h for p in r for h in p]
        assert len(flat) == len(set(flat))
    assert plan.unheard(["a", "b", "c"], [{"a": "a", "b": "b"}, {"a": "a", "b": "c"}]) == [("b", "a"), ("c", "a")]


# ---------------------------------------------------------------- nccl-tests arithmetic

def test_busbw_factors_are_nccl_tests_own():
    # nccl-tests src/all_reduce.cu (a0b82b2): factor = 2*(nranks-1)/nranks;
    # src/all_gather.cu: baseBw = count*typesize*nranks/sec, factor = (nranks-1)/nranks
    assert metrics.bus_factor("all_reduce", 8) == pytest.approx(1.75)
    assert metrics.bus_factor("all_gather", 8) == pytest.approx(0.875)
    assert metrics.bus_factor("all_reduce", 2) == 1.0
    assert metrics.bus_factor("all_reduce", 1) == 0.0


def test_our_algbw_matches_all_reduce_perf_rows_recorded_on_the_h200_host():
    rows = 0
    for line in open(os.path.join(PROBE, "h200x2-nccl-tests-all-reduce-perf-nvlink.txt")):
        m = re.match(r"^\s+(\d+)\s+(\d+)\s+float\s+sum\s+-?\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+\d+", line)
        if not m:
            continue
        size, usec, algbw, busbw = int(m.group(1)), float(m.group(3)), float(m.group(4)), float(m.group(5))
        # the table prints time to 0.01 us and bandwidth to 0.01 GB/s: agree within that rounding
        assert metrics.algbw_gbps(size, usec * 1e-6) == pytest.approx(algbw, rel=1e-3, abs=0.011)
        assert metrics.busbw_gbps("all_reduce", size, usec * 1e-6, 2) == pytest.approx(busbw, rel=1e-3, abs=0.011)
        rows += 1
    assert rows == 11  # 1 MiB .. 1 GiB


def test_probe_busbw_agrees_with_all_reduce_perf_on_the_same_host():
    probe = {c["bytes"]: c["busbw_gbps"] for c in doc("h200x2-one-node-nvlink.json")["collectives"]
             if c["op"] == "all_reduce"}
    nt = {}
    for line in open(os.path.join(PROBE, "h200x2-nccl-tests-all-reduce-perf-nvlink.txt")):
        m = re.match(r"^\s+(\d+)\s+\d+\s+float\s+sum\s+-?\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)", line)
        if m:
            nt[int(m.group(1))] = float(m.group(2))
    big = [s for s in probe if s >= 64 << 20]
    assert big and all(abs(probe[s] - nt[s]) / nt[s] < 0.10 for s in big)  # within 10% where bandwidth-bound


def test_step_estimate_is_ring_all_reduce_bytes_over_busbw():
    # 7e9 bf16 gradients = 14 GB; 2 ranks move 2(n-1)/n = 1x that; at 326.26 GB/s: 42.9 ms
    step = report.estimate(doc("h200x2-one-node-nvlink.json"), 7e9, "bf16")
    (single,) = step["scenarios"]
    assert single["name"] == "single node" and single["nranks"] == 2
    assert single["seconds"] == pytest.approx(14e9 / (single["busbw_gbps"] * 1e9))
    assert metrics.allreduce_seconds(14e9, 100.0, 16) == pytest.approx(14e9 * 2 * 15 / 16 / 100e9)
    sock = report.estimate(doc("h200x2-two-groups-socket.json"), 7e9, "bf16")["scenarios"][0]
    assert sock["name"] == "all nodes" and sock["seconds"] > 50 * single["seconds"]  # the drop, computed
    assert metrics.parse_count("7B") == 7e9 and metrics.parse_count("350M") == 3.5e8


# ---------------------------------------------------------------- NCCL INFO lines

def read_log(path):
    with open(path, errors="replace") as f:
        return f.read().splitlines()


def test_parser_reads_the_transport_nccl_chose_on_the_h200_host():
    s = nccl_log.parse(read_log(os.path.join(LOGS, "healthy", "healthy__h200x2-torchrun-nvlink-allreduce.log")))
    assert s["version"] == "2.28.9+cuda13.0" and s["network"] == "Socket"
    assert nccl_log.transports(s) == {"inter": [], "intra": ["P2P/CUMEM"]}
    assert s["socket_ifs"] == [{"index": 0, "name": "eth0", "addr": "192.0.2.2<0>"}]
    assert {(c["src"], c["dst"]) for c in s["connections"]} == {(0, 1), (1, 0)}
    assert s["ranks"][1]["host"] == "vm" and s["ranks"][1]["cuda_dev"] == 1


def test_parser_sees_sockets_between_gpus_of_one_host():
    s = nccl_log.parse(read_log(os.path.join(LOGS, "healthy",
                                             "healthy__h200x2-torchrun-p2p-shm-disabled-socket.log")))
    assert nccl_log.transports(s) == {"inter": [], "intra": ["NET/Socket"]}  # NCCL's own host names: one host
    assert nccl_log.describe(s) == "in-node NET/Socket"
    assert s["env"].get("NCCL_P2P_DISABLE") == "1"


def test_parser_reads_ib_with_gdrdma_from_pre_2_7_ring_lines():
    s = nccl_log.parse(read_log(os.path.join(LOGS, "healthy", "healthy__nccl-385-ring-lines-two-nodes.log")))
    t = nccl_log.transports(s)
    assert t == {"inter": ["NET/IB+GDRDMA"], "intra": ["P2P/IPC"]}


def test_parser_reads_roce_devices_and_gdr_disabled():
    s = nccl_log.parse(read_log(os.path.join(LOGS, "dev", "rdma.peermem__nccl-1537-gdr-disabled-roce.log")))
    assert [(d["device"], d["port"], d["link"]) for d in s["ib_devices"]] == [("mlx5_0", 1, "RoCE"),
                                                                              ("mlx5_1", 1, "RoCE")]
    assert s["oob_if"] == "primaryip" and s["gdr"] == {"mlx5_0": False, "mlx5_1": False}


@pytest.mark.parametrize("via,kind,gdr", [
    # the formats of src/transport/{p2p,shm,net}.cc (NVIDIA/nccl v2.30) and older releases
    ("P2P/CUMEM/read", "P2P/CUMEM", False), ("P2P/CUMEM/CE", "P2P/CUMEM", False), ("P2P/IPC", "P2P/IPC", False),
    ("P2P/IPC/read", "P2P/IPC", False), ("P2P/MNNVL", "P2P/MNNVL", False), ("P2P/direct", "P2P/direct", False),
    ("P2P/indirect/3[3]", "P2P/indirect", False), ("SHM/direct/direct", "SHM", False), ("SHM/direct", "SHM", False),
    ("NET/IB/0/GDRDMA", "NET/IB", True), ("NET/IB/1(5)/GDRDMA(PCI)", "NET/IB", True), ("NET/IB/0", "NET/IB", False),
    ("NET/Socket/1", "NET/Socket", False), ("NET/IBext/0/GDRDMA/Shared", "NET/IBext", True),
])
def test_kind_of_every_via_form(via, kind, gdr):
    assert nccl_log.kind_of(via) == (kind, gdr)


def test_probe_documents_name_the_transport_from_the_kept_lines():
    assert doc("h200x2-one-node-nvlink.json")["jobs"][0]["transport"] == "in-node P2P/CUMEM"
    sock = doc("h200x2-two-groups-socket.json")["jobs"][0]
    assert sock["transport"] == "NET/Socket over eth0" and sock["ok"] and sock["correct"]
    again = nccl_log.parse(sock["nccl_log"])  # the parser over the lines NCCL printed there
    assert nccl_log.transports(again, {int(k): v for k, v in sock["ranks"].items()}) == {
        "inter": ["NET/Socket"], "intra": []}
    assert doc("h200x2-two-groups-shm.json")["jobs"][0]["transport"] == "SHM"


# ---------------------------------------------------------------- findings

def test_healthy_nvlink_node_has_no_findings():
    d = doc("h200x2-one-node-nvlink.json")
    assert findings.evaluate(d, {"h200x2": node_facts("h200x2-ubuntu2404-torch211")}) == []


def test_gpus_of_one_host_on_sockets_are_p2p_disabled():
    f = by_check(findings.evaluate(doc("h200x2-two-groups-socket.json"), {}))
    assert list(f) == ["probe.nccl.p2p_disabled"]
    assert "NET/Socket" in f["probe.nccl.p2p_disabled"][0].message
    assert f["probe.nccl.p2p_disabled"][0].fix == "unset NCCL_P2P_DISABLE"


def roce_facts():
    """The H200 host's facts with one ACTIVE RoCE port added (sysfs layout of collector/rdma.py)."""
    f = node_facts("h200x2-ubuntu2404-torch211")
    f["rdma"] = {"status": "ok", "devices": [{"name": "mlx5_0", "ports": [{
        "port": 1, "state": "ACTIVE", "link_layer": "Ethernet", "rate_gbps": 200, "rate": "200 Gb/sec (4X HDR)",
        "gids": [{"index": 1, "gid": "fe80::1", "type": "RoCE v2", "ipv4": None},
                 {"index": 3, "gid": "::ffff:10.0.0.2", "type": "RoCE v2", "ipv4": "10.0.0.2"}]}]}],
        "dev_infiniband": ["rdma_cm"], "gdr_modules_loaded": []}
    f["host"]["container"] = "docker"
    return f


def test_sockets_between_nodes_with_active_rdma_ports_get_the_fix_from_their_facts():
    d = doc("h200x2-two-groups-socket.json")
    d["jobs"][0]["nccl"]["connections"] = []  # judge it as two machines (drop NCCL's same-host evidence)
    facts = {"h200x2-g0": roce_facts(), "h200x2-g1": roce_facts()}
    f = by_check(findings.evaluate(d, facts))
    (s,) = f["probe.nccl.socket_with_rdma"]
    assert s.severity == "error" and s.exports == {"NCCL_NET": "IB", "NCCL_IB_HCA": "mlx5_0", "NCCL_IB_GID_INDEX": "3"}
    assert "--device=/dev/infiniband --ulimit memlock=-1" in s.fix  # a container without uverbs devices
    # no RDMA on the nodes: sockets are all there is, no such finding
    plain = {h: node_facts("h200x2-ubuntu2404-torch211") for h in facts}
    assert "probe.nccl.socket_with_rdma" not in by_check(findings.evaluate(d, plain))


@pytest.mark.parametrize("speed_mbps,warned", [(100000, True), (25000, False)])
def test_busbw_is_judged_against_the_line_rate_nccl_used(speed_mbps, warned):
    # 3.92 GB/s busbw over eth0: under half of 100 Gb/s (12.5 GB/s), not of 25 Gb/s (3.1 GB/s)
    d = doc("h200x2-two-groups-socket.json")
    facts = {}
    for h in ("h200x2-g0", "h200x2-g1"):
        f = node_facts("h200x2-ubuntu2404-torch211")
        for i in f["network"]["interfaces"]:
            if i["name"] == "eth0":
                i["speed_mbps"] = speed_mbps
        facts[h] = f
    assert ("probe.bandwidth.line_rate" in by_check(findings.evaluate(d, facts))) is warned


def test_ib_without_gdrdma_and_an_outlier_node():
    def job(host, busbw, inter):
        return {"scope": "node" if not inter else "all", "hosts": [host] if not inter else ["a", "b"], "world": 8,
                "collectives": [{"op": "all_reduce", "bytes": 1 << 30, "busbw_gbps": busbw}],
                "nccl": {"transports": {"inter": inter, "intra": []}, "connections": [], "ib_devices": [],
                         "socket_ifs": []}}
    d = {"mode": "nccl", "nodes": [], "pairs": [], "jobs": [job("a", 300, []), job("b", 290, []), job("c", 120, []),
                                                            job("a", 40, ["NET/IB"])]}
    f = by_check(findings.evaluate(d, {}))
    assert [x.hosts for x in f["probe.bandwidth.outlier"]] == [["c"]]  # 120 < 0.5 x median 290
    assert "modprobe nvidia_peermem" in f["probe.nccl.gdr_unused"][0].fix


def test_failed_nodes_and_leftovers_are_findings():
    d = {"mode": "tcp", "nodes": [{"host": "x", "error_kind": "hang", "error": "no answer"}], "pairs": [],
         "jobs": [], "cleanup": {"x": {"found": 2, "left": 1}}}
    f = by_check(findings.evaluate(d, {}))
    assert f["probe.node.failed"][0].hosts == ["x"] and f["probe.cleanup"][0].severity == "error"
    assert report.exit_code(findings.evaluate(d, {})) == 1


def test_json_document_keeps_the_schema_fields(tmp_path):
    d = doc("h200x2-cli-local.json")
    assert d["schema"] == "gpudoctor.probe/1" and d["mode"] == "nccl"
    for key in ("nodes", "collectives", "pairs", "findings"):
        assert key in d
    n = d["nodes"][0]
    assert set(("host", "reachable", "error_kind")) <= set(n)
    c = d["collectives"][0]
    assert set(("op", "bytes", "algbw_gbps", "busbw_gbps", "transport")) <= set(c)
    assert d["step"]["scenarios"][0]["seconds"] > 0


def test_text_report_from_a_recorded_run():
    d = doc("h200x2-two-groups-socket.json")
    buf = io.StringIO()
    report.render_text(d, findings.evaluate(d, {}), buf, report.estimate(d, 7e9, "bf16"))
    out = buf.getvalue()
    assert "all nodes (2 ranks, NCCL 2.28.9): NET/Socket over eth0" in out
    assert "WARN probe.nccl.p2p_disabled" in out and "all nodes      2 ranks" in out


# ---------------------------------------------------------------- node side and CLI

def test_node_script_is_python36_and_stdlib_only():
    src = os.path.join(ROOT, "gpudoctor", "probe", "node.py")
    vermin = "import sys; from vermin.main import main; sys.exit(main())"
    p = subprocess.run([sys.executable, "-c", vermin, "--no-tips", "--violations", "-t=3.6-", src],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    tops = set(re.findall(r"^\s*(?:import|from) ([a-z_]+)", open(src).read(), re.M))
    assert tops <= {"errno", "hmac", "json", "os", "random", "signal", "socket", "subprocess", "sys", "threading", "time",
                    "importlib", "datetime", "torch"}  # torch only in the per-GPU child


@pytest.mark.parametrize("args,msg", [
    (["--budget", "-1"], "--budget"), (["--ports", "9-2"], "--ports"), (["--params", "lots"], "--params"),
    (["--max-size", "2T"], "--max-size"), (["--mode", "rdma"], "invalid choice"),
])
def test_bad_arguments_are_one_line_and_exit_2(args, msg):
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "probe", "--local"] + args, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and msg in p.stderr and "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("name,host,kind", [
    ("bad-ifname", "h200x2-g0", "init-failed"), ("no-gpu", "h200x2-g1", "no-gpu"),
    ("rank-killed", "h200x2-g1", "died"),
])
def test_real_nccl_failures_name_the_node_and_its_kind(name, host, kind):
    # recorded on the H200 host (bench/probe_h200_faults.py): the findings name the node the
    # failure came from, never the peer left waiting for it
    d = doc("h200x2-fault-%s.json" % name)
    f = by_check(findings.evaluate(d, {}))
    (failed,) = f["probe.node.failed"]
    assert failed.hosts == [host] and failed.observed == kind and failed.severity == "error"
    assert d["elapsed_s"] < 15 and all(c["left"] == 0 for c in d["cleanup"].values())


def test_real_nccl_sweep_stops_inside_its_budget():
    d = doc("h200x2-fault-budget.json")
    (job,) = d["jobs"]
    assert job["ok"] and job["truncated"] and d["elapsed_s"] <= d["budget_s"]
    assert max(c["bytes"] for c in job["collectives"]) < 1 << 30 or len(job["collectives"]) < 22
    assert "probe.budget" in by_check(findings.evaluate(d, {}))


def test_probe_over_ssh_on_the_h200_host():
    # `gpudoctor probe --hosts` over two sshd "nodes" of the real host (bench/probe_h200_ssh.sh)
    d = doc("h200x2-ssh-two-nodes.json")
    assert d["transport"] == "ssh" and d["mode"] == "nccl"  # auto: torch and a GPU on every node
    assert [(n["host"], n["gpus"], n["torch"]) for n in d["nodes"]] == [("gpu01", 1, True), ("gpu02", 1, True)]
    assert d["addresses"] == {"gpu01": "127.0.0.2", "gpu02": "127.0.0.3"}  # HostName from ssh_config
    (job,) = d["jobs"]
    assert job["ok"] and job["transport"] == "NET/Socket over eth0" and job["ranks"] == {"0": "gpu01", "1": "gpu02"}
    assert [f["check"] for f in d["findings"]] == ["probe.nccl.p2p_disabled"]
    assert all(c == {"found": 0, "left": 0} for c in d["cleanup"].values())


def test_latency_rows_recorded_on_the_h200_host():
    (job,) = doc("h200x2-cli-latency.json")["jobs"]
    assert [x["bytes"] for x in job["latency"]] == [8, 1024, 65536]
    assert all(5 < x["time_us"] < 1000 for x in job["latency"])  # tens of microseconds over NVLink


# ---------------------------------------------------------------- four one-GPU nodes on a real 4x H100 host
# fixtures/probe/h100x4-*: bench/probe_h100x4.sh over SSH (four sshd "nodes", one GPU each, NCCL over sockets),
# recorded 2026-11-27 on 4x H100 80GB HBM3 (driver 580.159.04, torch 2.11.0+cu130, NCCL 2.28.9)

def nt_busbw(name, sizes):
    """{size: best of out-of-place / in-place busbw} of an all_reduce_perf table."""
    out = {}
    for line in open(os.path.join(PROBE, name)):
        m = re.match(r"^\s+(\d+)\s+\d+\s+float\s+sum\s+-?\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+\d+\s+[\d.]+\s+[\d.]+\s+"
                     r"([\d.]+)", line)
        if m and int(m.group(1)) in sizes:
            out[int(m.group(1))] = max(float(m.group(2)), float(m.group(3)))
    return out


@pytest.mark.parametrize("name", ["h100x4-ssh-healthy.json", "h100x4-ssh-healthy-2.json", "h100x4-ssh-healthy-3.json"])
def test_four_healthy_h100_nodes_measure_every_pair_and_name_no_culprit(name):
    d = doc(name)
    pairs = [frozenset((p["a"], p["b"])) for p in d["pairs"]]
    assert len(pairs) == len(set(pairs)) == 6  # every pair of four, once (three rounds of two)
    assert all(p["error"] is None and p["transport"] == "NET/Socket over eth0" and p["gbps"] > 2 for p in d["pairs"])
    iso = plan.isolate(d["pairs"], [])
    assert iso["slow_nodes"] == [] and iso["slow_links"] == [] and iso["failed"] == []
    assert d["isolation"]["slow_nodes"] == [] and d["exit_code"] == 0
    assert all(c == {"found": 0, "left": 0} for c in d["cleanup"].values())
    assert [f.check for f in findings.evaluate(d, {})] == ["probe.nccl.p2p_disabled"]  # sockets on one host, said


def test_a_cpu_starved_h100_node_is_named_slow_with_every_peer_and_its_cpus_are_in_the_fix():
    d = doc("h100x4-ssh-slow.json")
    iso = plan.isolate([p for p in d["pairs"] if p["pass"] == 1], [p for p in d["pairs"] if p["pass"] == 2])
    assert iso["slow_nodes"] == ["gpu04"] and iso["slow_links"] == []  # not its healthy partners
    slow = [p["gbps"] for p in d["pairs"] if "gpu04" in (p["a"], p["b"])]
    fast = [p["gbps"] for p in d["pairs"] if "gpu04" not in (p["a"], p["b"])]
    assert len(slow) == 3 and max(slow) < 0.2 * min(fast)
    (f,) = by_check(findings.evaluate(d, {}))["probe.node.slow"]
    assert f.severity == "error" and f.hosts == ["gpu04"] and f.message.startswith("gpu04 is slow with every peer")
    assert "ethtool" in f.fix and "its CPUs" in f.fix and "taskset -cp" in f.fix  # over sockets: CPU-bound too


def test_the_cpu_hint_needs_sockets():
    d = doc("h100x4-ssh-slow.json")
    for p in d["pairs"]:
        p["transport"] = "NET/IB/0"
    (f,) = by_check(findings.evaluate(d, {}))["probe.node.slow"]
    assert "ethtool" in f.fix and "CPU" not in f.fix


def test_a_wrong_socket_ifname_on_one_h100_node_blames_that_node_only():
    d = doc("h100x4-ssh-ifname.json")
    bad = [p for p in d["pairs"] if p["error"]]
    assert {frozenset((p["a"], p["b"])) for p in bad} == {frozenset(("gpu02", x)) for x in ("gpu01", "gpu03", "gpu04")}
    assert all(p["blame"] == "gpu02" and p["error_kind"] == "init-failed" for p in bad)
    assert all(p["gbps"] > 2 for p in d["pairs"] if not p["error"])  # the other three measured
    f = by_check(findings.evaluate(d, {}))
    (failed,) = f["probe.node.failed"]
    assert failed.hosts == ["gpu02"] and "no socket interface found" in failed.message
    assert "probe.node.slow" not in f


def test_whole_h100_host_over_nvlink_agrees_with_all_reduce_perf_within_5_percent_from_256_mib():
    (job,) = doc("h100x4-one-node-nvlink.json")["jobs"]
    assert job["transport"] == "in-node P2P/CUMEM" and job["world"] == 4
    probe = {c["bytes"]: c["busbw_gbps"] for c in job["collectives"] if c["op"] == "all_reduce"}
    nt = nt_busbw("h100x4-nccl-tests-four-nvlink.txt", {256 << 20, 512 << 20, 1 << 30})
    assert len(nt) == 3 and all(abs(probe[s] - nt[s]) / nt[s] < 0.05 for s in nt)


def test_four_socket_nodes_agree_with_all_reduce_perf_over_sockets_within_10_percent():
    job = [j for j in doc("h100x4-ssh-healthy.json")["jobs"] if j["scope"] == "all"][0]
    probe = {c["bytes"]: c["busbw_gbps"] for c in job["collectives"] if c["op"] == "all_reduce"}
    nt = nt_busbw("h100x4-nccl-tests-four-socket.txt", {64 << 20, 256 << 20})
    assert len(nt) == 2 and all(abs(probe[s] - nt[s]) / nt[s] < 0.10 for s in nt)
