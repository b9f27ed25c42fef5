"""slurm27: gpudoctor walked by hand, round 6, on the real 4-node Slurm (the session's `multislurm` fixture,
tests/slurmcluster.py; docs/slurm.md, "Walked by hand, round 6"). Each test failed on the tree before its fix."""

import os
import subprocess
import sys

import pytest

GD = [sys.executable, "-m", "gpudoctor"]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------- (a) probe: a silent node costs one bound

def test_a_node_silent_in_the_facts_round_is_the_hang_and_gets_no_worker(monkeypatch):
    """The probe's facts round runs the workers' python on every node; one that gave nothing within its bound was
    given a worker in the hello all the same, which waited its own bound again (15 s, then 10.5 s on a real
    4-node Slurm; the bed test is test_slurm26::test_probe_keeps_the_nodes_after_one_that_never_answers)."""
    import argparse

    from gpudoctor import transport
    from gpudoctor.commands import probe as cmd
    from gpudoctor.node import Node

    said = {}

    def run(hosts, payload, **kw):
        said.update(kw)
        return [Node(host="sn1", facts={"schema": "x"}), transport.timeout_node("sn2", kw["timeout"]),
                Node(host="sn3", error="timed out", error_kind="timeout"),  # ssh's connect: left to the hello
                Node(host="sn4", error="Slurm lists the node as DOWN", error_kind="node-down")]

    monkeypatch.setattr(transport, "run", run)
    args = argparse.Namespace(python=None, via="srun", ssh_config=None, host_key_policy=None)
    facts, unreached = cmd._gather_facts([], args, {"budget": 120.0})
    assert list(facts) == ["sn1"] and said["timeout"] == 15.0
    assert unreached["sn2"][0] == "hang" and "within 15s" in unreached["sn2"][1], unreached
    assert "sn3" not in unreached and unreached["sn4"][0] == "node-down", unreached


# ---------------------------------------------------------------- (b) a node's reason: the node filled in

@pytest.fixture
def ms(multislurm, tmp_path):
    multislurm.reset()
    multislurm.cwd = str(tmp_path)
    return multislurm


def _note(text):
    from gpudoctor import explain

    r = explain.explain_text(text, None)
    assert not r["findings"], [f["id"] for f in r["findings"]]  # a node's state is a note, never a root cause
    return next((c for c in r.get("context") or [] if c["id"] == "slurm.node_reason"), None)


def test_scontrol_show_node_names_the_drained_node_of_a_dump_of_four(ms):
    """sn3 drained on the real Slurm: `scontrol show node` (all four nodes, multi-line), `scontrol show node -o` and
    `scontrol show node sn3` gave the note with `<node>` (the reason's line has no node; -o's is shown clipped
    around the reason); now sn3, never sn1, sn2 or sn4."""
    reason = "pcie AER storm, ticket 7"
    ms.run("scontrol", "update", "nodename=sn3", "state=drain", "reason=" + reason, check=True)
    try:
        ms.wait(lambda st: "DRAIN" in st["sn3"][0], what="sn3 drained")
        texts = [ms.run("scontrol", "show", "node", check=True).stdout,
                 ms.run("scontrol", "show", "node", "-o", check=True).stdout,
                 ms.run("scontrol", "show", "node", "sn3", check=True).stdout]
        sinfo = ms.run("sinfo", "-R", check=True).stdout
    finally:
        ms.run("scontrol", "update", "nodename=sn3", "state=resume")
        ms.run("scontrol", "reconfigure")
    assert texts[0].count("NodeName=") == 4 and texts[1].count("NodeName=") == 4, texts
    for text in texts:
        n = _note(text)
        assert n and "node sn3 " in n["note"] and reason in n["note"], (n, text[:300])
        assert "nodename=sn3 state=resume" in n["fix"], n
    # sinfo -R's row as Slurm prints it when an admin other than root set the reason (AdminLevel in slurmdbd: this
    # bed has none, so root's row is given another user's name in the USER column, '%9u')
    row = next(ln for ln in sinfo.splitlines() if ln.endswith(" sn3"))
    assert row[21:30] == "root     ", row
    n = _note(sinfo.replace(row, row[:21] + "alice    " + row[30:]))
    assert n and "node sn3 " in n["note"] and reason[:20] in n["note"] and "nodename=sn3 " in n["fix"], n


def test_a_reason_past_the_kept_node_lines_is_not_given_a_wrong_node():
    # a dump of 250 nodes, the reason on the last: scan keeps the first MAX_LINES_KEPT NodeName= lines, so the
    # nearest kept one is another node's; the placeholder stays
    blocks = ["NodeName=n%03d Arch=x86_64 CoresPerSocket=1\n   State=IDLE ThreadsPerCore=1\n" % i for i in range(250)]
    blocks[-1] += "   Reason=bad dimm [root@2026-11-28T08:55:30]\n"
    n = _note("\n".join(blocks))
    assert n and "bad dimm" in n["note"] and "n2" not in n["note"] and "n2" not in n["fix"], n
    n = _note("\n".join(blocks[-3:]))  # a short dump: its own node
    assert n and "node n249 " in n["note"], n


# ---------------------------------------------------------------- (c) one node's package changed

def test_a_package_changed_on_one_node_is_named_across_nodes_and_over_time(ms):
    """sn2's numpy changed between two `check --via srun --history` runs (a directory with numpy 2.3.1's
    dist-info first on sn2's path, as a user's `pip install --user numpy==2.3.1` puts it): versions.parity said "the
    same on every node" (it compared torch, NCCL, Python, ... not numpy, triton, flash-attn, xformers, vllm, apex or
    megatron-core); now it names numpy and sn2, and the history note under it says what changed there and when."""
    base = os.path.join(ms.cwd, "venv-site")
    mine = os.path.join(ms.cwd, "sn2-user-site")
    for where, version in ((base, "2.4.6"), (mine, "2.3.1")):
        os.makedirs(os.path.join(where, "numpy-%s.dist-info" % version))
        with open(os.path.join(where, "numpy-%s.dist-info" % version, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: numpy\nVersion: %s\n" % version)
    flag = os.path.join(ms.cwd, "changed")
    wrapper = os.path.join(ms.cwd, "python")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nexport PYTHONPATH=%s\n[ "$SLURMD_NODENAME" = sn2 ] && [ -e %s ] && export PYTHONPATH=%s:%s\n'
                'exec %s "$@"\n' % (base, flag, mine, base, sys.executable))
    os.chmod(wrapper, 0o755)
    argv = GD + ["check", "--via", "srun", "--nodes", "sn[1-4]", "--python", wrapper, "--select", "versions.parity",
                 "--history", "--state-dir", os.path.join(ms.cwd, "state")]
    p = ms.run(*argv, timeout=150, cwd=ms.cwd, env={"PYTHONPATH": REPO})
    assert p.returncode == 0 and "numpy 2.4.6" in " ".join(p.stdout.split()), (p.stdout[-2000:], p.stderr[-2000:])
    open(flag, "w").close()
    p = ms.run(*argv, timeout=150, cwd=ms.cwd, env={"PYTHONPATH": REPO})
    flat = " ".join(p.stdout.split())
    assert "WARN versions.parity numpy differs: sn2 (1): 2.3.1 vs baseline sn[1,3-4] (3): 2.4.6" in flat, flat[-3000:]
    assert "note: history: changed since" in flat and "numpy 2.4.6 -> 2.3.1" in flat, flat


def test_numpy_1_against_2_is_an_error_and_a_failed_section_is_one_line():
    from conftest import node_facts, run_check

    a, b = node_facts("h100-ubuntu2404-torch211"), node_facts("h100-ubuntu2404-torch211")
    b["python"]["packages"]["numpy"] = "1.26.4"
    out = run_check("versions.parity", {"gpu01": a, "gpu02": b, "gpu03": node_facts("h100-ubuntu2404-torch211")})
    f = [x for x in out.findings if "numpy" in x.message]
    assert f and f[0].severity == "error" and f[0].hosts == ["gpu02"], out.findings
    b = node_facts("h100-ubuntu2404-torch211")
    b["python"] = {"status": "error", "error": "x"}
    status, text = run_check("versions.parity", {"gpu01": a, "gpu02": b}).outcomes["gpu02"]
    # one line for the labels one failed section hides (it was a line per label: 8, and 15 with the packages)
    assert status == "skipped" and text.count("not compared") == 1 and "torch, " in text and "numpy" in text, text
