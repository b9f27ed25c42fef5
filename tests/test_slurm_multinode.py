"""gpudoctor on a real 4-node Slurm (the session's `multislurm` fixture, tests/slurmcluster.py):
one slurmctld, one slurmd per network namespace, each node with its own hostname, address
and /etc/hosts. sn3 has a 64 MiB /dev/shm (its own mount namespace), sn4 a 64 KiB memlock
limit inherited from its slurmd; sn2 gets an HCA without /dev/infiniband where a test gives
it one; sn1 is healthy.

What runs is what a user runs: `salloc -N4 gpudoctor check` (srun is the default inside an
allocation), `gpudoctor check --via srun --nodes sn[1-4]` from outside one, and the
contrib/slurm prolog and health check as slurmd runs them on every node.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

GD = [sys.executable, "-m", "gpudoctor"]
ALL = "sn[1-4]"


@pytest.fixture
def ms(multislurm, tmp_path):
    """The cluster, every node IDLE and undrained, wrappers off; commands run from a folder
    without a gpudoctor.toml."""
    multislurm.reset()
    multislurm.cwd = str(tmp_path)
    return multislurm


def gd(ms, *args, prefix=(), timeout=60):
    t0 = time.time()
    p = ms.run(*(list(prefix) + GD + list(args)), timeout=timeout, cwd=ms.cwd)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def nodes_of(out):
    return dict((n["host"], n) for n in json.loads(out)["nodes"])


# slurmctld's own words when it ends a job for a node it gave up on (Slurm's
# src/slurmctld/job_mgr.c, "Killing %pJ on failed node %s"; src/slurmctld/ping_nodes.c,
# set_node_down_ptr(..., "Not responding")): an event of the test bed, not of gpudoctor
_NODE_FAILED = ("on failed node", "Not responding")


def slurmctld_log_size(ms):
    try:
        return os.path.getsize(os.path.join(ms.dir, "slurmctld.log"))
    except OSError:
        return 0


def node_failures_since(ms, offset):
    """slurmctld's lines since ``offset`` that say it killed a job or set a node down because
    a slurmd did not answer."""
    try:
        with open(os.path.join(ms.dir, "slurmctld.log"), errors="replace") as f:
            f.seek(offset)
            return [l.rstrip() for l in f if any(w in l for w in _NODE_FAILED)]
    except OSError:
        return []


def srun_check(ms, *extra, timeout_s=8, every_slurmd_alive=False):
    """One `check --via srun` over the four nodes. A slurmd killed by an earlier test (dead
    slurmd, --fallback ssh) and started again by reset() can still be declared "Not
    responding" by a ping slurmctld sent while it was dead; slurmctld then kills the job on
    every node ("the task was killed" where no task failed: seen once in CI). In a test
    whose slurmds are all meant to be alive (``every_slurmd_alive``), when slurmctld's log
    says so, the cluster is reset and the check runs once more; gpudoctor's own verdicts are
    never retried."""
    for attempt in (1, 2):
        offset = slurmctld_log_size(ms)
        rc, out, err, took = gd(ms, "check", "--via", "srun", "--nodes", ALL, "--json", "--select", "shm",
                                "--timeout", str(timeout_s), *extra)
        failed = node_failures_since(ms, offset)
        if not failed or not every_slurmd_alive or attempt == 2:
            break
        print("slurmctld ended the job for a node, not gpudoctor; once more:", failed)
        ms.reset()
    return rc, nodes_of(out), err, took


def container_evidence():
    """What this machine itself shows of a container, in the collector's order (the nodes
    share its root filesystem, its PID 1 and the environment srun passes on)."""
    if os.path.exists("/.dockerenv"):
        return "docker"
    if os.path.exists("/run/.containerenv"):
        return "podman"
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    try:
        with open("/proc/1/cgroup") as f:
            cg = f.read()
    except OSError:
        cg = ""
    return next((w for w in ("docker", "kubepods", "containerd", "lxc") if w in cg), None)


def test_salloc_check_reaches_every_node_and_fails_shm_on_the_small_node_only(ms):
    rc, out, err, took = gd(ms, "check", "--json", "--timeout", "20", prefix=["salloc", "-N4", "-t", "2"])
    rep = json.loads(out)
    nodes = dict((n["host"], n) for n in rep["nodes"])
    assert sorted(nodes) == ["sn1", "sn2", "sn3", "sn4"], err
    assert all(n["reachable"] for n in nodes.values()), (nodes, err)
    status = dict((c["id"], c["status"]) for c in rep["checks"])
    shm = [f for f in rep["findings"] if f["check"] == "shm.size"]
    assert [f["hosts"] for f in shm] == [["sn3"]] and shm[0]["severity"] == "error", shm
    assert "64.0 MiB" in shm[0]["message"]
    # the label names a container only from evidence of one, never from the small /dev/shm
    label = container_evidence()
    assert ("(container: %s)" % label in shm[0]["message"]) if label else ("container" not in shm[0]["message"])
    # Slurm's per-node and per-task variables (SLURMD_NODENAME, SLURM_NODEID, SLURM_PROCID, ...) are no drift
    assert status["env.parity"] == "pass", [f for f in rep["findings"] if f["check"] == "env.parity"]
    assert "SLURMD_NODENAME" not in out.replace('"SLURMD_NODENAME"', "")
    memlock = dict((tuple(f["hosts"]), f["message"]) for f in rep["findings"] if f["check"] == "limits.memlock")
    assert "64.0 KiB" in memlock[("sn4",)], memlock
    # every node has its own name, and the names resolve on every node (its /etc/hosts)
    assert status["host.name"] == "pass" and status["hosts.resolution"] == "pass", status
    assert rc == 1


def test_srun_gpudoctor_check_in_a_job_is_one_run_of_its_first_task(ms):
    """`srun gpudoctor check --json` in a 4-node job printed four JSON documents on one stdout
    (each task reached all four nodes through a step of its own); now task 0 does it once."""
    rc, out, err, took = gd(ms, "check", "--json", "--select", "shm", "--timeout", "20",
                            prefix=["salloc", "-N4", "-t", "2", "srun"])
    rep = json.loads(out)  # one document
    assert sorted(n["host"] for n in rep["nodes"]) == ["sn1", "sn2", "sn3", "sn4"], err
    assert [f["hosts"] for f in rep["findings"] if f["check"] == "shm.size"] == [["sn3"]], rep["findings"]
    assert err.count("task 0 reaches the nodes for all of them") == 1, err
    assert rc == 1


# The tests that show no node is waited for run with a deadline far above what a loaded machine
# takes: with --timeout 8 and `took < 6` the wall clock alone failed them at load 20-70 on the
# shared 2-core machine (issue 20 audit: 6.x s for the down/drained nodes, over 8 s for --fallback
# ssh), nothing waited for. Nor is a wall-clock bound the proof (it was `took < 20` of the 30 s until
# suite29): each such node's message is the preflight's (transport/srun.py _preflight: one scontrol
# call and a TCP connect to the slurmd port, before the step), whose nodes are left out of the step;
# a node the step waited for reads 'timeout' or 'slurmd did not start a task' instead.
NO_WAIT_DEADLINE = 30


def test_down_and_drained_nodes_are_classified_and_the_others_reported(ms):
    ms.run("scontrol", "update", "nodename=sn1", "state=down", "reason=admin: PSU swap", check=True)
    ms.run("scontrol", "update", "nodename=sn2", "state=drain", "reason=admin: DIMM B2", check=True)
    rc, nodes, err, took = srun_check(ms, timeout_s=NO_WAIT_DEADLINE)
    assert (nodes["sn1"]["error_kind"], nodes["sn2"]["error_kind"]) == ("node-down", "node-drained"), nodes
    assert "admin: PSU swap" in nodes["sn1"]["error"] and "admin: DIMM B2" in nodes["sn2"]["error"]
    # the preflight's words: both were left out of the step, srun was not left waiting for them
    assert all("no task can start there" in nodes[h]["error"] for h in ("sn1", "sn2")), (took, nodes)
    assert nodes["sn3"]["reachable"] and nodes["sn4"]["reachable"], (nodes, err)
    assert rc == 1


def test_a_node_an_exclusive_job_holds_is_busy_for_a_check_from_outside_a_job(ms):
    """Outside an allocation gpudoctor's step is a job of its own: it waited in the queue for sn1,
    and every node was reported as a hung slurmd (slurm21)."""
    job = ms.run("sbatch", "--parsable", "--exclusive", "-w", "sn1", "-o", "/dev/null", "--wrap", "sleep 120",
                 check=True).stdout.strip().split(";")[0]
    try:
        ms.wait(lambda st: st["sn1"][0].startswith("ALLOCATED"), what="sn1 allocated to job %s" % job)
        rc, nodes, err, took = srun_check(ms, timeout_s=NO_WAIT_DEADLINE)
    finally:
        ms.run("scancel", job)
    # the preflight's words (CPUAlloc of scontrol show node): left out, not waited for in the queue
    assert nodes["sn1"]["error_kind"] == "node-busy" and "CPUAlloc=2 of CPUTot=2" in nodes["sn1"]["error"], (
        took, nodes)
    assert all(nodes[h]["reachable"] for h in ("sn2", "sn3", "sn4")), (nodes, err)
    assert rc == 1


def test_a_dead_slurmd_is_classified_before_slurmctld_notices(ms):
    for attempt in (1, 2):
        ms.kill_slurmd("sn2")
        assert ms.states()["sn2"][0] == "IDLE"  # slurmctld still offers it
        rc, nodes, err, took = srun_check(ms, timeout_s=NO_WAIT_DEADLINE)
        noticed = ms.states()["sn2"]  # 'DOWN*' / 'IDLE*' (NOT_RESPONDING), reason 'Not responding'
        if attempt == 2 or noticed[0] == "IDLE" or nodes["sn2"]["error_kind"] != "node-down":
            break
        # slurmctld's ping (SlurmdTimeout 10 s) declared sn2 "Not responding" before gpudoctor read the node's
        # state (seen once in CI on a loaded machine): node-down is then the right answer for what slurmctld
        # said; the window before it notices is tried once more with a fresh slurmd
        print("slurmctld noticed the dead slurmd first; once more:", noticed)
        ms.reset()
    # the preflight's words (a refused connect to its slurmd port): left out of the step, not waited for
    assert nodes["sn2"]["error_kind"] == "slurmd" and "connection refused" in nodes["sn2"]["error"], (took, nodes)
    assert all(nodes[h]["reachable"] for h in ("sn1", "sn3", "sn4")), (nodes, err)
    assert rc == 1


def test_fallback_ssh_reaches_the_nodes_srun_cannot_and_the_report_says_how(ms):
    """--fallback ssh (or the config key): a node whose slurmd is dead, or that is not in the
    allocation, is retried over ssh (an sshd in sn2's own namespaces); every node says which
    transport reached it. Without it the same nodes are classified errors (the tests above)."""
    ssh_config = ms.start_sshd("sn2")
    ms.kill_slurmd("sn2")
    rc, nodes, err, took = srun_check(ms, "--fallback", "ssh", "--ssh-config", ssh_config, timeout_s=NO_WAIT_DEADLINE)
    assert nodes["sn2"]["reachable"] and nodes["sn2"]["via"] == "ssh", (nodes["sn2"], err)
    assert "slurmd" in nodes["sn2"]["fallback_from"] and "connection refused" in nodes["sn2"]["fallback_from"]
    assert [nodes[h]["via"] for h in ("sn1", "sn3", "sn4")] == ["srun"] * 3, nodes
    assert rc == 1, (rc, took)  # sn3's small /dev/shm; sn2 left out by the preflight (connection refused), not waited for
    # a node outside the job: srun cannot start a step there; the config key allows ssh
    with open(os.path.join(ms.cwd, "gpudoctor.toml"), "w") as f:
        f.write('fallback = "ssh"\n')
    rc, out, err, took = gd(ms, "check", "--via", "srun", "--nodes", ALL, "--select", "shm", "--timeout", "8",
                            "--ssh-config", ssh_config, prefix=["salloc", "-N3", "-w", "sn[1,3-4]", "-t", "1"])
    assert "NOTE node sn2 reached over ssh, not srun (srun: not-allocated: not a node of job" in out, (out, err)
    assert "FAIL node" not in out and rc == 1, (out, err)


def test_hung_garbage_and_missing_python_nodes_beside_a_healthy_one(ms):
    """One interpreter wrapper, different on each node: sn2 prints a banner, sn4 hangs, and on
    sn3 it does not exist (it lives in /dev/shm, which is sn3's own tmpfs)."""
    path = "/dev/shm/gd-multinode-py-%d" % os.getpid()
    with open(path, "w") as f:
        f.write('#!/bin/sh\ncase "$SLURMD_NODENAME" in\n  sn2) echo "Welcome to sn2"; exit 0;;\n'
                '  sn4) exec sleep 600;;\nesac\nexec python3 "$@"\n')
    os.chmod(path, 0o755)
    try:
        # 6 s: the step's launch on 4 nodes takes 2-3 s on a loaded 2-core machine; with 4 s it
        # was once killed before any task had answered (every node "the task was killed")
        rc, nodes, err, took = srun_check(ms, "--python", path, timeout_s=6, every_slurmd_alive=True)
    finally:
        os.unlink(path)
    kinds = dict((h, n["error_kind"]) for h, n in nodes.items())
    assert kinds == {"sn1": None, "sn2": "garbage", "sn3": "python-missing", "sn4": "timeout"}, (
        nodes, err, ms.log_tail())
    assert nodes["sn1"]["reachable"] and "Welcome to sn2" in nodes["sn2"]["error"]
    # sn4 hangs for 600 s, ten times gd's 60 s deadline on the whole run: a run that ended at all, with sn4 a
    # 'timeout', was ended by its --timeout 6 (was `took < 6 + 5`, a wall-clock bound: suite29)
    assert rc == 1, (rc, took)


# no limits.memlock: beside an HCA, the 8 MiB memlock this machine allows fails too (ibv_reg_mr)
WITH_RDMA = ("shm.size", "rdma.ports")


def test_prolog_drains_only_the_bad_nodes_by_name_and_the_health_check_resumes_them(ms):
    """sn3's /dev/shm is too small; sn2 has its HCA (mlx5_0, port ACTIVE) but no
    /dev/infiniband (a required device file missing): both are drained, each by name with
    its own reason; sn1 and sn4 are not."""
    ms.uverbs("sn2", hca=True)
    ms.set_config('shm_min = "1GiB"\n', checks=WITH_RDMA)
    ms.enable("prolog")
    r = ms.run("srun", "-N4", "-t", "1", "true", timeout=60)
    assert r.returncode != 0 and "prolog" in r.stderr.lower(), r.stderr
    st = ms.wait(lambda st: "DRAIN" in st["sn3"][0] and "DRAIN" in st["sn2"][0], 20, "sn2 and sn3 drained")
    assert (st["sn3"][1] or "").startswith("gpudoctor: shm.size: /dev/shm is 64.0 MiB"), st
    # ("inside a docker container the RDMA devices are visible in /sys but ..." where this machine is one)
    assert (st["sn2"][1] or "").startswith("gpudoctor: rdma.ports: ") and \
        "/dev/infiniband lacks rdma_cm, uverbs0" in st["sn2"][1], st
    assert [n for n in ("sn1", "sn4") if "DRAIN" in st[n][0] or st[n][1]] == [], st
    # Slurm 22.05: the second of the two nodes to fail this srun's prolog cannot kill the job
    # (already completing) and its slurmd retries every 15 s, re-draining the node with
    # "Prolog error" once the health check resumed it (slurmcluster.end_prolog_retries): a
    # new slurmd on each ends that; the nodes keep gpudoctor's drains
    assert sorted(ms.end_prolog_retries(["sn2", "sn3"])) == ["sn2", "sn3"]
    now = ms.states()
    assert [(now[n][1], "DRAIN" in now[n][0]) for n in ("sn2", "sn3")] == [(st[n][1], True) for n in ("sn2", "sn3")], now
    # a job on the healthy nodes runs through the same prolog
    ok = ms.run("srun", "-N2", "-x", "sn[2-3]", "-t", "1", "true", timeout=60)
    assert ok.returncode == 0, ok.stderr
    # both are fixed (sn2's devices appear; the operator lowers the shm minimum here); slurmd's
    # periodic health check resumes them
    ms.uverbs("sn2", hca=True, devices=True)
    ms.set_config('shm_min = "32MiB"\n', checks=WITH_RDMA)
    ms.enable("hc")
    # a deadline, not a wait: HealthCheckInterval=1 resumed both within 3 s here, and not within 20 s once in CI
    # (2026-11-29, a loaded machine; the message now carries each node's passes, slurmcluster.hook_logs)
    ms.wait(lambda st: all("DRAIN" not in st[n][0] and st[n][1] is None for n in ("sn2", "sn3")), 90,
            "sn2 and sn3 resumed by the health check")
    ms.enable("hc", False)
    # resumed: IDLE+NOT_RESPONDING until slurmd answers slurmctld (which 22.05 here did not
    # ask within a minute); a reconfigure makes every slurmd register at once
    ms.run("scontrol", "reconfigure", check=True)
    ms.wait_idle(timeout=20)
    assert ms.run("srun", "-N4", "-t", "1", "true", timeout=60).returncode == 0


def test_a_broken_gpudoctor_config_or_a_crashed_check_drains_no_node(ms):
    """A typo in gpudoctor.toml (exit 2) or a check that crashes (a gpudoctor bug: here a
    plugin check that raises, installed on every node's PYTHONPATH) is gpudoctor's failure,
    not the nodes': the prolog lets every job run and nothing is drained."""
    with open(ms.gd_config, "w") as f:
        f.write("shm_min = [unclosed\n")
    ms.enable("prolog")
    r = ms.run("srun", "-N4", "-t", "1", "true", timeout=60)
    assert r.returncode == 0, r.stderr
    st = ms.states()
    assert not [n for n, (s, why) in st.items() if "DRAIN" in s or why], st
    plug = os.path.join(ms.dir, "crashplug")
    os.makedirs(os.path.join(plug, "gdcrash-0.dist-info"), exist_ok=True)
    with open(os.path.join(plug, "gdcrash-0.dist-info", "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: gdcrash\nVersion: 0\n")
    with open(os.path.join(plug, "gdcrash-0.dist-info", "entry_points.txt"), "w") as f:
        f.write("[gpudoctor.checks]\ncrash = gdcrash_checks\n")
    with open(os.path.join(plug, "gdcrash_checks.py"), "w") as f:
        f.write("from gpudoctor.registry import check\n\n\n@check('site.crash', title='crashes', needs=('host',))\n"
                "def crash(facts, config):\n    raise RuntimeError('a bug')\n")
    ms.set_config("", checks=("site.crash",))
    with open(ms.defaults) as f:
        defaults = f.read()
    try:
        with open(ms.defaults, "a") as f:
            f.write("PYTHONPATH=%s\n" % plug)
        r = ms.run("srun", "-N4", "-t", "1", "true", timeout=60)
    finally:
        with open(ms.defaults, "w") as f:
            f.write(defaults)
    assert r.returncode == 0, r.stderr
    # what the prolog saw: the plugin loaded and its check crashed (not "no such check", exit 2)
    seen = ms.run(ms.gpudoctor, "slurm-health", "--fast", "--dry-run", "--node", "sn1", "--no-history",
                  env={"PYTHONPATH": plug, "GPUDOCTOR_CONFIG": ms.gd_config}, cwd=ms.cwd)
    assert seen.returncode not in (0, 1, 2) and "a check crashed" in seen.stdout + seen.stderr, seen
    st = ms.states()
    assert not [n for n, (s, why) in st.items() if "DRAIN" in s or why], st


def test_srun_steps_run_beside_a_busy_step_in_the_allocation(ms):
    """Inside a 4-node allocation whose nodes are all held by a running step, gpudoctor's
    step overlaps (--overlap) and reaches all four."""
    marker = os.path.join(ms.cwd, "busy")
    inner = ("srun -N4 --ntasks-per-node=1 sh -c 'touch %s.$SLURMD_NODENAME; sleep 30' & busy=$!; "
             "while [ $(ls %s.* 2>/dev/null | wc -l) -lt 4 ]; do sleep 0.05; done; "
             "%s -m gpudoctor check --json --select shm --timeout 8; rc=$?; kill -TERM $busy; wait $busy; exit $rc"
             % (marker, marker, sys.executable))
    t0 = time.time()
    p = ms.run("salloc", "-N4", "-t", "2", "sh", "-c", inner, timeout=60, cwd=ms.cwd)
    nodes = nodes_of(p.stdout)
    assert all(n["reachable"] for n in nodes.values()) and len(nodes) == 4, (nodes, p.stderr)
    assert time.time() - t0 < 20


def test_probe_inside_an_allocation_starts_its_workers_with_srun_and_names_the_slow_node(ms):
    """No SSH anywhere (none runs on these nodes, and their names do not resolve here): the
    TCP workers are srun steps, and sn2's link, slowed by tc to 20 Mbit/s, is named.
    --slow-ratio 0.2 as in test_probe_tcp: veths on a shared 2-core machine vary 2-3x."""
    ms.slow("sn2", "20mbit")
    rc, out, err, took = gd(ms, "probe", "--mode", "tcp", "--json", "--budget", "40", "--tcp-seconds", "0.3",
                            "--ports", "45300-45340", "--slow-ratio", "0.2", prefix=["salloc", "-N4", "-t", "2"])
    doc = json.loads(out)
    assert doc["transport"] == "srun", doc.get("transport")
    assert all(n["reachable"] for n in doc["nodes"]), (doc["nodes"], err)
    assert doc["addresses"]["sn2"] == ms.addr(2)  # peers reach each node at its Slurm NodeAddr
    assert doc["isolation"]["slow_nodes"] == ["sn2"], (doc["isolation"], doc["pairs"])
    assert all(c.get("left") == 0 for c in doc["cleanup"].values()), doc["cleanup"]
    assert rc == 1



def test_a_hung_slurmd_in_an_allocation_times_out_alone(ms):
    """slurmd stopped (SIGSTOP: alive, its port still accepts, it answers nothing) on a node
    of a running allocation: the launch there fails or times out, the others are reported."""
    started, go, report = (os.path.join(ms.cwd, n) for n in ("started", "go", "report.json"))
    inner = ("touch %s; while [ ! -e %s ]; do sleep 0.05; done; %s -m gpudoctor check --json --select shm "
             "--timeout 8 -o %s.tmp; mv %s.tmp %s" % (started, go, sys.executable, report, report, report))
    p = subprocess.Popen(["salloc", "-N4", "-t", "2", "sh", "-c", inner], env=ms.env, cwd=ms.cwd,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stopped = ms.slurmd["sn2"]
    try:
        t0 = time.time()
        while not os.path.exists(started):
            assert p.poll() is None and time.time() - t0 < 30, p.communicate()
            time.sleep(0.05)
        os.killpg(stopped.pid, signal.SIGSTOP)
        open(go, "w").close()
        t0 = time.time()
        while not os.path.exists(report) and p.poll() is None and time.time() - t0 < 40:
            time.sleep(0.05)
        took = time.time() - t0
    finally:
        os.killpg(stopped.pid, signal.SIGCONT)  # salloc ends the job only once sn2 answers again
    out, err = p.communicate(timeout=60)
    assert os.path.exists(report), (took, p.returncode, out[-3000:], err[-3000:], ms.log_tail())
    with open(report) as f:
        nodes = nodes_of(f.read())
    # The step was given up for sn2 after 3 s without a word, each silent node tried alone, and the step run again
    # without it (transport/srun.py _run_all), not waited out to the deadline: the state is sn2's message from that
    # path. (Was `took < 8 + 2`, a wall-clock bound: 11.9 s at load ~16 in suite28's CI, the rerun alone has >= 5 s.)
    assert nodes["sn2"]["error_kind"] == "slurmd" and "did not start a task" in nodes["sn2"]["error"], nodes
    assert "so the others were gathered without it" in nodes["sn2"]["error"], (took, nodes["sn2"])
    assert all(nodes[h]["reachable"] for h in ("sn1", "sn3", "sn4")), (nodes, err)


def test_a_batch_job_whose_prolog_fails_on_one_node_runs_on_healthy_ones(ms):
    """slurm.conf(5) Prolog + SchedulerParameters=nohold_on_prolog_fail across nodes: the job
    lands first on sn[1-3], sn3's prolog fails (its /dev/shm), gpudoctor drains sn3 by name,
    the job is requeued unheld and then runs on sn1, sn2 and sn4."""
    import slurmcluster

    ms.set_config('shm_min = "1GiB"\n')
    ms.enable("prolog")
    # slurmctld sends the batch script to sn1 at allocation, and sn1 runs it once its own prolog
    # has passed, whatever sn3's prolog says later (slurmctld.log here: "_job_complete: JobId=1
    # WEXITSTATUS 0", then "Requeuing JobId=1" 18 ms after). The first run waits to be ended by
    # the requeue; the rerun says where it ran and exits. SLURM_RESTART_COUNT: sbatch(1), OUTPUT
    # ENVIRONMENT VARIABLES.
    script = '[ "${SLURM_RESTART_COUNT:-0}" -ge 1 ] || exec sleep 60; echo "run $SLURM_RESTART_COUNT on $SLURM_JOB_NODELIST"'
    r = ms.run("sbatch", "-N3", "-t", "1", "--chdir", ms.cwd, "-o", "job-%j.out", "--wrap", script, "--parsable",
               check=True)
    job = r.stdout.strip().split(";")[0]

    def fields():
        line = ms.run("scontrol", "show", "job", "-o", job, check=True).stdout
        return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)

    st = ms.wait(lambda st: "DRAIN" in st["sn3"][0], 30, "sn3 drained by the prolog")
    # gpudoctor drains before its prolog exits, so slurmctld keeps gpudoctor's reason when slurmd
    # then reports the failure (validate_node_specs() drains with "Prolog error" only a node not
    # yet drained: src/slurmctld/node_mgr.c). "Prolog error" here came from an earlier test's
    # slurmd still retrying an srun's failed prolog (ms.reset() now ends those retries).
    assert (st["sn3"][1] or "").startswith("gpudoctor: shm.size:"), st
    assert all("DRAIN" not in st[h][0] for h in ("sn1", "sn2", "sn4")), st
    t0 = time.time()
    while True:  # one read of the job a round: JobState and Restarts of the same moment
        f = fields()
        if f.get("Restarts") == "1" and f.get("JobState") == "PENDING":
            pending_at = time.time()
            break
        assert time.time() - t0 < 30, f
        time.sleep(0.05)
    assert f.get("Reason") != "launch_failed_requeued_held", f
    # Slurm makes a requeued job eligible ~2 minutes later; its owner may move that to now, in a
    # later second than the requeue's kill (slurmcluster.start_requeued_now: a rerun started in
    # the same second was refused by slurmd, its credential revoked, and the job ended FAILED)
    slurmcluster.start_requeued_now(ms.run, job, pending_at)
    t0 = time.time()
    while f.get("JobState") not in ("COMPLETED", "FAILED", "CANCELLED"):
        assert time.time() - t0 < 60, (f, ms.states())
        time.sleep(0.05)
        f = fields()
    ms.run("scancel", job)
    try:
        with open(os.path.join(ms.cwd, "job-%s.out" % job)) as out:
            said = out.read()
    except OSError as e:
        said = str(e)
    assert f["JobState"] == "COMPLETED" and f["NodeList"] == "sn[1-2,4]" and f["Restarts"] == "1", (
        f, said, ms.states(), ms.log_lines(job))
    # the rerun itself ran, on the healthy nodes (its own words in the job's output file)
    assert "run 1 on sn[1-2,4]" in said, said


def test_probe_via_ssh_inside_an_allocation_is_the_users_choice(ms):
    """--via ssh overrides the allocation's srun default (the nodes here run no sshd and their
    names do not resolve on this machine: every node fails over ssh, and says so)."""
    rc, out, err, took = gd(ms, "probe", "--via", "ssh", "--mode", "tcp", "--json", "--budget", "10",
                            prefix=["salloc", "-N2", "-t", "1"])
    doc = json.loads(out)
    assert doc["transport"] == "ssh" and not any(n["reachable"] for n in doc["nodes"]), doc["nodes"]


def test_the_early_step_in_an_allocation_carries_the_first_part(ms, tmp_path):
    """`salloc -N4 gpudoctor facts`: the srun step cli.main starts first (early_srun.py) carries
    the nodes' first part in its environment once the collector's blob is cached (the run before
    builds it), and the transport takes that step (one srun a run): every node answers."""
    import shutil

    log, bin_dir = tmp_path / "srun.log", tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "srun").write_text('#!/bin/sh\necho "srun ${GPUDOCTOR_PAYLOAD:+env}" >> %s\nexec %s "$@"\n' % (
        log, shutil.which("srun", path=ms.env["PATH"])))
    (bin_dir / "srun").chmod(0o755)
    (tmp_path / "cache").mkdir(0o700)
    env = {"PATH": "%s:%s" % (bin_dir, ms.env["PATH"]), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for run in (1, 2):
        if log.exists():
            log.unlink()
        p = ms.run(*(["salloc", "-N4", "-t", "2"] + GD + ["facts", "--timeout", "20"]), env=env, cwd=ms.cwd,
                   timeout=60)
        got = json.loads(p.stdout)
        assert sorted(got) == ["sn1", "sn2", "sn3", "sn4"] and p.returncode == 0, (p.stdout[-500:], p.stderr[-2000:])
        assert all(d.get("schema") == "gpudoctor.facts/1" for d in got.values()), p.stderr[-2000:]
    assert log.read_text().splitlines() == ["srun env"], log.read_text()
