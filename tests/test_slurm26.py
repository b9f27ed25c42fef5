"""slurm26: gpudoctor walked by hand, round 5, on the real 4-node Slurm (the session's `multislurm` fixture,
tests/slurmcluster.py). A node an admin drained, as `sinfo -R` and `scontrol show node` print it, read "NO ERROR
FOUND" in explain; now slurm.node_reason names the node, the reason and the resume (docs/slurm.md, "Walked by
hand, round 5"). Each test failed on the tree before the entry."""

import os
import re
import subprocess
import sys

import pytest

from gpudoctor import explain

GD = [sys.executable, "-m", "gpudoctor"]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def ms(multislurm, tmp_path):
    multislurm.reset()
    multislurm.cwd = str(tmp_path)
    return multislurm


def _explain(ms, text, name):
    path = os.path.join(ms.cwd, name)
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run(GD + ["explain", "--json", path], capture_output=True, text=True, timeout=120,
                       cwd=ms.cwd, env=dict(os.environ, PYTHONPATH=REPO))
    assert p.returncode in (0, 1), (p.returncode, p.stderr)
    import json
    return json.loads(p.stdout)


def _node_reason(doc):
    """The note of slurm.node_reason: a node's state is context (a drained node beside a job that ran on the others
    is a healthy log: p15-healthy_other_node_drained), never a root cause."""
    return next((c for c in doc.get("context") or [] if c["id"] == "slurm.node_reason"), None)


def test_an_admins_drain_in_sinfo_and_scontrol_names_the_node_the_reason_and_the_resume(ms):
    reason = "bad gpu 3 - RMA ticket 1234"
    ms.run("scontrol", "update", "nodename=sn1", "state=drain", "reason=" + reason, check=True)
    try:
        ms.wait(lambda st: "DRAIN" in st["sn1"][0], what="sn1 drained")
        sinfo = ms.run("sinfo", "-R", check=True).stdout
        whole = ms.run("scontrol", "show", "node", "sn1", check=True).stdout
    finally:
        # a resumed node stays IDLE+NOT_RESPONDING under HealthCheckInterval=1 until a reconfigure (docs/slurm.md)
        ms.run("scontrol", "update", "nodename=sn1", "state=resume")
        ms.run("scontrol", "reconfigure")
    assert "sn1" in sinfo and reason[:20] in sinfo, sinfo
    # sinfo -R: the row names the node, the reason as sinfo cut it, and the resume of that node; no root cause
    doc = _explain(ms, sinfo, "sinfo-R.txt")
    n = _node_reason(doc)
    assert n and doc["root"] is None, doc
    assert "node sn1" in n["note"] and reason[:20] in n["note"], n
    assert "nodename=sn1 state=resume" in n["fix"], n
    # scontrol show node: the whole reason; the node stays a placeholder (its name is on another line)
    n = _node_reason(_explain(ms, whole, "node.txt"))
    assert n and reason in n["note"] and "state=resume" in n["fix"], n


def test_healthy_nodes_and_an_empty_sinfo_R_are_no_finding(ms):
    sinfo = ms.run("sinfo", "-R", check=True).stdout
    nodes = ms.run("scontrol", "show", "node", check=True).stdout
    for text, name in ((sinfo, "sinfo-R.txt"), (nodes, "nodes.txt")):
        doc = _explain(ms, text, name)
        assert not _node_reason(doc), (name, text)


def test_a_drained_node_beside_a_job_that_ran_is_no_root_cause():
    # the shape of p15-healthy_other_node_drained (seen set bench/data/explain_heldout_2026-11-26p15.jsonl): the
    # admin's drain is a note naming the node, the job's log is healthy
    text = ("$ sinfo -R\nREASON               USER      TIMESTAMP           NODELIST\n"
            "maint: BIOS update ( root      2026-11-26T16:32:52 s2\n$ srun -N1 -n2 -l python train.py\n"
            "0: rank 0/2: all_reduce -> [3.0, 3.0]\n1: rank 1/2: all_reduce -> [3.0, 3.0]\n")
    r = explain.explain_text(text, None)
    assert not r["findings"], [f["id"] for f in r["findings"]]
    n = _node_reason(r)
    assert n and "node s2" in n["note"] and "nodename=s2 state=resume" in n["fix"], n


def test_a_dump_of_several_nodes_never_names_the_wrong_one():
    # `scontrol show node` of two nodes (the form src/scontrol/info_node.c prints), the reason on the second:
    # the first NodeName= line is not that node, so the answer keeps the placeholder
    text = ("NodeName=sn1 Arch=x86_64 CoresPerSocket=1\n   State=IDLE ThreadsPerCore=1\n\n"
            "NodeName=sn2 Arch=x86_64 CoresPerSocket=1\n   State=IDLE+DRAIN ThreadsPerCore=1\n"
            "   Reason=disk swap [alice@2026-11-28T08:55:30]\n")
    n = _node_reason(explain.explain_text(text, None))
    assert n and "disk swap" in n["note"] and "sn1" not in n["note"] and "sn1" not in n["fix"], n


def test_a_hostile_reason_is_quoted_and_a_long_one_is_not_used():
    # the reason is anyone's text (scontrol update reason=...): it is printed as one quoted word, never a command
    text = "NodeName=sn2 State=IDLE+DRAIN Reason=x; rm -rf / $(id) [root@2026-11-28T08:55:30]\n"
    n = _node_reason(explain.explain_text(text, None))
    # (red team 2026-11-28g, docs/security.md 89.: with a blank, one blank-free inert word the report never wraps)
    assert n and "$'x\\x3b\\x20rm\\x20-rf\\x20/\\x20\\x24(id)'" in n["note"], n
    long = "NodeName=sn2 State=IDLE+DRAIN Reason=%s [root@2026-11-28T08:55:30]\n" % ("y" * 300)
    n = _node_reason(explain.explain_text(long, None))
    assert n and "y" * 65 not in n["note"] and "sn2" in n["note"], n


# ---------------------------------------------------------------- (d) probe: one node never answers

def _silent_left(marker):
    # the whole command line, the dot escaped: a bare `pgrep -f 2NNN.5` is a regex that matched (and the finally
    # below SIGTERMed) any process whose command line held those digits around any character
    p = subprocess.run(["pgrep", "-f", "^sleep %s$" % re.escape(marker)], capture_output=True, text=True, timeout=10)
    return p.stdout.split()


def test_probe_keeps_the_nodes_after_one_that_never_answers(ms):
    """`salloc -N4 gpudoctor probe` where sn2's interpreter never answers (a wrapper given as --python that sleeps
    on sn2 only, as a hung NFS home would): sn2 is the one hang, sn1, sn3 and sn4 are measured, exit 1, nothing
    left. The hello waited for its workers in node order, so sn2's wait used the deadline of sn3 and sn4, whose
    answers had arrived long before and were dropped: all three read 'hang' and no pair was measured."""
    import json
    import time

    marker = "%d.25" % (20000000 + os.getpid())  # the sleep's own argument (~231 days): what finds a leftover
    wrapper = os.path.join(ms.cwd, "python-silent-on-sn2")
    with open(wrapper, "w") as f:
        # each start on sn2 leaves a line: the facts round's python and, before slurm27, the hello's too
        f.write('#!/bin/sh\n[ "$SLURMD_NODENAME" = sn2 ] && echo started >> %s.sn2 && exec sleep %s\nexec %s "$@"\n'
                % (wrapper, marker, sys.executable))
    os.chmod(wrapper, 0o755)
    try:
        p = ms.run(*(["salloc", "-N4", "-t", "3"] + GD + ["probe", "--mode", "tcp", "--json", "--budget", "60",
                                                          "--python", wrapper]),
                   timeout=150, cwd=ms.cwd, env={"PYTHONPATH": REPO})
        assert p.returncode == 1, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
        doc = json.loads(p.stdout)
        nodes = {n["host"]: n for n in doc["nodes"]}
        assert nodes["sn2"]["reachable"] is False and nodes["sn2"]["error_kind"] == "hang", nodes["sn2"]
        # one bound (slurm27): the facts round's silence is the hang, the hello starts no second worker on sn2
        # (it waited 15 s there, then 10.5 s more)
        assert "facts round" in nodes["sn2"]["error"], nodes["sn2"]
        with open(wrapper + ".sn2") as f:
            assert f.read().split() == ["started"], "a second python was started on the silent node"
        assert all(nodes[h]["reachable"] for h in ("sn1", "sn3", "sn4")), nodes
        measured = {frozenset((x["a"], x["b"])) for x in doc["pairs"] if x.get("gbps")}
        assert measured and all("sn2" not in pair for pair in measured), doc["pairs"]
        assert set(doc["cleanup"]) >= {"sn1", "sn3", "sn4"} and all(
            c.get("left") == 0 for c in doc["cleanup"].values()), doc["cleanup"]
        end = time.time() + 30  # the cancelled step's processes end with it (slurmstepd): wait on that state
        while _silent_left(marker) and time.time() < end:
            time.sleep(0.2)
        assert not _silent_left(marker), "the silent worker is still running on sn2"
    finally:
        for pid in _silent_left(marker):
            subprocess.run(["kill", pid], timeout=5)


def test_an_answer_that_arrived_before_the_deadline_is_read_after_it():
    import time

    from gpudoctor.probe.launch import Worker

    w = Worker("sn3", "hello")
    w.put({"event": "log", "text": "x"})
    w.put({"event": "result", "ok": True})
    assert w.next_event(time.time() - 1) == {"event": "result", "ok": True}
    assert w.next_event(time.time() - 1) is None  # nothing more: past the deadline, no wait


# ---------------------------------------------------------------- (e) srun -N3 inside a 4-node allocation

def test_srun_N3_inside_a_4_node_job_checks_the_steps_3_nodes(ms):
    """Every task of `srun -N3` in `salloc -N4` sees SLURM_JOB_NODELIST=sn[1-4] and SLURM_STEP_NODELIST=sn[1-3]; the
    run checked all four nodes. `srun` over the whole job still checks the four."""
    import json

    p = ms.run(*(["salloc", "-N4", "-t", "3", "srun", "-N3"] + GD + ["check", "--json"]), timeout=150, cwd=ms.cwd,
               env={"PYTHONPATH": REPO})
    assert p.returncode in (0, 1), (p.returncode, p.stderr[-2000:])
    doc = json.loads(p.stdout)
    assert sorted(n["host"] if isinstance(n, dict) else n for n in doc["nodes"]) == ["sn1", "sn2", "sn3"], doc["nodes"]
    p = ms.run(*(["salloc", "-N4", "-t", "3", "srun"] + GD + ["check", "--json"]), timeout=150, cwd=ms.cwd,
               env={"PYTHONPATH": REPO})
    doc = json.loads(p.stdout)
    assert len(doc["nodes"]) == 4, doc["nodes"]


def test_the_step_nodelist_is_used_only_for_a_task_of_an_srun_step():
    from gpudoctor.transport import default_nodelist

    job = {"SLURM_JOB_ID": "7", "SLURM_JOB_NODELIST": "sn[1-4]", "SLURM_STEP_NODELIST": "sn[1-3]"}
    assert default_nodelist(dict(job, SLURM_STEP_ID="0")) == ("sn[1-3]", "$SLURM_STEP_NODELIST")
    assert default_nodelist(job) == ("sn[1-4]", "$SLURM_JOB_NODELIST")  # a batch script: no SLURM_STEP_ID
    assert default_nodelist(dict(job, SLURM_STEP_ID="4294967291"))[0] == "sn[1-4]"  # Slurm's batch step
    assert default_nodelist(dict(job, SLURM_STEP_ID="x1"))[0] == "sn[1-4]"
    het = dict(job, SLURM_STEP_ID="0", SLURM_HET_SIZE="2", SLURM_JOB_NODELIST_HET_GROUP_0="sn1",
               SLURM_JOB_NODELIST_HET_GROUP_1="sn[2-3]")
    assert default_nodelist(het)[0] == "sn1,sn[2-3]"
    assert default_nodelist({"SLURM_STEP_ID": "0", "SLURM_STEP_NODELIST": "sn1"}) == (None, None)  # no job


# ---------------------------------------------------------------- (e) SLURM_GPUS exported

def test_slurm_gpus_exported_is_named_where_srun_refuses_the_gres(ms):
    """SLURM_GPUS=2 exported (sbatch --gpus exports it) and `check --via srun --nodes sn[1-4]` outside a job: srun
    refused the step ('--gpus < -N', then 'Invalid generic resource (gres) specification') and every node read only
    srun's words. (slurm27: sn3 and sn4, which have no GPU, are now not-eligible first, so SLURM_GPUS=2 would run on
    sn[1-2]; SLURM_GPUS=1 is still fewer GPUs than those two nodes, and srun refuses it the same way.)"""
    p = ms.run(*(GD + ["check", "--via", "srun", "--nodes", "sn[1-4]", "--select", "shm.size"]), timeout=150,
               cwd=ms.cwd, env={"PYTHONPATH": REPO, "SLURM_GPUS": "1"})
    assert p.returncode == 1, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    flat = " ".join(p.stdout.split())
    assert "Invalid generic resource" in flat and "srun read it from SLURM_GPUS=1 in the environment" in flat, flat[:3000]


def test_the_gres_refusal_names_only_a_variable_that_is_set():
    from gpudoctor.transport.srun import _env_said

    line = "srun: error: Invalid generic resource (gres) specification"
    assert "SLURM_GRES=gpu:9" in _env_said(line, {"SLURM_GRES": "gpu:9"})
    assert _env_said(line, {"PATH": "/bin"}) == ""
    assert "SLURM_EXCLUSIVE=1" in _env_said("srun: error: Invalid --exclusive specification", {"SLURM_EXCLUSIVE": "1"})


def test_a_flooding_nodes_fix_fits_srun_too():
    from gpudoctor.probe.findings import _hint

    fix = _hint("garbage")
    assert "wrapper" in fix and "python3 -c 1" in fix and "login banner" in fix, fix
