"""The probe against a hostile network and hostile nodes (issue 23, items 6 and 7), on this
machine: the TCP listener's authentication (the run's key, the peer's address, the chosen
address only), a node's output bounded in bytes, node output of the wrong shape, pair failures
as findings on the node they blame, the budget shared by rounds, bad arguments refused before
anything starts. The same over real sshd nodes in network namespaces: tests/test_probe_tcp.py."""

import errno
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
import uuid

import pytest

from gpudoctor.probe import findings, launch, node, plan, report, run

KEY = os.urandom(32)


def wait_for(fn, timeout=10):
    deadline = time.time() + timeout
    while True:
        v = fn()
        if v or time.time() > deadline:
            return v
        time.sleep(0.02)


def _server(tr, token, peer="127.0.0.2", addr="127.0.0.1", ports=(45300, 45340), accept_s=8.0):
    return launch.start_worker(tr, "a", {"role": "tcp-server", "addr": addr, "peer_addr": peer, "key": KEY.hex(),
                                         "ports": list(ports), "seconds": 0.2, "streams": 2, "accept_s": accept_s,
                                         "hard_s": 15}, token)


def _intrude(port, payload, src="127.0.0.2"):
    """Connect from ``src``, send ``payload``; True when the listener closed on us at once."""
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    try:
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)  # said all it has: judged now, not at the handshake's timeout
        t0 = time.time()
        while time.time() - t0 < 5:
            if not s.recv(1 << 16):
                return True
        return False
    except (ConnectionResetError, BrokenPipeError):
        return True
    except OSError as exc:
        # closed before our write or shutdown reached it (a listener that refuses the
        # address at accept can reset the connection first): ENOTCONN, as seen in CI
        if exc.errno in (errno.ENOTCONN, errno.ECONNABORTED):
            return True
        raise
    finally:
        s.close()


def test_the_listener_takes_only_the_peer_that_sends_the_run_key():
    tr = launch.LocalTransport()
    token = uuid.uuid4().hex
    srv = _server(tr, token)
    ready = srv.next_event(time.time() + 10, want=("ready",))
    assert ready and ready["event"] == "ready", ready
    port = ready["port"]
    # silent third parties hold connections open: they must not hold up the peer (the handshakes
    # run beside the accept loop; one after the other, six would cost it 6 x 2 s)
    silent = [socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0))
              for _ in range(6)]
    # from the peer's own address, the right tag without the key, then a wrong key: closed at once
    assert _intrude(port, b"U")
    assert _intrude(port, b"\0" * 32 + b"U")
    assert _intrude(port, os.urandom(32) + b"U")
    # from another address, even with the key: closed before it is read
    assert _intrude(port, KEY + b"U", src="127.0.0.3")
    cli = launch.start_worker(tr, "b", {"role": "tcp-client", "peer_addr": "127.0.0.1", "port": port,
                                        "src_addr": "127.0.0.2", "key": KEY.hex(), "seconds": 0.2, "streams": 2,
                                        "connect_s": 3, "hard_s": 15}, token)
    rc, rs = cli.next_event(time.time() + 20), srv.next_event(time.time() + 20)
    for s in silent:
        s.close()
    assert rc["ok"] and rs["ok"], (rc, rs)
    assert rc["rx_gbps"] > 0.05 and rs["rx_gbps"] > 0.05  # the pair measured as if nobody else came
    assert rs["rejected"] >= 4
    # a state, not the clock: the server's accept window is 8 s (_server) and a silent connection holds a
    # handshake for HANDSHAKE_S (2 s): six taken one after the other (12 s) would end the window with "no-peer",
    # so the server's ok above is the proof that they did not hold up the peer
    from gpudoctor.probe.node import HANDSHAKE_S

    assert 6 * HANDSHAKE_S > 8
    launch.cleanup_run(tr, ["a"], token, timeout=5)


def test_the_listener_binds_the_chosen_address_only():
    tr = launch.LocalTransport()
    token = uuid.uuid4().hex
    srv = _server(tr, token, accept_s=2.0)
    port = srv.next_event(time.time() + 10, want=("ready",))["port"]
    s = socket.socket()
    s.settimeout(2)
    with pytest.raises(OSError) as exc:  # nothing listens on the node's other addresses
        s.connect(("127.0.0.5", port))
    assert exc.value.errno == errno.ECONNREFUSED
    s.close()
    # an address this machine does not have: said so, never a listener on every interface
    bad = _server(tr, token, addr="192.0.2.1")  # TEST-NET-1 (RFC 5737)
    ev = bad.next_event(time.time() + 10)
    assert ev["ok"] is False and ev["error_kind"] == "not-local" and "192.0.2.1" in ev["error"]
    launch.cleanup_run(tr, ["a"], token, timeout=5)


def test_the_key_travels_on_stdin_never_on_a_command_line_nor_in_the_report():
    tr = launch.SshTransport.__new__(launch.SshTransport)
    tr.python = "python3"
    cmd = tr.command("ab" * 16, timeout=7)
    assert "timeout -k 2 9 python3 -" in cmd and "GPUDOCTOR_PROBE_RUN=" + "ab" * 16 in cmd
    key = {}
    real = launch.start_worker

    def spy(transport, host, config, token):
        if "key" in config:
            key["hex"] = config["key"]
            assert key["hex"] in launch.payload(config)
        return real(transport, host, config, token)

    run.start_worker = spy
    try:
        doc = run.probe(["a", "b"], launch.LocalTransport(addresses={"a": "127.0.0.1", "b": "127.0.0.2"}),
                        mode="tcp", budget=15, tcp_seconds=0.1, ports=(45350, 45390))
    finally:
        run.start_worker = real
    assert len(key["hex"]) == 64 and key["hex"] not in json.dumps(doc)
    assert doc["pairs"] and all(p["gbps"] for p in doc["pairs"]), doc["pairs"]


# ---------------------------------------------------------------- node output

def _lines(line, n):
    it = iter([line] * n)
    calls = {"n": 0}

    def read(limit):
        calls["n"] += 1
        return next(it, b"")[:limit]

    return read, calls


@pytest.mark.parametrize("event", ["stage", "result", "ready"])
def test_worker_output_is_bounded_in_bytes_not_lines(event):
    # 4 MiB lines x 10,000 of well-formed events: cut off after 16 MiB, not 40 GB later, and at
    # most the first event of a kind is kept
    line = b'{"event": "%s", "ok": true, "x": "' % event.encode() + b"a" * ((4 << 20) - 60) + b'"}\n'
    read, calls = _lines(line, 10000)
    w = launch.Worker("x", "nccl")
    launch._pump_lines(read, w)
    assert calls["n"] <= 5 and calls["n"] * len(line) <= launch.MAX_BYTES + len(line)
    held = []
    while not w.events.empty():
        held.append(w.events.get())
    assert held[-1]["error_kind"] == "garbage" and "16 MiB" in held[-1]["error"]
    assert len(held) <= 2  # the garbage verdict, and the first result at most


@pytest.mark.parametrize("line,why", [
    (b'{"event": "result", "ok": true, "x": ' + b"[" * 200000 + b"]" * 200000 + b"}\n", "nested"),
    (b'{"event": "result", "ok": false, "error_kind": "\\u001b]0;x\\u0007"}\n', "not a probe worker"),
    (b'{"event": "ready", "port": "29500; rm"}\n', "not a probe worker"),
    (b'{"event": "result", "ok": "yes"}\n', "not a probe worker"),
])
def test_node_output_of_the_wrong_shape_is_garbage(line, why):
    read, _ = _lines(line, 1)
    w = launch.Worker("x", "hello")
    launch._pump_lines(read, w)  # a RecursionError here read as an SSH error before
    ev = w.next_event(time.time() + 1)
    assert ev["error_kind"] == "garbage" and why in ev["error"]


def test_a_nodes_error_text_reaches_the_report_as_one_printable_line():
    read, _ = _lines(b'{"event": "result", "ok": false, "error_kind": "hang", "error": "x\\u001b[2J\\ncurl|sh"}\n', 1)
    w = launch.Worker("x", "hello")
    launch._pump_lines(read, w)
    err = w.next_event(time.time() + 1)["error"]
    assert "\x1b" not in err and "\n" not in err and "curl|sh" in err


def test_a_deeply_nested_line_from_a_local_node_is_garbage(tmp_path):
    py = tmp_path / "python3"
    py.write_text("#!/bin/sh\nexec %s -c 'print(\"{\\\"event\\\": \\\"result\\\", \\\"x\\\": \" + \"[\" * 300000 + "
                  "\"]\" * 300000 + \"}\")'\n" % sys.executable)
    py.chmod(py.stat().st_mode | stat.S_IEXEC)
    doc = run.probe(["a"], launch.LocalTransport(python=str(py)), mode="tcp", budget=10)
    assert doc["nodes"][0]["error_kind"] == "garbage" and "nested" in doc["nodes"][0]["error"]


# ---------------------------------------------------------------- findings and the budget

def _pair(a, b, kind=None, blame=None, gbps=5.0):
    return {"a": a, "b": b, "gbps": None if kind else gbps, "gbps_ab": None if kind else gbps,
            "gbps_ba": None if kind else gbps, "error": "%s!" % kind if kind else None, "error_kind": kind,
            "blame": blame, "pass": 1}


@pytest.mark.parametrize("kind", ["port-in-use", "hang", "init-failed", "garbage", "not-local", "no-peer"])
def test_every_pair_failure_that_blames_a_node_is_a_finding_on_that_node(kind):
    d = {"mode": "tcp", "ports": [29500, 29599], "jobs": [], "cleanup": {},
         "nodes": [{"host": h, "error_kind": None} for h in ("n1", "n2", "bad")],
         "pairs": [_pair("n1", "n2"), _pair("bad", "n1", kind, "bad"), _pair("n2", "bad", kind, "bad")]}
    f = [x for x in findings.evaluate(d, {}) if x.check == "probe.node.failed"]
    assert [x.hosts for x in f] == [["bad"]] and f[0].observed == kind and "bad<->n1" in f[0].message
    assert report.exit_code(findings.evaluate(d, {})) == 1


def test_failures_that_blame_no_node_are_not_node_findings():
    d = {"mode": "tcp", "ports": [29500, 29599], "jobs": [], "cleanup": {},
         "nodes": [{"host": h, "error_kind": None} for h in ("n1", "n2")] + [
             {"host": "n3", "error_kind": "interrupted", "error": "interrupted"}],
         "pairs": [_pair("n1", "n2", "stopped", "n2"), _pair("n1", "n2", "port-blocked", "n2")]}
    f = findings.evaluate(d, {})
    assert not [x for x in f if x.check == "probe.node.failed"]
    assert [x.hosts for x in f if x.check == "probe.port.blocked"] == [["n2"]]


def test_the_first_port_of_the_range_taken_is_mentioned():
    d = {"mode": "tcp", "ports": [29500, 29599], "jobs": [], "pairs": [], "cleanup": {},
         "nodes": [{"host": "n1", "error_kind": None, "first_port_taken": True},
                   {"host": "n2", "error_kind": None, "first_port_taken": False}]}
    (f,) = [x for x in findings.evaluate(d, {}) if x.check == "probe.port.in_use"]
    assert f.hosts == ["n1"] and "29500" in f.message and f.severity == "warning"


def test_hello_says_when_the_first_port_is_held():
    import random

    # a port below the ephemeral range (32768-60999): no other process's outgoing connection
    # takes it between our close and the second look
    for _ in range(50):
        holder = socket.socket()
        port = random.randint(10000, 19999)
        try:
            holder.bind(("127.0.0.1", port))
            break
        except OSError:
            holder.close()
    holder.listen(1)
    try:
        assert node.first_port_taken(port) is True
    finally:
        holder.close()
    assert node.first_port_taken(port) is False


def test_a_hung_pair_gets_its_share_and_the_rounds_after_it_run():
    # 4 nodes, 3 rounds, "h" hangs in every pair it is in: each round ends at its share of the
    # phase, and every round runs (before: the first hung pair took the whole window)
    rounds = plan.rounds(["n1", "n2", "n3", "h"])
    ends = {}

    def fn(a, b, dl):
        ends.setdefault(round(dl, 3), []).append((a, b))
        if "h" in (a, b):
            time.sleep(max(0.0, dl - time.time()))
            return _pair(a, b, "hang", "h")
        return _pair(a, b)

    t0 = time.time()
    done, skipped = run._run_rounds(rounds, fn, t0 + 1.5, lambda m: None, min_round=0.3, cap=t0 + 3)
    assert skipped == 0 and len(done) == 6
    assert {frozenset((p["a"], p["b"])) for p in done if not p["error"]} == {
        frozenset(x) for x in (("n1", "n2"), ("n1", "n3"), ("n2", "n3"))}
    # states, not the clock: three rounds, each with a deadline of its own, the last within the cap (a first hung
    # pair that took the whole window left one deadline, and skipped the rounds after it)
    ds = sorted(ends)
    assert len(ds) == 3 and ds[0] < ds[1] < ds[2] <= t0 + 3, (ds, t0)


def test_an_interrupt_reports_what_was_measured_and_ends_the_workers(monkeypatch):
    calls = {"n": 0}
    real = run._tcp_pair

    def pair(*a, **kw):
        calls["n"] += 1
        if calls["n"] == 3:  # the second round
            raise KeyboardInterrupt()
        return real(*a, **kw)

    monkeypatch.setattr(run, "_tcp_pair", pair)
    tr = launch.LocalTransport(addresses={"a": "127.0.0.1", "b": "127.0.0.2", "c": "127.0.0.3"})
    doc = run.probe(["a", "b", "c"], tr, mode="tcp", budget=20, tcp_seconds=0.1, ports=(45400, 45440))
    assert doc["interrupted"] == "SIGINT"
    assert [p for p in doc["pairs"] if p["gbps"]], doc["pairs"]  # the first round is in the report
    assert all(c.get("left") == 0 for c in doc["cleanup"].values())
    assert wait_for(lambda: node.find_run(doc["run_id"]) == [], 5) is True
    out = []
    report.render_text(doc, findings.evaluate(doc, {}), type("W", (), {"write": lambda s, x: out.append(x)})())
    assert "INTERRUPTED by SIGINT" in "".join(out)
    assert report.to_json(doc, findings.evaluate(doc, {}))["exit_code"] == 130
    assert report.to_json(dict(doc, interrupted="SIGTERM"), [])["exit_code"] == 143


# ---------------------------------------------------------------- arguments

@pytest.mark.parametrize("args,msg", [
    (["--max-size", "infG"], "--max-size"), (["--max-size", "1e400G"], "--max-size"),
    (["--params", "nan"], "--params"), (["--params", "inf"], "--params"),
    (["--nodes", "gpu[1-99999999]"], "more than --max-nodes"),
    (["--nodes", "a[1-99999999]-b[1-99999999]"], "more than --max-nodes"),
    (["--nodes", "n[1-99999999]&n[1-3]"], "more than --max-nodes"),
])
def test_bad_arguments_are_refused_before_anything_starts(args, msg):
    # --budget 600: a run that started anything would still run at subprocess's deadline (60 s), a deadline on the
    # state "refused", not a wall-clock bound
    p = subprocess.run([sys.executable, "-m", "gpudoctor", "probe", "--budget", "600"] + args, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and msg in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_more_nodes_than_this_machine_can_hold_connections_to_are_refused_before_anything_starts():
    import resource

    def low():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    p = subprocess.run([sys.executable, "-m", "gpudoctor", "probe", "--nodes", "gpu[1-40]", "--budget", "5"],
                       capture_output=True, text=True, timeout=60, preexec_fn=low)
    assert p.returncode == 2 and "open files" in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr


@pytest.mark.parametrize("pattern", ["gpu[01-16]", "a,b,c", "gpu[1-4]-ib[0-1]", "gpu[1-10/2]", "n[1-5]!n3",
                                     "n[1-9]&n[1-3]", "gpu[001-120],login[1-2]", "x[1-3,7,10-20/5]"])
def test_the_count_from_the_text_bounds_what_clustershell_expands(pattern):
    from ClusterShell.NodeSet import NodeSet

    from gpudoctor.nodes import count_bound

    assert count_bound(pattern) >= len(NodeSet(pattern))


def test_a_set_operation_counts_every_operand_clustershell_builds():
    from gpudoctor.nodes import count_bound

    assert count_bound("n[1-99999999]&n[1-3]") == 99999999 + 3  # 3 names, 10^8 indexes built first


def test_an_nccl_result_of_the_wrong_shape_loses_its_bad_rows_not_the_report():
    ev = {"event": "result", "ok": True, "check": "yes", "torch": "2.4\x1b[2J", "truncated": 1,
          "collectives": [{"op": "all_reduce", "bytes": 1 << 20, "time_us": 10.0, "iters": 5, "algbw_gbps": 1.0,
                           "busbw_gbps": 1.0, "nranks": 2},
                          {"op": "all_reduce", "bytes": "1M", "time_us": "x", "algbw_gbps": None, "nranks": 2},
                          {"op": "rm -rf", "bytes": 1, "time_us": 1, "algbw_gbps": 1, "busbw_gbps": 1, "nranks": 2},
                          {"op": "all_gather", "bytes": 4, "time_us": float("nan"), "algbw_gbps": 1,
                           "busbw_gbps": 1, "nranks": 2}, "row"],
          "latency": [{"bytes": 8, "time_us": "fast"}, 3], "nccl_log": ["NCCL INFO x", 7, {"a": 1}]}
    out = run._clean_nccl(ev)
    assert [c["bytes"] for c in out["collectives"]] == [1 << 20] and out["latency"] == []
    assert out["nccl_log"] == ["NCCL INFO x"] and out["check"] is None and out["truncated"] is False
    assert "\x1b" not in out["torch"]
    job = {"scope": "all", "hosts": ["a", "b"], "world": 2, "collectives": out["collectives"], "latency": [],
           "error": None, "transport": None}
    buf = []
    report.render_text({"nodes": [], "jobs": [job], "mode": "nccl"}, [],
                       type("W", (), {"write": lambda s, x: buf.append(x)})())
    assert "all_reduce" in "".join(buf)


class _Canned(object):
    """A transport whose workers say what the test wrote for their role."""

    name = "canned"

    def __init__(self, says):
        self.says = says

    def address(self, host):
        return "127.0.0.1"

    def start(self, host, script, token=None, timeout=None):
        w = launch.Worker(host, None)
        role = "tcp-server" if '"role": "tcp-server"' in script.splitlines()[-1] else "tcp-client"
        for ev in self.says[role]:
            w.put(ev)
        w.done.set()
        return w


@pytest.mark.parametrize("server,client,blame", [
    # b says it finished with nothing measured; a, left waiting, says no peer came: b is blamed
    ([{"event": "ready", "port": 45000}, {"event": "result", "ok": False, "error_kind": "no-peer", "error": "x"}],
     [{"event": "result", "ok": True}], "b"),
    # a says ok without a figure: a is blamed, not b
    ([{"event": "ready", "port": 45000}, {"event": "result", "ok": True}],
     [{"event": "result", "ok": True, "rx_gbps": 9.0}], "a"),
    ([{"event": "ready", "port": 45000}, {"event": "result", "ok": True, "rx_gbps": float("inf")}],
     [{"event": "result", "ok": True, "rx_gbps": 9.0}], "a"),
])
def test_a_result_without_a_measurement_blames_its_own_node_never_the_peer(server, client, blame):
    opts = {"tcp_seconds": 0.1, "ports": (1, 2), "streams": 1, "key": KEY.hex()}
    p = run._tcp_pair(_Canned({"tcp-server": server, "tcp-client": client}), "a", "b", "t", opts, time.time() + 2)
    assert p["error_kind"] == "garbage" and p["blame"] == blame and p["gbps"] is None, p
