"""slurm28: gpudoctor walked by hand, round 7, on a real 4-node Slurm that authenticates with real MUNGE
(tests/slurmcluster.py ``munge=``): sn2's munged has a key of its own, sn3's whole node runs 600 s ahead
(libfaketime, past MUNGE's 300 s credential lifetime), sn4's 150 s ahead (within it: the node registers, but its
slurmd refuses a step's job credential, older than Slurm's 120 s cred_expire by its clock).
What slurmctld logs there is MUNGE's own ('Munge decode failed: Invalid credential' / 'Rewound credential'), and
the tests assert it first, so that the bed is what it says. Unit tests of the pure parts need no bed."""

import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------- pure parts

def test_clock_offset_reads_the_controllers_time_from_show_config():
    import time

    from gpudoctor import slurm

    at = time.mktime(time.strptime("2026-11-28T14:11:57", "%Y-%m-%dT%H:%M:%S"))
    out = "Configuration data as of 2026-11-28T14:11:57\nAccountingStorageBackupHost = (null)\n"
    ticks = iter([at + 120.2, at + 120.6])
    off = slurm.controller_clock_offset(run=lambda argv: out, clock=lambda: next(ticks))
    assert off == 120
    assert slurm.clock_verdict(off)[0] == "error" and "120 s ahead of" in slurm.clock_verdict(off)[1]
    assert slurm.clock_verdict(-30) == ("warning", "this node's clock is 30 s behind slurmctld's")
    assert slurm.clock_verdict(3) is None and slurm.clock_verdict(None) is None
    ticks = iter([at, at])
    assert slurm.controller_clock_offset(run=lambda argv: "no such line\n", clock=lambda: next(ticks)) is None

    def fails(argv):
        raise slurm.ScontrolError("`scontrol show config` failed (rc 1): Zero Bytes were transmitted or received")

    assert slurm.controller_clock_offset(run=fails) is None


def test_refused_credential_is_told_from_a_broken_munged_and_other_failures():
    from gpudoctor import slurm

    zero = slurm.ScontrolError("`scontrol show node -o sn2` failed (rc 1): slurm_load_node error: Zero Bytes were "
                               "transmitted or received")
    works = slurm.controller_refused(zero, round_trip=lambda: (True, "munge -n | unmunge: Success (0)"), now=0)
    assert "refuses this node's credential" in works[0] and "1970-01-01T00:00:00Z" in works[0]
    assert "same /etc/munge/munge.key" in works[1] and "chronyc" in works[1]
    broken = slurm.controller_refused(zero, round_trip=lambda: (False, "munge -n failed: Failed to access"))
    assert "own MUNGE round trip fails" in broken[0] and "systemctl restart munge" in broken[1]
    assert slurm.controller_refused(zero, round_trip=lambda: (None, "munge is not installed here")) == []
    other = slurm.ScontrolError("`scontrol show node -o sn2` failed (rc 1): Unable to contact slurm controller "
                                "(connect failure)")
    assert slurm.controller_refused(other, round_trip=lambda: pytest.fail("no round trip for this")) == []


# ---------------------------------------------------------------- the bed

@pytest.fixture(scope="module")
def mbed(tmp_path_factory):
    import slurmcluster

    faults = {2: "key", 3: "+600s", 4: "+150s"}
    reason = slurmcluster.unavailable() or slurmcluster.munge_unavailable(faults.values())
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    c = slurmcluster.MultiSlurm(str(tmp_path_factory.mktemp("mungeslurm")), 4, {}, munge=faults)
    try:
        c.start()
        c.wait(lambda st: all("NOT_RESPONDING" in st[n][0] for n in ("sn2", "sn3")), timeout=30,
               what="sn2, sn3 not responding")
        # MUNGE's own words in slurmctld's log, for both faults: the bed is what it says
        log = os.path.join(c.dir, "slurmctld.log")
        c.wait(lambda st: all(w in open(log).read() for w in ("Munge decode failed: Invalid credential",
                                                             "Munge decode failed: Rewound credential")),
               timeout=30, what="MUNGE's refusals in slurmctld.log")
        yield c
    finally:
        c.stop()


def _on_node(c, name, *argv, env=None):
    """argv in the node's namespaces (its network, hostname, mounts: its munged, its key, its clock), as an admin
    logged in there runs it."""
    e = dict(c.env, SLURMD_NODENAME=name, GPUDOCTOR_STATE_DIR=os.path.join(c.dir, "gd-" + name), **(env or {}))
    return subprocess.run(["nsenter", "-t", str(c.slurmd[name].pid), "-n", "-m", "-u"] + list(argv), env=e,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)


def test_a_node_whose_credential_the_controller_refuses_is_named_with_the_cause(mbed):
    """sn2 (another munge.key) and sn3 (600 s ahead): slurmd runs, Slurm lists them NOT_RESPONDING, and on the node
    `scontrol ping` says the controller is DOWN. slurm-health there said 'cannot read node ... Zero Bytes were
    transmitted or received' and 'healthy; node state unknown' (exit 3) with nothing about MUNGE; now it names the
    refused credential, the two causes and this node's clock (exit 3 as before: nothing could be changed). sn1's
    run is unchanged. From outside, `check --via srun` names both node-down with MUNGE in the fix."""
    for name in ("sn2", "sn3"):
        p = _on_node(mbed, name, mbed.gpudoctor, "slurm-health", "--ignore", "ssh", "--dry-run")
        assert p.returncode == 3, (name, p.returncode, p.stderr[-2000:])
        assert "Zero Bytes were transmitted or received" in p.stderr
        assert "the controller refuses this node's credential" in p.stderr, p.stderr[-2000:]
        assert "munge -n | unmunge: Success" in p.stderr and "same /etc/munge/munge.key" in p.stderr
    ok = _on_node(mbed, "sn1", mbed.gpudoctor, "slurm-health", "--ignore", "ssh", "--dry-run")
    assert ok.returncode == 0 and "would leave sn1" in ok.stdout and "MUNGE" not in ok.stderr, ok.stderr[-2000:]
    r = mbed.run(mbed.gpudoctor, "check", "--via", "srun", "--nodes", "sn[1-2]", "--select", "tmp", timeout=90)
    assert r.returncode == 1, r.stderr[-2000:]
    assert "node sn2 could not be checked (node-down)" in r.stdout and "Munge decode failed" in r.stdout, r.stdout


def test_a_step_refused_on_one_node_is_named_there_and_the_others_are_checked(mbed):
    """sn4 150 s ahead: srun aborted the whole step ("Task launch for StepId=N.0 failed on node sn4: Job credential
    expired"), and `salloc -N4 gpudoctor check` / `probe` read every node as failed ("Slurm ended the step ... the job
    was cancelled, its allocation revoked or its time limit reached"), sn4 without a word about its clock. Now sn4
    names the expired credential and the clock, and the others run again without it and are checked."""
    mbed.wait(lambda st: st["sn4"][0] == "IDLE", timeout=30, what="sn4 idle and responding")
    r = mbed.run(mbed.gpudoctor, "check", "--via", "srun", "--nodes", "sn1,sn4", "--select", "tmp", timeout=90)
    assert r.returncode == 1, r.stderr[-2000:]
    assert "node sn4 could not be checked (slurm): srun could not start the task: Job credential expired" in r.stdout
    assert "clock is ahead of slurmctld's" in r.stdout, r.stdout
    assert "sn1 could not be checked" not in r.stdout and "PASS tmp.writable" in r.stdout, r.stdout


def test_health_check_drains_a_node_whose_clock_is_150s_ahead_and_keeps_the_others(mbed):
    """sn4's whole node 150 s ahead (walked at 120 s too): within MUNGE's 300 s, so it registered, and only slurmd's
    'Job credential expired' said something was wrong; at 300 s it goes down with its jobs. Now slurm-health reads slurmctld's clock (`scontrol show config`'s first line)
    and drains it with the offset; sn1 is left; the prolog's --fast tier makes no such call."""
    try:
        p = _on_node(mbed, "sn4", mbed.gpudoctor, "slurm-health", "--ignore", "ssh")
        assert p.returncode == 1, (p.returncode, p.stdout[-1500:], p.stderr[-1500:])
        assert "this node's clock is 150 s ahead of slurmctld's" in p.stdout, p.stdout[-1500:]
        st = mbed.states()
        assert "DRAIN" in st["sn4"][0] and "clock.offset" in (st["sn4"][1] or ""), st["sn4"]
        ok = _on_node(mbed, "sn1", mbed.gpudoctor, "slurm-health", "--ignore", "ssh")
        assert ok.returncode == 0 and "DRAIN" not in mbed.states()["sn1"][0], ok.stdout[-1500:]
        # the prolog's tier measures only where gpudoctor's clock drain is on the node: never resumes it unmeasured
        fast = _on_node(mbed, "sn4", mbed.gpudoctor, "slurm-health", "--fast", "--ignore", "ssh", "--dry-run")
        assert "would leave sn4" in fast.stdout and "150 s ahead" in fast.stdout, fast.stdout[-1500:]
        fast1 = _on_node(mbed, "sn1", mbed.gpudoctor, "slurm-health", "--fast", "--ignore", "ssh", "--dry-run")
        assert "would leave sn1" in fast1.stdout and "clock" not in fast1.stdout + fast1.stderr, fast1.stdout[-1500:]
    finally:
        mbed.run("scontrol", "update", "nodename=sn4", "state=resume")


# ---------------------------------------------------------------- (b) the node filled in where the paste names it

REC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "slurm", "recorded28")


def _fixes(text):
    from gpudoctor import explain

    r = explain.explain_text(text, None)
    out = []
    for f in r["findings"]:
        for c in f.get("causes") or []:
            out += c.get("fix") or []
        out += [f.get("fix") or ""] if isinstance(f.get("fix"), str) else list(f.get("fix") or [])
    return out + [c.get("fix") or "" for c in r.get("context") or []]


def test_prolog_failure_fix_lines_name_the_node_srun_named():
    """srun's real output of a prolog that failed on sn3: the family cause's fix said `scontrol update
    nodename=<node>` beside the site's cause, which said sn3. Now every fix line names sn3 (Slurm's 'failure on node
    %s' / 'failed on node %s: ' forms, famfix._NODE)."""
    text = open(os.path.join(REC, "srun-prolog-failure-sn3.txt")).read()
    fixes = [f for f in _fixes(text) if "nodename=" in f]
    assert len(fixes) >= 2 and all("nodename=sn3 " in f for f in fixes), fixes


def test_node_forms_of_slurm_and_syslog_lines_and_what_stays_a_placeholder():
    from gpudoctor.explain import famfix

    names = lambda line: famfix.names([line], "node")  # noqa: E731
    assert names(open(os.path.join(REC, "slurmctld-prolog-drain-sn3.txt")).readline()) == "sn3"
    assert names("srun: error: gpu12: task 3: Exited with exit code 1") == "gpu12"
    assert names("error: Nodes gpu7 not responding") == "gpu7"
    assert names("error: _slurm_rpc_node_registration node=sn2: Invalid argument") == "sn2"
    assert names("Nov 28 12:00:01 gpu17 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.") \
        == "gpu17"
    # a list is no one node; a word after 'on node' that Slurm's forms do not end there is no node
    assert names("error: Nodes sn[1-3] not responding") is None
    assert names("the all-reduce failed on node rank 3") is None
    xid = "Nov 28 12:00:01 gpu17 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
    assert any("nodename=gpu17 " in f for f in _fixes(xid)), _fixes(xid)
    bare = "[  123.4] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
    assert any("nodename=<node> " in f for f in _fixes(bare)), _fixes(bare)


def test_munge_refusals_recorded_on_the_bed_are_explained():
    """slurmctld's and sn2's real logs of the MUNGE bed: the key mismatch is the root, the clock skew named beside
    it (explain's munge entries, unchanged: recorded here so that they stay read on real text)."""
    from gpudoctor import explain

    r = explain.explain_text(open(os.path.join(REC, "slurmctld-munge-refused-sn2-sn3.txt")).read(), None)
    ids = [f["id"] for f in r["findings"]] + [f["id"] for f in r.get("also") or []]
    assert r["findings"][0]["id"] == "munge.key_mismatch", ids
    r2 = explain.explain_text(open(os.path.join(REC, "slurmd-sn2-munge-key.txt")).read(), None)
    assert r2["findings"][0]["id"] == "munge.key_mismatch"
