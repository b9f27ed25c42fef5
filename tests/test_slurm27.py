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
