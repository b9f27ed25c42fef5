"""slurm29: what changed between nodes that `check` could not see, on the real 4-node Slurm with MUNGE
(tests/slurmcluster.py ``munge=``; the multislurm bed kind): clock.offset (each node's clock, read by its
collector, against the window [sent, received] of the gathering machine's clock) and munge.key (the nodes' MUNGE
keys compared by a keyed hash). sn4's whole node runs 120 s ahead (libfaketime: its slurmd, its jobs, its sshd);
sn3's key on disk is replaced while its munged runs with the old one (an admin's wrong copy: Slurm works on until
munged restarts). Unit tests of the pure parts need no bed."""

import base64
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _clock(facts):
    from gpudoctor.registry import load_checks

    load_checks()
    from gpudoctor.checks import clock

    return list(clock.clock_offset(facts, None))


def _facts(clock_s, sent=1000.0, received=1000.8, via="ssh"):
    return {"collector": {"clock_s": clock_s, "gathered": {"via": via, "sent_s": sent, "received_s": received}}}


# ---------------------------------------------------------------- pure parts

def test_clock_offset_is_the_distance_from_the_window_and_judged_by_slurm_healths_thresholds():
    from gpudoctor import slurm
    from gpudoctor.checks import clock

    # the same thresholds as slurm-health's offset from slurmctld (checks/clock.py keeps its own copy: light import)
    assert (clock.CLOCK_WARN_S, clock.CLOCK_DRAIN_S, clock.CRED_EXPIRE_S, clock.MUNGE_TTL_S) == (
        slurm.CLOCK_WARN_S, slurm.CLOCK_DRAIN_S, slurm.CRED_EXPIRE_S, slurm.MUNGE_TTL_S)
    [v] = _clock(_facts(1000.5))
    assert v.status == "pass" and "inside the 0.8 s window" in v.text and "via ssh" in v.text, v
    [v] = _clock(_facts(1005.0))  # 4.2 s past the window's end: under 10 s
    assert v.status == "pass" and "at least 4.2 s ahead" in v.text, v
    [f] = _clock(_facts(1120.8))  # 120 s ahead of the window's end
    assert f.severity == "error" and "at least 120.0 s ahead of this machine's" in f.message, f
    assert "cred_expire" in f.message and "MUNGE" in f.message and "chronyc" in f.fix
    [f] = _clock(_facts(985.0))  # 15 s before the collector was sent: behind
    assert f.severity == "warning" and "at least 15.0 s behind" in f.message and "cred_expire" not in f.message, f
    from gpudoctor.checks.clock import _utc

    assert _utc(59.96) == "00:01:00.0Z" and _utc(59.94) == "00:00:59.9Z" and _utc(0.0, date=True) == \
        "1970-01-01T00:00:00.0Z"
    [f] = _clock(_facts(880.0))
    assert f.severity == "error" and "120.0 s behind" in f.message, f
    # a window as wide as the failing offset cannot tell a right clock from a wrong one
    [v] = _clock(_facts(1050.0, sent=1000.0, received=1200.0))
    assert v.status == "skipped" and "too wide" in v.text, v


def test_clock_offset_says_na_or_skipped_where_there_is_nothing_or_no_window():
    [v] = _clock({"collector": {"clock_s": 1000.0}})  # saved facts without a window
    assert v.status == "na" and "no gathering window" in v.text, v
    [v] = _clock(_facts(1000.0, via="local"))
    assert v.status == "na" and "its clock is the reference" in v.text, v
    [v] = _clock({"collector": {"gathered": {"via": "ssh", "sent_s": 1.0, "received_s": 2.0}}})
    assert v.status == "skipped" and "no clock reading" in v.text, v
    # untrusted node output: anything but a finite positive number is no reading
    for bad in ("1000", True, float("nan"), float("inf"), -5, None, [1]):
        [v] = _clock(_facts(bad))
        assert v.status == "skipped", (bad, v)
    [v] = _clock({"collector": {"clock_s": 1000.0, "gathered": {"via": "srun", "sent_s": 9.0, "received_s": 1.0}}})
    assert v.status == "skipped" and "no window" in v.text, v
    assert _clock({"collector": "x"})[0].status == "na"


def test_only_the_gatherer_writes_the_window():
    """A node that sends collector.gathered of its own (to pass the clock check) has it dropped; the transport's
    window replaces it, and without one the facts carry none."""
    from gpudoctor.transport import FACTS_SCHEMA, interpret

    doc = {"schema": FACTS_SCHEMA, "collector": {"clock_s": 5000.0, "gathered": {"via": "ssh", "sent_s": 4999.0,
                                                                                   "received_s": 5001.0}}}
    n = interpret("n1", 0, json.dumps(doc), "", "python3")
    assert "gathered" not in n.facts["collector"]
    n = interpret("n1", 0, json.dumps(doc), "", "python3", window=("srun", 100.0, 101.5))
    assert n.facts["collector"]["gathered"] == {"via": "srun", "sent_s": 100.0, "received_s": 101.5}
    assert _clock(n.facts)[0].severity == "error"
    # gathered remotely with an end of the window unknown: could not judge (skipped), not 'nothing to judge' (na)
    n = interpret("n1", 0, json.dumps(doc), "", "python3", window=("srun", None, 101.5))
    assert n.facts["collector"]["gathered"] == {"via": "srun"}
    [v] = _clock(n.facts)
    assert v.status == "skipped" and "no window of this machine's clock was kept for this node (via srun)" in v.text


def _key_tree(tmp_path, data):
    (tmp_path / "etc" / "munge").mkdir(parents=True, exist_ok=True)
    (tmp_path / "etc" / "munge" / "munge.key").write_bytes(data)
    return str(tmp_path)


def test_the_munge_section_carries_a_keyed_hash_and_never_the_key(tmp_path):
    from gpudoctor.collector import munge as m
    from gpudoctor.collector.base import Context, dumps
    from gpudoctor.collector.system import hmac_sha256_hex

    key, other, run = os.urandom(1024), os.urandom(1024), os.urandom(32).hex()
    a = m.munge(Context(root=_key_tree(tmp_path / "a", key), options={"env_key": run}))
    b = m.munge(Context(root=_key_tree(tmp_path / "b", key), options={"env_key": run}))
    c = m.munge(Context(root=_key_tree(tmp_path / "c", other), options={"env_key": run}))
    assert a["key_hmac"] == b["key_hmac"] != c["key_hmac"] and a["key_id"] == c["key_id"]
    # HMAC-SHA256 under the run's key (the env values' env_hash), not a bare digest of the key
    assert a["key_hmac"] == "hmac:" + hmac_sha256_hex(run.encode("ascii"), key.decode("latin-1").encode("utf-8"))[:16]
    d = m.munge(Context(root=_key_tree(tmp_path / "d", key), options={"env_key": os.urandom(32).hex()}))
    assert d["key_hmac"] != a["key_hmac"] and d["key_id"] != a["key_id"]  # another run: not comparable, and told
    # diff / history between two runs of different keys: no change (the same key on the node); another key on the
    # node under the same run key: a change
    from gpudoctor.changes import compare

    assert compare({"munge": dict(a, status="ok")}, {"munge": dict(d, status="ok")}) == []
    [ch] = compare({"munge": dict(a, status="ok")}, {"munge": dict(c, status="ok")}, key_ids=("k", "k"))
    assert ch.path == "munge.key_hmac", ch
    text = dumps(a)
    import hashlib

    for shown in (key.hex(), base64.b64encode(key).decode(), hashlib.sha256(key).hexdigest()[:16]):
        assert shown[:16] not in text
    assert a["size_bytes"] == 1024 and a["key_path"] == "/etc/munge/munge.key"
    from gpudoctor.collector.base import Unsupported

    with pytest.raises(Unsupported):
        m.munge(Context(root=str(tmp_path / "none"), options={"env_key": run}))
    # a key that is a link to a file is read (the hash equals the file's); a FIFO put there never blocks the collector
    link = tmp_path / "e" / "etc" / "munge"
    link.mkdir(parents=True)
    (link / "munge.key").symlink_to(tmp_path / "a" / "etc" / "munge" / "munge.key")
    assert m.munge(Context(root=str(tmp_path / "e"), options={"env_key": run}))["key_hmac"] == a["key_hmac"]
    fifo = tmp_path / "f" / "etc" / "munge"
    fifo.mkdir(parents=True)
    os.mkfifo(str(fifo / "munge.key"))
    with pytest.raises(RuntimeError, match="not a regular file"):
        m.munge(Context(root=str(tmp_path / "f"), options={"env_key": run}))


def _munge_check(values):
    from gpudoctor.registry import load_checks

    load_checks()
    from gpudoctor.checks import munge

    return list(munge.munge_key({h: {"munge": dict(v, status="ok")} for h, v in values.items()}, None))


def test_munge_key_drift_names_the_odd_node_and_the_fix():
    same = {"key_hmac": "hmac:aaaaaaaaaaaaaaaa", "key_id": "k1"}
    [v] = _munge_check({"sn1": same, "sn2": same, "sn3": same})
    assert v.status == "pass" and "the same /etc/munge/munge.key on every node (3 nodes" in v.text, v
    f, v = _munge_check({"sn1": same, "sn2": same, "sn3": {"key_hmac": "hmac:bbbbbbbbbbbbbbbb", "key_id": "k1"}})
    assert f.severity == "error" and f.hosts == ["sn3"] and "Invalid credential" in f.message, f
    assert "copy the key slurmctld's host holds to sn3" in f.fix and "systemctl restart munge" in f.fix
    assert v.status == "pass" and v.hosts == ("sn1", "sn2")
    f, v = _munge_check({"sn1": same, "sn2": {"key_hmac": "hmac:bbbbbbbbbbbbbbbb", "key_id": "k1"}})
    assert f.severity == "error" and v.status == "skipped" and "cannot be told" in v.text  # one against one
    [v] = _munge_check({"sn1": same, "sn2": {"key_hmac": "hmac:bbbbbbbbbbbbbbbb", "key_id": "k2"}})
    assert v.status == "skipped" and "different run keys" in v.text, v


# ---------------------------------------------------------------- the bed

@pytest.fixture(scope="module")
def bed(tmp_path_factory):
    import slurmcluster

    faults = {4: "+120s"}
    reason = slurmcluster.unavailable() or slurmcluster.munge_unavailable(faults.values())
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    c = slurmcluster.MultiSlurm(str(tmp_path_factory.mktemp("slurm29")), 4, {}, munge=faults)
    try:
        c.start()
        c.wait(lambda st: all(st.get(n, ("",))[0] == "IDLE" for n in c.names), timeout=60, what="sn[1-4] idle")
        c.ssh_config = c.start_sshd("sn1")
        c.start_sshd("sn4")
        yield c
    finally:
        c.stop()


def _check(c, *args):
    # --timeout 60: a node's collector on this 2-core machine shared with other beds (load ~13 seen) must not be
    # cut off at the default 30 s (one ssh run of ~20 here lost sn4 once; not reproduced)
    r = c.run(c.gpudoctor, "check", "--json", "--select", "clock,munge", "--timeout", "60", *args, timeout=150)
    assert r.returncode in (0, 1), (r.returncode, r.stderr[-2000:])
    rep = json.loads(r.stdout)
    return {ch["id"]: ch for ch in rep["checks"]}, rep, r


def _outcomes(ch):
    from gpudoctor.nodes import expand

    return {h: (o["status"], o["text"]) for o in ch["outcomes"] for h in expand(o["hosts"])}


def _ahead(text):
    head = text.split(" s ahead")[0].rsplit(" ", 1)[-1]
    return float(head)


def test_a_node_120s_ahead_fails_over_ssh_and_an_unreadable_key_is_skipped(bed):
    """Over ssh (an sshd in each node's namespaces, sn4's under the node's libfaketime): sn4's collector read its
    clock 120 s after the window in which this machine sent it and got its facts; sn1 inside its window. The ssh
    user is not root: /etc/munge (munge's, 0700) cannot be read there, so munge.key is skipped with that reason.
    Before: nothing in `check` compared clocks (sn4 passed silently; slurm28's Left)."""
    checks, rep, r = _check(bed, "--via", "ssh", "--ssh-config", bed.ssh_config, "--nodes", "sn1,sn4")
    out = _outcomes(checks["clock.offset"])
    assert "sn4" in out, (rep["nodes"], r.stderr[-2000:])
    assert out["sn4"][0] == "fail" and 119.0 <= _ahead(out["sn4"][1]) <= 125.0, out
    assert out["sn1"][0] == "pass" and "inside the" in out["sn1"][1] and "via ssh" in out["sn1"][1], out
    mk = _outcomes(checks["munge.key"])
    assert {s for s, _ in mk.values()} == {"skipped"}, mk
    assert all("cannot read /etc/munge/munge.key as uid" in t and "gather as root" in t for _, t in mk.values()), mk
    assert rep["summary"]["exit_code"] == 1 and r.returncode == 1


def test_the_gathering_machines_own_clock_off_shows_on_every_node(bed):
    """This machine's clock 200 s behind (gpudoctor itself under libfaketime; ssh carries no environment to the
    nodes): every node reads ahead of it, sn1 by ~200 s, sn4 by ~320 s, and the fix says that the same offset on
    every node means this machine's clock is the one off."""
    import slurmcluster

    env = dict(LD_PRELOAD=slurmcluster.libfaketime(), FAKETIME="-200s", FAKETIME_DONT_RESET="1")
    r = bed.run(bed.gpudoctor, "check", "--json", "--select", "clock", "--timeout", "60", "--via", "ssh",
                "--ssh-config", bed.ssh_config, "--nodes", "sn1,sn4", env=dict(bed.env, **env), timeout=150)
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    rep = json.loads(r.stdout)
    out = _outcomes({c["id"]: c for c in rep["checks"]}["clock.offset"])
    assert out["sn1"][0] == "fail" and 195.0 <= _ahead(out["sn1"][1]) <= 205.0, out
    assert out["sn4"][0] == "fail" and 315.0 <= _ahead(out["sn4"][1]) <= 325.0, out
    [f] = {f["fix"] for f in rep["findings"] if f["check"] == "clock.offset"}
    assert "If every node reads the same offset, this machine's clock is the one off" in f


def test_srun_fails_the_node_120s_ahead_and_munge_keys_compare_equal_then_drift(bed):
    """Through srun (as root): sn4 fails clock.offset, sn[1-3] pass; all four hold the same key. Then sn3's key on
    disk is replaced (its munged keeps the old one: Slurm still runs jobs there, until munged restarts): munge.key
    names sn3 with the fix, and neither the report nor the history written in the same run holds the key in any
    form that could give it back (hex, base64, its bare sha256)."""
    from gpudoctor.nodes import expand

    def run_until_sn4_gathered(*extra):
        # At exactly 120 s ahead sn4's slurmd refuses a step whose credential crossed a second boundary on its way
        # (cred_expire: slurm28 saw 1 step in 15); gpudoctor then names sn4 with the clock hint and gathers the
        # others. A run in which sn4 was gathered is waited for (a bounded number of runs, no sleep).
        for _ in range(4):
            checks, rep, r = _check(bed, "--via", "srun", "--nodes", "sn[1-4]", *extra)
            down = {h: n for n in rep["nodes"] for h in expand(n["host"]) if not n.get("reachable", True)}
            if "sn4" not in down:
                return checks, rep, r
            assert "Job credential expired" in down["sn4"]["error"], down
        pytest.fail("sn4's step was refused in 4 runs out of 4")

    checks, rep, r = run_until_sn4_gathered()
    out = _outcomes(checks["clock.offset"])
    assert out["sn4"][0] == "fail" and 119.0 <= _ahead(out["sn4"][1]) <= 125.0, out
    assert all(out[h][0] == "pass" and "via srun" in out[h][1] for h in ("sn1", "sn2", "sn3")), out
    mk = _outcomes(checks["munge.key"])
    assert all(mk[h][0] == "pass" for h in bed.names), mk
    path = os.path.join(bed.dir, "munge", "sn3.key")
    wrong = os.urandom(1024)
    with open(path, "r+b") as f:  # in place: the node's bind mount keeps the same file
        f.write(wrong)
    state = os.path.join(bed.dir, "gd-state29")
    checks, rep, r = run_until_sn4_gathered("--history", "--state-dir", state)
    mk = _outcomes(checks["munge.key"])
    assert mk["sn3"][0] == "fail" and "sn3 (1): key#" in mk["sn3"][1], mk
    assert all(mk[h][0] == "pass" for h in ("sn1", "sn2", "sn4")), mk
    [f] = [f for f in rep["findings"] if f["check"] == "munge.key"]
    assert f["hosts"] == ["sn3"] and "copy the key slurmctld's host holds to sn3" in f["fix"]
    good = open(os.path.join(bed.dir, "munge", "sn1.key"), "rb").read()
    import hashlib

    written = r.stdout + r.stderr
    for root, _dirs, files in os.walk(state):
        for name in files:
            written += open(os.path.join(root, name), "rb").read().decode("latin-1")
    assert '"munge"' in written and "key_hmac" in written  # the history holds the section: it was looked at
    for k in (good, wrong):
        for form in (k.hex()[:32], base64.b64encode(k).decode()[:32], hashlib.sha256(k).hexdigest()[:16],
                     k[:32].decode("latin-1")):
            assert form not in written
    # the node's own check: slurmd still runs sn3's jobs (its munged holds the key it started with)
    assert bed.run("srun", "-w", "sn3", "-N1", "true", timeout=60).returncode == 0


def test_inside_an_allocation_the_early_steps_window_judges_the_clocks(bed):
    """salloc -N4 gpudoctor check: the step starts first thing (gpudoctor/early_srun.py), before the run's options
    are known; the window starts when that step was started (early_srun.started_at), so sn4 still fails and the others
    pass, each judged (not skipped for want of a window)."""
    from gpudoctor.nodes import expand

    # the checks chosen by the folder's config: a --select on the command line is no run the early step foresees
    bed.set_config("", checks=("clock.offset",))
    try:
        for _ in range(4):  # a run in which sn4's step was not refused (cred_expire at exactly 120 s: see above)
            r = bed.run("salloc", "-N4", "-t", "2", bed.gpudoctor, "check", "--json", "--timeout", "60", timeout=150)
            assert r.returncode in (0, 1), (r.returncode, r.stderr[-2000:])
            rep = json.loads(r.stdout)
            down = {h for n in rep["nodes"] for h in expand(n["host"]) if not n.get("reachable", True)}
            if "sn4" not in down:
                break
        else:
            pytest.fail("sn4's step was refused in 4 runs out of 4")
    finally:
        bed.set_config("")
    assert [c["id"] for c in rep["checks"]] == ["clock.offset"], rep["checks"]
    out = _outcomes({c["id"]: c for c in rep["checks"]}["clock.offset"])
    assert out["sn4"][0] == "fail" and 119.0 <= _ahead(out["sn4"][1]) <= 125.0, out
    assert all(out[h][0] == "pass" and "via srun" in out[h][1] for h in ("sn1", "sn2", "sn3")), out
