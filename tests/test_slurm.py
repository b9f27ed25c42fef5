"""contrib/slurm/ against a real single-node Slurm (Debian's slurmctld + slurmd 22.05).

One slurmctld and one slurmd per test module, private paths under tmp, auth/none, free
ports. slurm.conf's Prolog= and HealthCheckProgram= point at
two-line wrappers that name the settings file and exec the repository's own
contrib/slurm/prolog.sh and healthcheck.sh: the recipe docs/slurm.md gives, run as
slurmd runs it (as root, no PATH, nothing of slurmd's environment but its rlimits).

What a test changes between runs is gpudoctor's config (GPUDOCTOR_CONFIG in the
settings file): a `shm_min` larger than this machine's /dev/shm makes shm.size fail.

Every test that acts and then looks waits on the state it expects with a deadline
(wait_state, wait_job): slurmctld updates node and job state asynchronously (a finished
srun leaves the node IDLE+COMPLETING for a moment, a failed prolog's batch job passes
through COMPLETING before it is PENDING again).
"""

import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTRIB = os.path.join(ROOT, "contrib", "slurm")
NODE = "gdnode1"  # not the hostname: shows the scripts use $SLURMD_NODENAME
SLURMD_MEMLOCK = 64 * 1024  # slurmd's own RLIMIT_MEMLOCK: every prolog and job inherits it
FAIL_SHM = 'shm_min = "64TiB"\n'


def _need(exe):
    path = shutil.which(exe) or ("/usr/sbin/" + exe if os.access("/usr/sbin/" + exe, os.X_OK) else None)
    if path:
        return path
    msg = "%s is not installed (tests/run.sh installs Debian's slurmctld/slurmd)" % exe
    if os.environ.get("CI"):
        pytest.fail(msg)
    pytest.skip(msg)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _gpudoctor_exe(tmp):
    """The venv's console script when installed (the prolog has no PATH); else a shim."""
    exe = os.path.join(os.path.dirname(sys.executable), "gpudoctor")
    if os.access(exe, os.X_OK):
        return exe
    shim = os.path.join(tmp, "gpudoctor")
    with open(shim, "w") as f:
        f.write('#!/bin/sh\nPYTHONPATH=%s exec %s -m gpudoctor "$@"\n' % (ROOT, sys.executable))
    os.chmod(shim, 0o755)
    return shim


class Slurm:
    def __init__(self, d):
        self.dir = d
        self.conf = os.path.join(d, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.gd_config = os.path.join(d, "gpudoctor.toml")
        self.defaults = os.path.join(d, "gpudoctor.defaults")
        self.prolog_report = os.path.join(d, "prolog-report.json")
        self.hc_enabled = os.path.join(d, "healthcheck.enabled")
        self.hc_lock = os.path.join(d, "healthcheck.lock")
        self.state_dir = os.path.join(d, "gdstate")  # the hooks' history; emptied before each test (conftest)

    def run(self, *argv, timeout=30, check=False):
        p = subprocess.run(list(argv), env=self.env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=timeout)
        if check:
            assert p.returncode == 0, (argv, p.stdout, p.stderr)
        return p

    def node(self):
        line = self.run("scontrol", "show", "node", "-o", NODE, check=True).stdout
        state = re.search(r"\bState=(\S+)", line).group(1)
        m = re.search(r"\bReason=(.*?)(?: \[[^\]]*\])?\s*$", line)
        return state, (m.group(1) if m else None)

    def wait_state(self, pred, timeout=15):
        t0 = time.time()
        while True:
            state, reason = self.node()
            if pred(state, reason):
                return state, reason
            if time.time() - t0 > timeout:
                raise AssertionError("node stuck in %s (%s)" % (state, reason))
            time.sleep(0.1)

    def job(self, job):
        line = self.run("scontrol", "show", "job", "-o", job, check=True).stdout
        return dict(re.findall(r"\b(\w+)=(\S*)", line)), line

    def wait_job(self, job, pred, timeout=30, what="job state"):
        """Poll scontrol until pred(fields) holds or the deadline passes; then fail with the last line."""
        t0 = time.time()
        while True:
            fields, line = self.job(job)
            if pred(fields):
                return fields
            if time.time() - t0 > timeout:
                raise AssertionError("%s not reached within %ss: %s" % (what, timeout, line))
            time.sleep(0.1)

    def periodic_off(self, timeout=60):
        """Turn slurmd's periodic health check off and wait (with a deadline) for a run already in flight:
        a run holds hc.lock while it reads the switch and the config, so once the lock is ours no run that
        saw the switch on is left."""
        import fcntl

        if os.path.exists(self.hc_enabled):
            os.unlink(self.hc_enabled)
        with open(self.hc_lock, "a") as f:
            deadline = time.time() + timeout
            while True:
                try:
                    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    assert time.time() < deadline, "a periodic health check still running after %ss" % timeout
                    time.sleep(0.1)
            fcntl.flock(f, fcntl.LOCK_UN)

    def set_config(self, text):
        # The site's config. It selects the checks these tests control, so that other checks
        # about this machine (its hostname resolves to 127.0.0.1, say) cannot fail the baseline.
        with open(self.gd_config, "w") as f:
            f.write('select = ["shm.size", "limits.memlock"]\n' + text)

    def healthcheck(self, **env):
        """contrib/slurm/healthcheck.sh as slurmd runs it: root, only SLURMD_NODENAME in the environment."""
        e = {"SLURMD_NODENAME": NODE}
        e.update(env)
        return subprocess.run(["env", "-i"] + ["%s=%s" % kv for kv in e.items()] + [os.path.join(self.dir, "hc")],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, cwd=self.dir)

    def srun(self):
        return self.run("srun", "-N1", "-w", NODE, "-t", "1", "true", timeout=60)


@pytest.fixture(scope="module")
def slurm(tmp_path_factory, request):
    """One slurmctld and one slurmd for the module. A module that sets SLURM_HOOKS = False
    (tests/test_transport_srun.py) gets no Prolog= and no HealthCheckProgram=: with
    PrologFlags=Alloc every job waited for gpudoctor's prolog, and every salloc waited at
    least 3 s for it (salloc polls every 3 s after two quick looks: POLL_SLEEP,
    src/salloc/salloc.c _wait_nodes_ready, Slurm 22.05.8)."""
    slurmctld, slurmd = _need("slurmctld"), _need("slurmd")
    for exe in ("scontrol", "srun", "sinfo"):
        _need(exe)
    if os.geteuid() != 0:
        msg = "slurmd must run as root (SlurmdUser=root) for these tests"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    d = str(tmp_path_factory.mktemp("slurm"))
    os.chmod(d, 0o755)
    s = Slurm(d)
    for sub in ("state", "spool"):
        os.makedirs(os.path.join(d, sub))
    host = socket.gethostname().split(".")[0]
    # The settings file contrib/slurm/*.sh read (docs/slurm.md: /etc/default/gpudoctor).
    with open(s.defaults, "w") as f:
        f.write("GPUDOCTOR=%s\nGPUDOCTOR_CONFIG=%s\nSLURM_CONF=%s\nGPUDOCTOR_TIMEOUT=20\nGPUDOCTOR_STATE_DIR=%s\n"
                'GPUDOCTOR_PROLOG_ARGS="--ignore ssh --format json -o %s"\n'
                % (_gpudoctor_exe(d), s.gd_config, s.conf, s.state_dir, s.prolog_report))
    s.set_config("")
    # slurm.conf takes a path and no arguments: the site's wrapper names the settings file.
    with open(os.path.join(d, "prolog"), "w") as f:
        f.write("#!/bin/sh\nGPUDOCTOR_DEFAULTS=%s exec %s/prolog.sh\n" % (s.defaults, CONTRIB))
    with open(os.path.join(d, "hc"), "w") as f:
        f.write("#!/bin/sh\nGPUDOCTOR_DEFAULTS=%s exec %s/healthcheck.sh\n" % (s.defaults, CONTRIB))
    # What slurmd runs every HealthCheckInterval: off unless a test enables it, so the
    # periodic run cannot race the tests that drive the health check by hand.
    with open(os.path.join(d, "hc-periodic"), "w") as f:
        # The run holds hc.lock from before it looks at the switch to its end, so that turning it off
        # (Slurm.periodic_off) can wait for a run already in flight: one that had seen the switch on and
        # read the next test's failing config drained the node before that test's job launched (CI).
        f.write("#!/bin/sh\nexec flock %s sh -c '[ -e %s ] || exit 0; exec %s/hc'\n" % (s.hc_lock, s.hc_enabled, d))
    for name in ("prolog", "hc", "hc-periodic"):
        os.chmod(os.path.join(d, name), 0o755)
    with open(s.conf, "w") as f:
        f.write("""ClusterName=gd%(port)d
SlurmctldHost=%(host)s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=%(port)d
SlurmdPort=%(dport)d
AuthType=auth/none
CredType=cred/none
StateSaveLocation=%(d)s/state
SlurmdSpoolDir=%(d)s/spool
SlurmctldPidFile=%(d)s/slurmctld.pid
SlurmdPidFile=%(d)s/slurmd.pid
SlurmctldLogFile=%(d)s/slurmctld.log
SlurmdLogFile=%(d)s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# 1, not 2: with 2 slurmctld returns an admin's DOWN node to service at its next registration,
# which raced test_healthcheck_leaves_a_down_node_with_an_admin_reason (slurm.conf(5), ReturnToService)
ReturnToService=1
%(hooks)sNodeName=%(node)s NodeHostname=%(host)s NodeAddr=127.0.0.1 CPUs=2 RealMemory=500 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""" % {"host": host, "port": _free_port(), "dport": _free_port(), "d": d, "node": NODE,
       "hooks": ("Prolog=%(d)s/prolog\nPrologFlags=Alloc\nSchedulerParameters=nohold_on_prolog_fail\n"
                 "HealthCheckProgram=%(d)s/hc-periodic\nHealthCheckInterval=1\n" % {"d": d})
       if getattr(request.module, "SLURM_HOOKS", True) else ""})

    def small_memlock():
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (SLURMD_MEMLOCK, SLURMD_MEMLOCK))

    procs = []
    try:
        procs.append(subprocess.Popen([slurmctld, "-D", "-f", s.conf], env=s.env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=d))
        procs.append(subprocess.Popen([slurmd, "-D", "-f", s.conf, "-N", NODE], env=s.env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=d,
                                      preexec_fn=small_memlock))
        t0 = time.time()
        while True:
            for p in procs:
                assert p.poll() is None, "a Slurm daemon exited; see %s/*.log" % d
            r = s.run("scontrol", "show", "node", "-o", NODE)
            if r.returncode == 0 and re.search(r"\bState=IDLE\s", r.stdout):
                break
            assert time.time() - t0 < 30, "node never became idle: %s %s" % (r.stdout, r.stderr)
            time.sleep(0.1)
        yield s
    finally:
        _stop(reversed(procs))


def _stop(procs, timeout=15):
    """SIGTERM each daemon in turn (slurmd first, while slurmctld still answers the RPCs its
    threads may be in) and wait for it to exit, repeating the signal while it runs. slurmd
    22.05 loses a SIGTERM that lands during a reconfigure (the last test's `scontrol
    reconfigure`): its handler only sets _shutdown, and _msg_engine goes from _reconfigure()
    back to a blocking accept() without looking at it: it waited for a connection that never
    came, and this teardown waited out its 10 s timeout (1 run in 4 here). A second SIGTERM
    interrupts the accept() (EINTR) and the loop ends. src/slurmd/slurmd/slurmd.c, _msg_engine
    and slurmd_shutdown. slurmctld's signal thread returns after the first one: more stay
    pending. SIGKILL only past the deadline."""
    end = time.time() + timeout
    for p in procs:
        p.terminate()
        while True:
            try:
                p.wait(timeout=min(0.25, max(0.01, end - time.time())))
                break
            except subprocess.TimeoutExpired:
                if time.time() >= end:
                    p.kill()
                    p.wait()
                    break
                p.terminate()


@pytest.fixture
def cluster(slurm):
    """Each test starts from a healthy config and an idle, undrained node."""
    slurm.periodic_off()
    slurm.set_config("")
    if os.path.exists(slurm.prolog_report):
        os.unlink(slurm.prolog_report)
    state, _ = slurm.node()
    if "DRAIN" in state or state.startswith("DOWN"):
        slurm.run("scontrol", "update", "nodename=" + NODE, "state=resume", check=True)
    # a node resumed from DOWN is IDLE only once slurmd answers slurmctld's next ping: on a
    # loaded 2-core CI machine that has taken more than 15 s (one error in three runs)
    slurm.wait_state(lambda st, r: st == "IDLE", timeout=90)
    return slurm


def test_job_runs_when_checks_pass(cluster):
    r = cluster.srun()
    assert r.returncode == 0, r.stderr
    # srun returns before slurmctld has finished the job: IDLE+COMPLETING for a moment
    state, reason = cluster.wait_state(lambda st, r: st == "IDLE")
    assert reason is None, reason
    # the prolog really ran gpudoctor on this node, with slurmd's rlimits
    import json

    with open(cluster.prolog_report) as f:
        rep = json.load(f)
    assert rep["summary"]["exit_code"] == 0
    assert sorted(c["id"] for c in rep["checks"]) == ["limits.memlock", "shm.size"]
    memlock = next(f for f in rep["findings"] if f["check"] == "limits.memlock")
    assert "64.0 KiB" in memlock["message"], memlock
    # its history went to this test's state folder (the settings file), not /var/lib/gpudoctor
    # (a node's history is named by its facts, the hostname, not by the Slurm node name)
    assert len([n for n in os.listdir(os.path.join(cluster.state_dir, "history")) if n != "key"]) == 1


def test_failing_check_fails_prolog_and_drains_with_gpudoctor_reason(cluster):
    cluster.set_config(FAIL_SHM)
    slurmd_log = os.path.join(cluster.dir, "slurmd.log")
    start = os.path.getsize(slurmd_log)  # this test's part of the module's log
    r = cluster.srun()
    assert r.returncode != 0
    # What srun prints is a race, not the proof: with PrologFlags=Alloc the prolog runs at allocation, and
    # when it fails slurmctld ends the allocation; srun says "Job allocation N has been revoked" when that
    # news (SRUN_JOB_COMPLETE) comes first, and a prolog failure when its step launch reports it first
    # (CI at load ~10 got the revocation). Either wording is a failed allocation; the proof that it was the
    # prolog and gpudoctor is the drain reason and slurmd's own log line below.
    assert "prolog" in r.stderr.lower() or "revoked" in r.stderr.lower(), r.stderr
    state, reason = cluster.wait_state(lambda st, r: "DRAIN" in st)
    assert reason.startswith("gpudoctor: shm.size: /dev/shm is"), reason
    sinfo = cluster.run("sinfo", "-R", "-h", "-o", "%E|%N", check=True).stdout
    assert "gpudoctor: shm.size" in sinfo and NODE in sinfo
    # and no further job starts there until the node is healthy and resumed
    deadline = time.time() + 30
    while True:
        with open(slurmd_log) as f:
            f.seek(start)
            if "prolog failed" in f.read():
                break
        assert time.time() < deadline, "slurmd.log has no 'prolog failed' for this job"
        time.sleep(0.1)


def test_memlock_inherited_from_slurmd_drains_when_it_is_an_error(cluster):
    cluster.set_config('[severity]\n"limits.memlock" = "error"\n')
    r = cluster.srun()
    assert r.returncode != 0
    state, reason = cluster.wait_state(lambda st, r: "DRAIN" in st)
    assert reason.startswith("gpudoctor: limits.memlock: memlock is soft 64.0 KiB"), reason


def test_prolog_timeout_drains_with_timeout_reason(cluster):
    hang = os.path.join(cluster.dir, "hang-python")
    with open(hang, "w") as f:
        f.write("#!/bin/sh\nexec sleep 600\n")  # a job interpreter stuck importing from a dead mount
    os.chmod(hang, 0o755)
    with open(cluster.defaults) as f:
        saved = f.read()
    try:
        with open(cluster.defaults, "a") as f:
            f.write('GPUDOCTOR_TIMEOUT=1\nGPUDOCTOR_PROLOG_ARGS="--ignore ssh --python %s"\n' % hang)
        r = cluster.srun()
        assert r.returncode != 0
        # the deadline, not the hung probe, ended the prolog: a prolog that waited for the probe (600 s) would
        # still run at srun's 60 s deadline (a deadline on the state; the srun took 1.5 s here; a wall-clock bound,
        # took < 15, was a timed test: suite27)
        state, reason = cluster.wait_state(lambda st, r: "DRAIN" in st)
        assert reason.startswith("gpudoctor: timeout: the local run did not finish within 1s"), reason
    finally:
        with open(cluster.defaults, "w") as f:
            f.write(saved)


def test_healthcheck_drains_then_resumes_its_own_drain(cluster):
    cluster.set_config(FAIL_SHM)
    r = cluster.healthcheck()
    assert r.returncode == 1, r.stdout + r.stderr
    assert "gpudoctor: slurm: drained %s (was IDLE)" % NODE in r.stdout
    state, reason = cluster.node()
    assert state == "IDLE+DRAIN" and reason.startswith("gpudoctor: shm.size:"), (state, reason)
    again = cluster.healthcheck()  # still failing: drained once, not re-drained
    assert again.returncode == 1 and "already drained by gpudoctor for this reason" in again.stdout

    cluster.set_config("")  # the operator fixes /dev/shm
    r = cluster.healthcheck()
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gpudoctor: slurm: resumed %s" % NODE in r.stdout
    state, reason = cluster.node()
    assert "DRAIN" not in state and reason is None, (state, reason)  # IDLE (+NOT_RESPONDING until slurmctld pings)
    cluster.wait_state(lambda st, r: st == "IDLE")
    assert cluster.srun().returncode == 0


def test_healthcheck_never_resumes_or_takes_over_an_admin_drain(cluster):
    admin = "admin: replacing DIMM B2"
    cluster.run("scontrol", "update", "nodename=" + NODE, "state=drain", "reason=" + admin, check=True)
    r = cluster.healthcheck()  # healthy node, someone else's drain
    assert r.returncode == 0
    assert "left drained: the drain is not gpudoctor's" in r.stdout
    assert cluster.node() == ("IDLE+DRAIN", admin)

    cluster.set_config(FAIL_SHM)  # failing node under an admin's drain: the reason stays the admin's
    r = cluster.healthcheck()
    assert r.returncode == 1
    assert "already drained by someone else" in r.stdout
    assert cluster.node() == ("IDLE+DRAIN", admin)
    cluster.set_config("")
    assert cluster.healthcheck().returncode == 0
    assert cluster.node() == ("IDLE+DRAIN", admin)  # and a later pass still leaves it alone


def test_healthcheck_leaves_a_down_node_with_an_admin_reason(cluster):
    cluster.run("scontrol", "update", "nodename=" + NODE, "state=down", "reason=admin: PSU swap", check=True)
    cluster.set_config(FAIL_SHM)
    r = cluster.healthcheck()
    assert r.returncode == 1 and "node is DOWN" in r.stdout, r.stdout
    state, reason = cluster.node()
    assert state.startswith("DOWN") and "DRAIN" not in state and reason == "admin: PSU swap"


def test_dry_run_changes_nothing(cluster):
    cluster.set_config(FAIL_SHM)
    r = cluster.healthcheck(GPUDOCTOR_DRY_RUN="1")
    assert r.returncode == 1
    m = re.search(r"gpudoctor: slurm: dry run: would drain %s \(state IDLE\) reason='(gpudoctor: shm\.size: [^']+)'"
                  % NODE, r.stdout)
    assert m, r.stdout
    assert cluster.node() == ("IDLE", None)

    assert cluster.healthcheck().returncode == 1  # a real drain, then a dry-run pass
    cluster.set_config("")
    r = cluster.healthcheck(GPUDOCTOR_DRY_RUN="1")
    assert r.returncode == 0 and "dry run: would resume %s" % NODE in r.stdout, r.stdout
    state, reason = cluster.node()
    assert state == "IDLE+DRAIN" and reason == m.group(1)


def test_slurmd_runs_the_healthcheck_and_it_drains(cluster):
    """The periodic path end to end: slurmd itself runs HealthCheckProgram (interval 1 s)."""
    cluster.set_config(FAIL_SHM)
    open(cluster.hc_enabled, "w").close()
    try:
        state, reason = cluster.wait_state(lambda st, r: "DRAIN" in st, timeout=20)
        assert reason.startswith("gpudoctor: shm.size:"), reason
        cluster.set_config("")
        cluster.wait_state(lambda st, r: st == "IDLE" and r is None, timeout=20)
    finally:
        cluster.periodic_off()


def test_batch_job_is_requeued_not_held_and_runs_once_the_node_is_healthy(cluster):
    """slurm.conf(5), Prolog: a failing prolog drains the node and requeues the job *held*
    (Reason=launch_failed_requeued_held: it never runs until an admin releases it) unless
    SchedulerParameters=nohold_on_prolog_fail, which docs/slurm.md recommends and this
    slurm.conf sets. So the job waits, unheld, and runs once gpudoctor resumes the node."""
    cluster.set_config(FAIL_SHM)
    r = cluster.run("sbatch", "-N1", "-w", NODE, "-t", "1", "--chdir", cluster.dir, "-o", "job-%j.out",
                    "--wrap", "true", "--parsable", check=True)
    job = r.stdout.strip().split(";")[0]
    state, reason = cluster.wait_state(lambda st, r: "DRAIN" in st and (r or "").startswith("gpudoctor:"))
    fields = cluster.wait_job(job, lambda f: f.get("Restarts") == "1" and f.get("JobState") == "PENDING",
                              what="requeued and pending")
    pending_at = time.time()
    assert fields.get("Reason") != "launch_failed_requeued_held", fields  # not held
    assert fields.get("Priority") != "0", fields  # a held job has priority 0

    cluster.set_config("")  # the operator fixes /dev/shm; the health check resumes gpudoctor's drain
    hc = cluster.healthcheck()
    assert hc.returncode == 0 and "gpudoctor: slurm: resumed %s" % NODE in hc.stdout, hc.stdout + hc.stderr
    # Slurm makes a requeued batch job eligible only ~2 minutes later (EligibleTime = requeue
    # + 121 s on 22.05). The owner may move its begin time to now: that does not release a
    # held job (priority 0 stays 0), so the job running still shows it was not held. In a later
    # second than the requeue: a rerun in the same second meets the requeue's revocation of the
    # job's credential on the node and ends FAILED (slurmcluster.start_requeued_now).
    import slurmcluster

    slurmcluster.start_requeued_now(cluster.run, job, pending_at)
    try:
        fields = cluster.wait_job(job, lambda f: f.get("JobState") in ("COMPLETED", "FAILED", "CANCELLED"),
                                  timeout=60, what="the requeued job ran")
    finally:
        cluster.run("scancel", job)
    assert fields["JobState"] == "COMPLETED" and fields.get("ExitCode") == "0:0", fields
    assert fields.get("Restarts") == "1", fields


def test_without_nohold_the_job_is_requeued_held(cluster):
    """What docs/slurm.md warns about, on the real slurmctld: without nohold_on_prolog_fail
    the requeued job is held (launch_failed_requeued_held, priority 0) and moving its begin
    time does not release it."""
    with open(cluster.conf) as f:
        saved = f.read()
    job = None
    try:
        with open(cluster.conf, "w") as f:
            f.write(saved.replace("SchedulerParameters=nohold_on_prolog_fail\n", ""))
        cluster.run("scontrol", "reconfigure", check=True)
        cluster.set_config(FAIL_SHM)
        r = cluster.run("sbatch", "-N1", "-w", NODE, "-t", "1", "--chdir", cluster.dir, "-o", "job-%j.out",
                        "--wrap", "true", "--parsable", check=True)
        job = r.stdout.strip().split(";")[0]
        # the requeue passes through COMPLETING: wait for the settled state, all of it
        fields = cluster.wait_job(job, lambda f: f.get("Reason") == "launch_failed_requeued_held"
                                  and f.get("JobState") == "PENDING", what="requeued held")
        assert fields["Priority"] == "0" and fields["Restarts"] == "1", fields
        cluster.run("scontrol", "update", "jobid=" + job, "StartTime=now", check=True)
        fields, _ = cluster.job(job)
        assert fields["Reason"] == "launch_failed_requeued_held" and fields["Priority"] == "0", fields
    finally:
        if job:
            cluster.run("scancel", job)
        with open(cluster.conf, "w") as f:
            f.write(saved)
        cluster.run("scontrol", "reconfigure", check=True)


def test_docs_recipe_is_what_runs(slurm):
    """docs/slurm.md's slurm.conf lines are the ones this module's slurmctld runs (paths aside)."""
    doc = open(os.path.join(ROOT, "docs", "slurm.md")).read()
    block = doc.split("## slurm.conf", 1)[1].split("```", 2)[1]
    documented = dict(l.split("#")[0].strip().split("=", 1) for l in block.splitlines() if "=" in l)
    ours = dict(l.strip().split("=", 1) for l in open(slurm.conf) if "=" in l and l.split("=")[0] in documented)
    assert sorted(documented) == sorted(ours) == ["HealthCheckInterval", "HealthCheckProgram", "Prolog",
                                                  "PrologFlags", "SchedulerParameters"]
    assert documented["PrologFlags"] == ours["PrologFlags"]
    assert documented["SchedulerParameters"] == ours["SchedulerParameters"] == "nohold_on_prolog_fail"
    assert "gpudoctor-prolog.sh" in documented["Prolog"] and "install -m 755 contrib/slurm/prolog.sh" in doc
    assert "contrib/slurm/healthcheck.sh /etc/slurm/gpudoctor-healthcheck.sh" in doc
    for wrapper, script in (("prolog", "prolog.sh"), ("hc", "healthcheck.sh")):
        assert open(os.path.join(slurm.dir, wrapper)).read().endswith("exec %s/%s\n" % (CONTRIB, script))
