"""`gpudoctor probe --mode tcp` over real sshd nodes, each in its own network namespace on a
bridge (tests/sshcluster.py's nodes, moved off loopback so that links can differ):

- ``slow``: its veth pair is rate-limited with a real `tc` token bucket (20 Mbit/s, both
  directions); pairwise isolation must name it;
- ``blocked``: drops TCP to the job's port range (a policy rule in its namespace, like a
  firewall DROP rule), so peers cannot connect to its probe listener;
- ``hang``: its python3 answers the facts round, and never answers as a probe worker (a hung interpreter);
- ``mhang``: says hello, then every measurement worker hangs (a node wedged mid-probe);
- ``pfull``: another program holds every port of the probe's range on its address;
- a third party on a peer's own address, knocking with the right tag but not the run's key;
- the budget is honoured, SIGINT and SIGTERM print the partial report, a controller killed
  with SIGKILL leaves nothing behind, and no probe process is left on any node afterwards.
"""

import io
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest

import sshcluster

GD = [sys.executable, "-m", "gpudoctor"]
PORTS = "45100-45140"  # outside sshcluster's 20000-40000 sshd ports
TOKEN_VAR = b"GPUDOCTOR_PROBE_RUN="
NICE = -10  # the bed's sshd and so its workers (NetnsCluster._start_sshd)


def _netns_reason():
    if os.geteuid() != 0:
        return "needs root (network namespaces, tc)"
    if not sshcluster.available():
        return "needs openssh-server (tests/run.sh installs it)"
    for tool in ("ip", "tc"):
        if not shutil.which(tool):
            return "needs iproute2 (%s; tests/run.sh installs it)" % tool
    name = "gdchk%04x" % random.randrange(1 << 16)
    p = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if p.returncode != 0:
        return "no network namespace support here: %s" % p.stderr.strip()
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return None


REASON = _netns_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


def ip(*args, ns=None):
    cmd = ["ip"] + (["-n", ns] if ns else []) + list(args)
    subprocess.run(cmd, check=True, capture_output=True)


class NetnsCluster(sshcluster.Cluster):
    """sshcluster.Cluster whose nodes live in network namespaces behind veth pairs on one bridge."""

    def __init__(self):
        super().__init__()
        self.tag = "%04x" % random.randrange(1 << 16)  # interface names stay under IFNAMSIZ (15)
        self.net = "10.%d.%d" % (random.randint(64, 250), random.randint(1, 250))
        self.bridge = "gdpb" + self.tag
        self.spaces = []
        self.extra = {}
        ip("link", "add", self.bridge, "type", "bridge")
        ip("addr", "add", self.net + ".1/24", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")

    def addr(self, i):
        return "%s.%d" % (self.net, i + 10)

    def add(self, name, rate=None, drop_ports=None, **kw):
        self.extra[name] = {"rate": rate, "drop_ports": drop_ports}
        return super().add(name, **kw)

    def start(self):
        for i, (name, n) in enumerate(self.nodes.items()):
            ns = "gdp%s%d" % (self.tag, i)
            host_if, node_if = "gdp%s%dh" % (self.tag, i), "gdp%s%dn" % (self.tag, i)
            ip("netns", "add", ns)
            self.spaces.append(ns)
            n["ns"] = ns
            ip("link", "add", host_if, "type", "veth", "peer", "name", node_if)
            ip("link", "set", node_if, "netns", ns)
            ip("link", "set", host_if, "master", self.bridge, "up")
            ip("link", "set", node_if, "name", "eth0", ns=ns)
            ip("addr", "add", n["addr"] + "/24", "dev", "eth0", ns=ns)
            ip("link", "set", "eth0", "up", ns=ns)
            ip("link", "set", "lo", "up", ns=ns)
            ex = self.extra.get(name) or {}
            if ex.get("rate"):  # both directions: the host side shapes what the node receives
                for dev, where in ((host_if, None), ("eth0", ns)):
                    cmd = ["tc"] + (["-n", where] if where else []) + [
                        "qdisc", "add", "dev", dev, "root", "tbf", "rate", ex["rate"], "burst", "32kbit",
                        "latency", "50ms"]
                    subprocess.run(cmd, check=True, capture_output=True)
            if ex.get("drop_ports"):
                # the local table is consulted at priority 0, before any rule: move it below ours
                ip("rule", "add", "pref", "50", "iif", "eth0", "ipproto", "tcp", "dport", ex["drop_ports"],
                   "prohibit", ns=ns)
                ip("rule", "add", "pref", "100", "lookup", "local", ns=ns)
                ip("rule", "del", "pref", "0", ns=ns)
                # the rule is stateless, unlike a real firewall (which lets ESTABLISHED replies
                # in): keep this node's own source ports out of the dropped range, or a reply to
                # its outgoing connection from an ephemeral port in that range is dropped too and
                # its listening peer was blamed (1 CI run in ~5). ip_local_port_range is per netns.
                subprocess.run(["ip", "netns", "exec", ns, "sh", "-c",
                                "echo '50000 60999' > /proc/sys/net/ipv4/ip_local_port_range"],
                               check=True, capture_output=True)
        return super().start()

    def _start_sshd(self, name, n):
        # nice -n NICE: the workers (sshd's children) measure veths, which run at the speed the CPU
        # gives them. On the shared development machine, at a load of 40-75 from other sessions, a
        # healthy pair measured 0.2 Gbit/s beside a 6 Gbit/s median in the same run, and was named
        # a slow link; with the bed's processes ahead of unrelated ones, what is measured is the
        # links (the tc-limited node stays at 20 Mbit/s whatever its priority). No effect on an
        # idle machine (CI), where nothing else competes.
        wrapper = os.path.join(self.base, "sshd-%s" % name)
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nexec nice -n %d ip netns exec %s %s \"$@\"\n" % (NICE, n["ns"], sshcluster.SSHD))
        os.chmod(wrapper, 0o755)
        saved = sshcluster.SSHD
        sshcluster.SSHD = wrapper
        try:
            super()._start_sshd(name, n)
        finally:
            sshcluster.SSHD = saved

    def cleanup(self):
        super().cleanup()
        for ns in self.spaces:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)


# the running bed's subnet ("10.a.b"), set by the bed fixture: see probe_processes
BED_NET = []


def probe_processes():
    """Pids of the processes carrying a probe run token that this module's bed started (the
    bed's nodes share this /proc). Every worker here runs in an ssh session to a bed node, whose
    SSH_CONNECTION names the bed's own random subnet: a probe process of another test run on this
    machine (another bed, or test_probe_local's local workers) is not counted. It once was: the
    SIGINT/SIGTERM test took a new one for its own run's worker and signalled its run while the
    interpreter was still importing (a clean-clone CI run beside other sessions' suites: 'gpudoctor:
    interrupted' without the signal's name, and for SIGTERM an ImportError of a half-imported
    gpudoctor.probe.launch, exit 3)."""
    conn = b"SSH_CONNECTION=" + BED_NET[-1].encode() + b"." if BED_NET else None
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if any(e.startswith(TOKEN_VAR) for e in env) and (conn is None or any(e.startswith(conn) for e in env)):
            out.append(int(name))
    return out


def wait_no_probe_processes(timeout=10):
    deadline = time.time() + timeout
    while True:
        left = probe_processes()
        if not left or time.time() > deadline:
            return left
        time.sleep(0.1)


@pytest.fixture(scope="module")
def bed():
    c = NetnsCluster()
    BED_NET.append(c.net)
    hang_bin = os.path.join(c.base, "hang-bin")
    os.makedirs(hang_bin)
    with open(os.path.join(hang_bin, "python3"), "w") as f:
        # a hung interpreter that also started a child: both must be gone after the probe. It hangs as a probe worker
        # (the run token in its environment: gpudoctor/probe/launch.py); the facts round's collector answers, since a
        # node silent there is the hang before any worker starts (d63c6442; tests/test_slurm26.py proves that one)
        f.write("#!/bin/sh\nif [ -n \"$GPUDOCTOR_PROBE_RUN\" ]; then sleep 600 & exec sleep 600; fi\nexec %s \"$@\"\n"
                % shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin"))
    os.chmod(os.path.join(hang_bin, "python3"), 0o755)
    os.chmod(c.base, 0o755)
    path = "/usr/local/bin:/usr/bin:/bin"
    mhang_bin = os.path.join(c.base, "mhang-bin")
    os.makedirs(mhang_bin)
    with open(os.path.join(mhang_bin, "python3"), "w") as f:
        # the collector and the hello worker run; a measurement worker hangs after a normal start
        f.write("#!/bin/sh\nf=$(mktemp)\ncat > \"$f\"\n"
                "if ! tail -n 1 \"$f\" | grep -q '\"role\": \"tcp-'; then %s - < \"$f\"; rc=$?; rm -f \"$f\"; "
                "exit $rc; fi\nrm -f \"$f\"\nexec sleep 600\n" % shutil.which("python3", path=path))
    os.chmod(os.path.join(mhang_bin, "python3"), 0o755)
    try:
        c.add("n1", env={"PATH": path})
        c.add("n2", env={"PATH": path})
        c.add("n3", env={"PATH": path})
        c.add("slow", env={"PATH": path}, rate="20mbit")
        c.add("blocked", env={"PATH": path}, drop_ports=PORTS)
        c.add("hang", env={"PATH": hang_bin + ":" + path})
        c.add("mhang", env={"PATH": mhang_bin + ":" + path})
        c.add("pfull", env={"PATH": path})
        c.start()
    except Exception:
        c.cleanup()
        raise
    yield c
    c.cleanup()


def gd(bed, *args, timeout=120):
    t0 = time.time()
    p = subprocess.run(GD + list(args) + ["--ssh-config", bed.ssh_config], capture_output=True, text=True,
                       timeout=timeout, cwd=bed.base)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


@pytest.fixture(scope="module")
def run5(bed):
    """One probe over the five nodes that start a worker."""
    # --slow-ratio 0.2: the veths of this shared 2-core machine vary 2-3x under load (a fast pair
    # measured 11 Gbit/s against a 27 Gbit/s median); the rate-limited node is 1000x slower.
    # --tcp-seconds 0.2 (0.3 before: 0.1 s more per direction of 11 pairs): with two busy loops on
    # the 2 cores, fast pairs measured 10-21 Gbit/s and the slow node's 0.012-0.015, as with 0.3
    rc, out, err, took = gd(bed, "probe", "--hosts", bed.hostfile(["n1", "n2", "n3", "slow", "blocked"]),
                            "--mode", "tcp", "--json", "--budget", "60", "--tcp-seconds", "0.2", "--ports", PORTS,
                            "--slow-ratio", "0.2")
    assert out, err
    return rc, json.loads(out), err, took


def test_every_pair_is_measured_in_rounds_of_disjoint_pairs(run5):
    rc, doc, err, took = run5
    assert doc["schema"] == "gpudoctor.probe/1" and doc["mode"] == "tcp"
    first = [p for p in doc["pairs"] if p["pass"] == 1]
    assert len(first) == 10  # 5 nodes: every pair once (5 rounds of 2)
    assert {frozenset((p["a"], p["b"])) for p in first} == {
        frozenset((a, b)) for a in ["n1", "n2", "n3", "slow", "blocked"]
        for b in ["n1", "n2", "n3", "slow", "blocked"] if a < b}
    good = [p for p in doc["pairs"] if not p["error"] and "slow" not in (p["a"], p["b"])]
    assert good and all(p["gbps_ab"] > 0.2 and p["gbps_ba"] > 0.2 for p in good)  # loopback-speed veths


def test_the_rate_limited_node_is_named_with_its_measurements(run5):
    rc, doc, err, took = run5
    print(json.dumps(doc["pairs"], indent=0), doc["isolation"])
    assert doc["isolation"]["slow_nodes"] == ["slow"]
    assert doc["isolation"]["slow_links"] == []
    slow_pairs = [p for p in doc["pairs"] if "slow" in (p["a"], p["b"]) and not p["error"]]
    # 20 Mbit/s token bucket, both directions: well under 0.1 Gbit/s whichever side sends
    assert slow_pairs and all(p["gbps_ab"] < 0.1 and p["gbps_ba"] < 0.1 for p in slow_pairs)
    f = [x for x in doc["findings"] if x["check"] == "probe.node.slow"]
    assert len(f) == 1 and f[0]["hosts"] == ["slow"] and f[0]["severity"] == "error"
    assert rc == 1


def test_the_node_that_drops_the_probe_port_is_named(run5):
    rc, doc, err, took = run5
    print(json.dumps(doc["pairs"], indent=0), json.dumps(doc["findings"], indent=0))  # shown on failure
    f = [x for x in doc["findings"] if x["check"] == "probe.port.blocked"]
    assert [x["hosts"] for x in f] == [["blocked"]]
    assert "45" in f[0]["message"] and "firewall-cmd" in f[0]["fix"]
    # the blocked node connects out fine: pairs where a peer listened were measured
    assert any(p["b"] == "blocked" and p["gbps"] for p in doc["pairs"])
    assert not [x for x in doc["findings"] if x["check"] == "probe.node.slow" and x["hosts"] == ["blocked"]]


def test_nothing_is_left_running_and_the_budget_holds(run5):
    rc, doc, err, took = run5
    # by the report's own clock (from the budget's start), not the test's wall clock of the whole process: a healthy
    # run takes ~15 s of its 60 (bench/deadline_bench.py measures how close to a budget a hung run ends)
    assert doc["elapsed_s"] <= 60, doc["elapsed_s"]
    assert all(c.get("left") == 0 for c in doc["cleanup"].values()), doc["cleanup"]
    assert wait_no_probe_processes() == []


def hung_interpreter():
    """Pids of the hung interpreter on "hang" (its python3: `sleep 600 &` then `exec sleep 600`)
    started by a probe run: the processes carrying a run token whose command is ``sleep 600``."""
    out = []
    for pid in probe_processes():
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                if f.read() == b"sleep\x00600\x00":
                    out.append(pid)
        except OSError:
            pass
    return out


def hello_window(budget):
    """How long a probe with ``budget`` waits for its workers' hello (gpudoctor/probe/run.py:
    probe() and Budget: a tenth of the budget, 3-15 s, within the work time)."""
    return min(budget - min(8.0, max(1.0, budget * 0.15)), max(3.0, min(15.0, budget * 0.1)))


def kill_a_run_once_its_workers_run(bed):
    """SIGKILL a probe of n1 and "hang" once the hung interpreter runs on "hang" (the state the
    test needs: a worker no cleanup will end). With --budget 5 the run waits 3 s for hello; on a
    loaded machine (other sessions, load 40-75) its workers may not start within that, and the
    run then ends them itself: the budget is raised (hello windows 3, 6, 15 s) until they are
    seen running, within 90 s. Returns the budget, the pids and the seconds they took to appear."""
    give_up = time.time() + 90
    for budget in (5, 60, 150):
        t0 = time.time()
        p = subprocess.Popen(GD + ["probe", "--hosts", bed.hostfile(["n1", "hang"]), "--mode", "tcp", "--budget",
                                   str(budget), "--ports", PORTS, "--ssh-config", bed.ssh_config],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=bed.base)
        while p.poll() is None and len(hung_interpreter()) < 2 and time.time() < give_up:
            time.sleep(0.05)
        seen = set(probe_processes()) if len(hung_interpreter()) >= 2 else set()
        p.kill()
        p.wait()
        if seen:
            return budget, seen, time.time() - t0
        # the run ended (or we gave up) before its workers started: what it started is gone
        assert wait_no_probe_processes(timeout=hello_window(budget) + 9) == []
        if time.time() >= give_up:
            break
    pytest.fail("the hung interpreter never started on 'hang' (hello windows up to 15 s, 90 s in all)")


def test_hung_worker_is_classified_within_the_budget_and_killed_and_a_killed_controllers_workers_end(bed):
    """Two runs in one test, so that their waits overlap: a controller SIGKILLed while its
    workers run (no cleanup can run: the hung interpreter on "hang" must end under the
    `timeout -k 2 5` its remote command runs in: hello's 3 s deadline + 2 s, as check's
    collectors do), and meanwhile a run whose worker hangs, classified within its budget and
    cleaned up.
    Each run's cleanup ends only the processes with its own run token, so the killed run's
    workers still end by themselves.
    On a loaded machine the budgets are scaled from what the killed run needed to start its
    workers (kill_a_run_once_its_workers_run); on an idle one they are 5 s and 6 s."""
    # SIGKILL leaves no chance to clean up
    budget, killed, started_in = kill_a_run_once_its_workers_run(bed)
    killed_at = time.time()
    # the hung run: the same hello window as the run that could start its workers
    budget2 = 6 if budget == 5 else budget
    rc, out, err, took = gd(bed, "probe", "--hosts", bed.hostfile(["n1", "hang"]), "--mode", "tcp", "--json",
                            "--budget", str(budget2), "--ports", PORTS)
    doc = json.loads(out)
    nodes = {n["host"]: n for n in doc["nodes"]}
    assert nodes["hang"]["error_kind"] == "hang" and nodes["n1"]["error_kind"] is None
    # the budget ended the run, cleanup included: "hang"'s interpreter sleeps 600 s and gd gives the whole process
    # 120 s (a deadline on the state "it ended", not a wall-clock bound that a loaded machine fails)
    # the hung shell and its child, found by the run token (the bed's nodes share one /proc:
    # whichever node's cleanup runs first ends them)
    assert sum(c.get("found", 0) for c in doc["cleanup"].values()) >= 2, doc["cleanup"]
    assert rc == 1 and [f["hosts"] for f in doc["findings"] if f["check"] == "probe.node.failed"] == [["hang"]]
    # nothing of either run is left: the killed run's by `timeout -k` alone, which TERMs at its
    # hello window (rounded up) + 2 s and KILLs 2 s later (gpudoctor/probe/launch.py)
    assert killed and wait_no_probe_processes(
        timeout=max(10.0, killed_at + math.ceil(hello_window(budget)) + 4 + 6 - time.time())) == []


def test_text_report_names_the_slow_node(run5):
    from gpudoctor.probe import findings, report

    rc, doc, err, took = run5
    buf = io.StringIO()
    report.render_text(doc, findings.evaluate(doc, {}), buf)
    out = buf.getvalue()
    assert "FAIL probe.node.slow  slow is slow with every peer" in out
    assert "slow nodes: slow" in out and "FAIL probe.port.blocked  blocked refuses" in out


def test_check_probe_runs_after_the_report_with_the_checks_facts(bed):
    # the facts the check gathered reach the probe's findings: the nodes' interfaces are veths,
    # whose sysfs speed (10000) is nominal, so no line-rate verdict is made from it
    rc, out, err, took = gd(bed, "check", "--hosts", bed.hostfile(["n1", "slow"]), "--probe", "--probe-mode", "tcp",
                            "--probe-budget", "20", "--tcp-seconds", "0.3", "--probe-ports", PORTS, "--select", "shm")
    report, _, probe = out.partition("gpudoctor probe: mode tcp, 2 of 2 nodes")
    assert probe and "Summary:" in report, err
    assert "n1<->slow" in probe or "slow<->n1" in probe
    assert "slow nodes: none" in probe  # two nodes cannot tell a slow node from a slow link
    assert "probe.bandwidth.line_rate" not in probe


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_sigint_and_sigterm_end_the_run_print_the_partial_report_and_leave_nothing(bed, sig, code):
    # SIGTERM is what timeout, scancel, systemd and Kubernetes send: it ends the run as Ctrl-C does
    # With --budget 60 the run waits 6 s for its workers' hello; on a loaded machine they may
    # not start within that (the run then ends them itself, without any measurement to
    # interrupt): the budget goes to 150 (a 15 s hello window), as kill_a_run_once_its_workers_run
    for budget in (60, 150):
        # workers of this run only: a probe process already alive (another test run's on this machine: /proc is
        # shared) would have the signal sent while this run's interpreter is still importing (CI saw exit 1 with a
        # KeyboardInterrupt in site.py, and -15 for SIGTERM, before gpudoctor's handlers existed)
        before = set(probe_processes())
        p = subprocess.Popen(GD + ["probe", "--hosts", bed.hostfile(["n1", "n2", "n3"]), "--mode", "tcp",
                                   "--tcp-seconds", "3", "--budget", str(budget), "--ports", PORTS,
                                   "--ssh-config", bed.ssh_config],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=bed.base)
        try:
            # wait until workers run on the nodes, or the run has ended without any
            deadline = time.time() + 60
            while not set(probe_processes()) - before and p.poll() is None and time.time() < deadline:
                time.sleep(0.05)
            if set(probe_processes()) - before:
                p.send_signal(sig)
                out, err = p.communicate(timeout=30)
                break
            p.terminate()  # gpudoctor's own cleanup ends whatever it started on the nodes
            out, err = p.communicate(timeout=30)
            assert wait_no_probe_processes(timeout=30) == []
        finally:
            # never leave this run's workers behind for the next test (they hold its ports)
            if p.poll() is None:
                p.terminate()
                p.communicate(timeout=30)
    else:
        pytest.fail("no probe worker started with hello windows of 6 and 15 s: %s %s" % (out[-2000:], err[-2000:]))
    assert p.returncode == code and "interrupted (%s)" % sig.name in err, err
    assert out.startswith("gpudoctor probe: mode") and "INTERRUPTED by %s" % sig.name in out
    assert "cleanup: 3 node(s)" in out
    assert wait_no_probe_processes() == []


def test_a_node_hung_in_measurement_and_a_node_with_every_port_taken_are_findings(bed):
    # pfull: another program holds the whole range on pfull's address (the first port included);
    # mhang: hello works, every measurement worker hangs. Each is a finding on that node (exit 1),
    # and the hung pairs cost their round's share only: all 3 rounds run, the healthy pair included
    lo, hi = (int(x) for x in PORTS.split("-"))
    assert wait_no_probe_processes() == []  # no earlier run's workers hold this test's ports
    holder = subprocess.Popen(["ip", "netns", "exec", bed.nodes["pfull"]["ns"], sys.executable, "-c",
                               "import socket, sys, time\nss = []\nfor p in range(%d, %d):\n"
                               "    s = socket.socket(); s.bind((%r, p)); s.listen(1); ss.append(s)\n"
                               "print('held', flush=True)\ntime.sleep(120)\n" % (lo, hi + 1,
                                                                                   bed.nodes["pfull"]["addr"])],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        rc, out, err, took = gd(bed, "probe", "--hosts", bed.hostfile(["n1", "n2", "mhang", "pfull"]), "--mode",
                                "tcp", "--json", "--budget", "16", "--tcp-seconds", "0.1", "--ports", PORTS)
    finally:
        holder.kill()
        holder.wait()
    doc = json.loads(out)
    print(json.dumps(doc["pairs"], indent=0), json.dumps(doc["findings"], indent=0))  # shown on failure
    assert doc["isolation"]["rounds_skipped"] == 0
    assert any({p["a"], p["b"]} == {"n1", "n2"} and p["gbps"] and p["pass"] == 1 for p in doc["pairs"])
    failed = {tuple(f["hosts"]): f["observed"] for f in doc["findings"] if f["check"] == "probe.node.failed"}
    assert failed == {("mhang",): "hang", ("pfull",): "port-in-use"}
    # the healthy peers are never blamed for the hung node's pairs
    assert {p["blame"] for p in doc["pairs"] if p["error"]} == {"mhang", "pfull"}
    (taken,) = [f for f in doc["findings"] if f["check"] == "probe.port.in_use"]
    assert taken["hosts"] == ["pfull"] and str(lo) in taken["message"]
    assert rc == 1  # within gd's 120 s: mhang's workers sleep 600 s, so the budget ended the run
    assert wait_no_probe_processes() == []


def test_a_third_party_on_the_peers_address_without_the_key_is_refused(bed):
    # from n2's own namespace (n2's address: the one n1's listener expects), knock on every port
    # of the range with the right tag but not the run's key, all through the probe
    lo, hi = (int(x) for x in PORTS.split("-"))
    knock = subprocess.Popen(["ip", "netns", "exec", bed.nodes["n2"]["ns"], sys.executable, "-c",
                              "import socket, time\nsaid = False\nwhile True:\n    for p in range(%d, %d):\n"
                              "        s = socket.socket(); s.settimeout(0.2)\n"
                              "        try:\n            s.connect((%r, p)); s.sendall(b'U'); s.shutdown(socket.SHUT_WR)\n"
                              "        except OSError:\n            pass\n        s.close()\n"
                              "    said = said or print('knocking', flush=True) or True\n    time.sleep(0.01)\n"
                              % (lo, hi + 1, bed.nodes["n1"]["addr"])], stdout=subprocess.PIPE, text=True)
    try:
        assert knock.stdout.readline().strip() == "knocking"  # it runs before the probe starts
        rc, out, err, took = gd(bed, "probe", "--hosts", bed.hostfile(["n1", "n2"]), "--mode", "tcp", "--json",
                                "--budget", "15", "--tcp-seconds", "0.3", "--ports", PORTS)
    finally:
        knock.kill()
        knock.wait()
    doc = json.loads(out)
    (p,) = [x for x in doc["pairs"] if x["a"] == "n1"]
    assert p["error"] is None and p["gbps"] > 0.2, p  # measured as if nobody had knocked
    assert p.get("rejected", 0) >= 1  # the knocks reached the listener and were turned away
    assert rc == 0 and not [f for f in doc["findings"] if f["severity"] in ("error", "warning")]


def _hello_missed(out):
    """A node's worker that did not say hello within the run's hello window (3 s for these budgets: gpudoctor/
    probe/run.py, _hello) is reported as hung, and with fewer than two live nodes there are no rounds to skip. Seen
    once, at load ~13 with a second copy of the suite running beside this one (2026-11-27): the run is then repeated
    with a larger budget, as for the facts phase. Repeated too where other nodes are left: one round of one pair
    instead of three, isolation present, at load ~10 in a two-worker clean-clone run (2026-11-28, suite24; the
    assertion then showed no node list, which it now does)."""
    try:
        doc = json.loads(out)
    except ValueError:
        return False
    return any(n.get("error_kind") == "hang" for n in doc.get("nodes") or [])


def test_a_short_budget_skips_rounds_and_says_so(bed):
    # A budget of 4 s is too short for 3 rounds of 0.5 s once the four nodes' facts are in. At load ~15 from other
    # sessions the facts alone took the 4 s ('--budget 4s was spent gathering facts', exit 2, no JSON; 3 runs of 4
    # here): only then is the run repeated with a larger budget (6, 9 s); a machine that slow skips rounds in it too
    for budget in (4, 6, 9):
        rc, out, err, took = gd(bed, "probe", "--hosts", bed.hostfile(["n1", "n2", "n3", "slow"]), "--mode", "tcp",
                                "--json", "--budget", str(budget), "--tcp-seconds", "0.5", "--ports", PORTS)
        if not (rc == 2 and "was spent gathering facts" in err) and not _hello_missed(out):
            break
        assert wait_no_probe_processes() == []
    doc = json.loads(out) if out else pytest.fail("no report (exit %s): %s" % (rc, err[-2000:]))
    assert doc["isolation"] is not None, (budget, rc, [(n["host"], n["error_kind"], n["error"]) for n in doc["nodes"]])
    # (each assertion says what it saw: one failure in a full-file run beside another probe run, load ~8, was not
    # reproduced in 6 runs of this test alone and left nothing to read)
    # the run is inside its budget by its own clock (elapsed_s counts from the budget's start, after the imports; the
    # cleanup's grace is at least 2 s: gpudoctor/probe/run.py); the process as a whole, interpreter start and exit
    # included, gets room for a loaded machine (a wall-clock budget + 2 s on the whole process was this test's flake)
    assert doc["elapsed_s"] <= budget + 2.5, (budget, doc["elapsed_s"], took, rc)
    iso = doc["isolation"]
    assert iso["rounds_total"] == 3 and iso["rounds_skipped"] >= 1, (
        budget, iso, [(n["host"], n["error_kind"], n["error"]) for n in doc["nodes"]])
    assert [f["message"] for f in doc["findings"] if f["check"] == "probe.budget"], (budget, doc["findings"])
    assert wait_no_probe_processes() == []
