"""Nodes that misbehave, over real sshd processes on 127.0.0.x (tests/sshcluster.py), and
hostile names that must never reach a command line (issue 12).

One small cluster for the module: a healthy node, and nodes whose python3 streams output
forever, drips a line every 0.3 s, prints crafted facts, prints JSON nested 100,000 deep,
exits 127 for another reason, and a node whose sshd hangs after its banner."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import sshcluster

pytestmark = pytest.mark.skipif(not sshcluster.available() and not os.environ.get("CI"),
                                reason="needs root and openssh-server (tests/run.sh installs it)")

GD = [sys.executable, "-m", "gpudoctor"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PWNED = "/tmp/gpudoctor-pwned-%d" % os.getpid()


def gd(cluster, *args, timeout=60, env=None, prefix=()):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(list(prefix) + GD + list(args) + ["--ssh-config", cluster.ssh_config], capture_output=True,
                       text=True, timeout=timeout, cwd=cluster.base, env=e)
    return p.returncode, p.stdout, p.stderr


def wait_for(pred, timeout, what):
    t0 = time.time()
    while True:
        got = pred()
        if got:
            return got
        if time.time() - t0 > timeout:
            raise AssertionError("%s: not within %gs" % (what, timeout))
        time.sleep(0.05)


def _facts(node="canned", **changes):
    with open(os.path.join(ROOT, "fixtures", "nodes", "devbox-debian12-nogpu.json")) as f:
        doc = json.load(f)
    doc["node"] = node
    doc.update(changes)
    return json.dumps(doc)


@pytest.fixture(scope="module")
def cluster():
    c = sshcluster.Cluster()
    c.add("n1", env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    c.add("stream", script="stream")
    c.add("drip", script="drip")
    c.add("crafted", script="crafted", facts=_facts(
        node="-oProxyCommand=touch %s" % PWNED,
        resolve={"status": "ok", "names": {"a;touch %s" % PWNED: ["127.0.0.1"]}, "timed_out": []}))
    c.add("deep", script="deep", facts='{"schema": "gpudoctor.facts/1", "x": ' + "[" * 100000 + "]" * 100000 + "}")
    c.add("exit127", script="exit127")
    c.add("banner", kind="banner")
    for i in range(24):
        c.add("c%d" % i, script="canned", facts=_facts("c%d" % i))
    c.start()
    yield c
    c.cleanup()


@pytest.fixture(scope="module")
def misbehaving(cluster):
    t0 = time.time()
    rc, out, err = gd(cluster, "check", "--nodes", "n1,stream,drip,crafted,deep,exit127,banner", "--json",
                      "--timeout", "3", "--select", "shm")
    return rc, json.loads(out), err, time.time() - t0


def test_misbehaving_nodes_are_classified_within_the_deadline(misbehaving):
    rc, doc, err, took = misbehaving
    kinds = {n["host"]: n["error_kind"] for n in doc["nodes"]}
    assert kinds == {"n1": None, "stream": "garbage", "drip": "timeout", "crafted": None, "deep": "garbage",
                     "exit127": "collector", "banner": "timeout"}, doc["nodes"]
    assert rc == 1
    # the dripping node does not extend its deadline, the streaming one is cut off at the read cap, the banner's
    # hang ends at --timeout 3: all three would run forever otherwise, so the run ending within gd's 60 s (a
    # deadline on the state "it ended") is the proof, at any load; was a wall-clock bound, took < 12 (suite27)


def test_exit_127_alone_is_not_python_missing(misbehaving):
    _, doc, _, _ = misbehaving
    (node,) = [n for n in doc["nodes"] if n["host"] == "exit127"]
    assert "libpython3.11.so.1.0" in node["error"] and "exited 127" in node["error"]


def test_crafted_facts_never_name_the_node_nor_run_anything(misbehaving):
    _, doc, _, _ = misbehaving
    assert not os.path.exists(PWNED)
    (node,) = [n for n in doc["nodes"] if n["host"] == "crafted"]
    assert node["reachable"] is True
    assert "ProxyCommand" not in json.dumps(doc["nodes"])


def test_nothing_is_left_running_on_a_node_that_timed_out(cluster, misbehaving):
    assert os.path.exists(os.path.join(cluster.bindir("drip"), "started"))  # it did run there
    # within 2 s of the run's end: the controller's kill, not the node-side `timeout`
    # backstop (which fires at --timeout + 5 s, 8 s after the start)
    wait_for(lambda: not sshcluster.leftovers(cluster.marker("drip")), 2, "the drip node's sleep 3600 ended")
    wait_for(lambda: not sshcluster.leftovers("yes garbage"), 2, "the streaming node's `yes` ended")


def test_names_dns_cannot_carry_are_resolve_errors(cluster):
    rc, out, err = gd(cluster, "check", "--nodes", "x..y,%s.example" % ("a" * 64), "--json", "--timeout", "3",
                      "--select", "shm")
    kinds = {n["host"]: n["error_kind"] for n in json.loads(out)["nodes"]}
    assert kinds == {"x..y": "resolve", "a" * 64 + ".example": "resolve"}, kinds
    assert rc == 1


def test_ctrl_c_lists_nodes_in_flight_as_interrupted_and_ends_them(cluster):
    started = os.path.join(cluster.bindir("drip"), "started")
    if os.path.exists(started):
        os.unlink(started)
    # --jobs 1, in hostfile order: drip starts only once n1 has answered, so when drip has
    # started, n1 is done
    p = subprocess.Popen(GD + ["check", "--hosts", cluster.hostfile(["n1", "drip", "crafted"]), "--jobs", "1", "--json", "--timeout", "60",
                               "--select", "shm", "--ssh-config", cluster.ssh_config], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=cluster.base)
    try:
        wait_for(lambda: os.path.exists(started), 20, "the drip node started")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=15)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    nodes = {n["host"]: n for n in json.loads(out)["nodes"]}
    assert sorted(nodes) == ["crafted", "drip", "n1"]
    assert nodes["n1"]["reachable"] is True
    assert nodes["drip"]["error_kind"] == "interrupted" and nodes["crafted"]["error_kind"] == "interrupted"
    wait_for(lambda: not sshcluster.leftovers(cluster.marker("drip")), 5, "the interrupted node's sleep ended")


def test_jobs_above_the_open_file_limit_never_blame_nodes(cluster):
    """24 nodes at once under `ulimit -n 24`: the pool must fit the limit (before: "Too
    many open files" blamed on the nodes)."""
    names = ",".join("c%d" % i for i in range(24))
    rc, out, err = gd(cluster, "check", "--nodes", names, "--jobs", "256", "--json", "--timeout", "10",
                      "--select", "shm", prefix=["prlimit", "--nofile=24:24"])
    doc = json.loads(out)
    bad = [(n["host"], n["error"]) for n in doc["nodes"] if not n["reachable"]]
    assert bad == [] and len(doc["nodes"]) == 24, (bad, err)


@pytest.mark.parametrize("source", ["--nodes", "hostfile", "slurm"])
@pytest.mark.parametrize("name", ["-oProxyCommand=touch " + PWNED, "a;touch " + PWNED, "a$(touch %s)" % PWNED,
                                  "-Eowned"],
                         ids=["proxycommand", "semicolon", "subshell", "-Eowned"])  # no pid: xdist workers agree
def test_hostile_names_are_refused_before_any_command(cluster, tmp_path, source, name):
    """An ssh config whose `Match exec` runs a shell with %h: a hostile name must never
    reach it (paramiko runs Match exec through a shell, as OpenSSH does)."""
    log = tmp_path / "match-exec.log"
    conf = tmp_path / "ssh_config"
    conf.write_text('Match exec "echo %%h >> %s"\n  User nobody\n\n' % log + open(cluster.ssh_config).read())
    env = {}
    if source == "--nodes":
        args = ["--nodes=" + name]
    elif source == "hostfile":
        hf = tmp_path / "hostfile"
        hf.write_text(name + "\n")
        args = ["--hosts", str(hf)]
    else:
        args, env = [], {"SLURM_JOB_NODELIST": name, "SLURM_JOB_ID": "7"}
    e = dict(os.environ, **env)
    p = subprocess.run(GD + ["check", "--mesh", "--timeout", "3", "--ssh-config", str(conf)] + args,
                       capture_output=True, text=True, timeout=30, cwd=str(tmp_path), env=e)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert len(p.stderr.strip().splitlines()) == 1 and p.stderr.startswith("gpudoctor: error: "), p.stderr
    if source != "hostfile":  # the hostfile parser refuses such lines with its own message
        assert "is not a host name" in p.stderr
    assert not os.path.exists(PWNED) and not log.exists()


def test_match_exec_runs_for_a_valid_name(cluster, tmp_path):
    """The control for the test above: the same ssh config does run Match exec for n1."""
    log = tmp_path / "match-exec.log"
    conf = tmp_path / "ssh_config"
    conf.write_text('Match exec "echo %%h >> %s"\n  ServerAliveInterval 5\n\n' % log + open(cluster.ssh_config).read())
    p = subprocess.run(GD + ["check", "--nodes", "c1", "--timeout", "5", "--select", "shm", "--ssh-config", str(conf)],
                       capture_output=True, text=True, timeout=30, cwd=str(tmp_path))
    assert p.returncode in (0, 1), p.stderr
    assert log.read_text().split() == ["c1"] or "c1" in log.read_text()


def test_options_larger_than_one_argument_travel_in_the_script(cluster):
    """10,000 node names for the resolve section are more than the 128 KiB Linux allows
    one argument (sshd runs the command as `sh -c CMD`): options go in the script."""
    from gpudoctor.inventory import Host
    from gpudoctor.transport import Payload, run

    big = {"padding": ["x" * 100] * 3000}  # ~300 KB of JSON; the collector ignores the key
    (node,) = run([Host("n1")], Payload(python="python3", options=big), via="ssh", timeout=20,
                  ssh_config=cluster.ssh_config)
    assert node.reachable, (node.error_kind, node.error)
    assert node.facts["node"] == "n1"
