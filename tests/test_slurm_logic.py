"""slurm-health's decision, as a pure function of the state `scontrol show node -o` prints.

The ownership rule (peers: mej/nhc #134 resumed an admin's drain, #82 did not know
RESV): drain a failing node unless someone else already holds it; resume a passing node
only when the drain reason is gpudoctor's own. tests/test_slurm.py runs the same paths
against a real slurmctld."""

import os

import pytest

from gpudoctor.registry import Finding
from gpudoctor.runner import Node, Report
from gpudoctor.slurm import REASON_MAX, decide, node_name, parse_show_node, short_reason

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "fixtures", "slurm", "show-node-idle-drain.txt")) as f:
    REAL = f.read()  # recorded from slurmctld 22.05.8 on the development machine


def line(state, reason=None):
    """The recorded line with another State= and Reason= (reason None: no Reason= at all)."""
    out = REAL.replace("State=IDLE+DRAIN", "State=" + state)
    head = out[: out.index(" Reason=")]
    return head + (" Reason=%s [root@2026-11-20T23:14:08]" % reason if reason else "") + "\n"


def test_parse_recorded_line():
    n = parse_show_node(REAL)
    assert (n.name, n.state, n.base, n.flags) == ("vm", "IDLE+DRAIN", "IDLE", {"DRAIN"})
    assert n.reason == "gpudoctor: shm.size: too small" and n.reason_user == "root"
    assert n.drained and n.ours and not n.down


def test_parse_reason_with_equals_and_brackets_inside():
    n = parse_show_node(line("MIXED+DRAIN", "admin: see [ticket] a=b"))
    assert n.reason == "admin: see [ticket] a=b" and n.drained and not n.ours


def test_parse_no_reason():
    n = parse_show_node(line("IDLE"))
    assert n.reason is None and not n.drained


OURS = "gpudoctor: shm.size: /dev/shm is 64.0 MiB, below the 1.0 GiB minimum"
NEW = "gpudoctor: limits.memlock: memlock is soft 64.0 KiB"
ADMIN = "admin: replacing DIMM B2"

# (state, current reason, checks pass?, expected action)
CASES = [
    ("IDLE", None, False, "drain"),
    ("ALLOCATED", None, False, "drain"),  # prolog: the node is allocated to the job being started
    ("MIXED", None, False, "drain"),
    ("IDLE+RESERVED", None, False, "drain"),  # RESV (nhc #82): a reservation does not stop a drain
    ("IDLE+MAINT+RESERVED", None, False, "drain"),
    ("IDLE+DRAIN", OURS, False, "none"),  # same reason: nothing to update
    ("IDLE+DRAIN+RESERVED", OURS, True, "resume"),
    ("MIXED+DRAIN", NEW.replace("limits.memlock", "shm.size"), False, "drain"),  # draining, ours, new reason
    ("IDLE+DRAIN", ADMIN, False, "none"),  # never take over an admin's drain
    ("MIXED+DRAIN", ADMIN, False, "none"),  # draining (jobs still running) by an admin
    ("DOWN+DRAIN", ADMIN, False, "none"),
    ("DOWN", ADMIN, False, "none"),  # DOWN with someone's reason: a later resume would undo it
    ("DOWN+NOT_RESPONDING", None, False, "drain"),
    ("IDLE", None, True, "none"),
    ("IDLE+DRAIN", OURS, True, "resume"),
    ("MIXED+DRAIN", OURS, True, "resume"),
    ("DOWN+DRAIN+NOT_RESPONDING", OURS, True, "resume"),
    ("IDLE+DRAIN", ADMIN, True, "none"),  # nhc #134: never resume an admin's drain
    ("IDLE+DRAIN", "Prolog error", True, "none"),  # Slurm's own drain is not gpudoctor's either
    ("IDLE+DRAIN", "gpudoctorish: not ours", True, "none"),
    ("IDLE+DRAIN", None, True, "none"),
    ("DOWN", ADMIN, True, "none"),
    ("IDLE+RESERVED", None, True, "none"),
]


@pytest.mark.parametrize("state,reason,healthy,want", CASES)
def test_decide(state, reason, healthy, want):
    node = parse_show_node(line(state, reason))
    assert decide(node, healthy, OURS).kind == want


def _report(findings=(), nodes=None, strict=False):
    return Report(nodes=nodes or [Node(host="n1", facts={})], results=[], findings=list(findings), strict=strict)


def test_short_reason_names_failing_checks_and_first_message():
    fs = [Finding(severity="error", message="/dev/shm is 64.0 MiB", check="shm.size"),
          Finding(severity="error", message="driver too old\nfor CUDA 12.4", check="driver.cuda"),
          Finding(severity="warning", message="memlock small", check="limits.memlock")]
    assert short_reason(_report(fs)) == "gpudoctor: shm.size,driver.cuda: /dev/shm is 64.0 MiB"
    assert short_reason(_report(fs[2:], strict=True)) == "gpudoctor: limits.memlock: memlock small"
    long = [Finding(severity="error", message="x" * 500, check="a.b")]
    r = short_reason(_report(long))
    assert len(r) == REASON_MAX and r.endswith("...") and "\n" not in r


def test_short_reason_for_a_node_that_could_not_be_checked():
    r = short_reason(_report(nodes=[Node(host="n1", error="did not finish within 20s", error_kind="timeout")]))
    assert r == "gpudoctor: timeout: did not finish within 20s"


def test_node_name(monkeypatch):
    monkeypatch.setenv("SLURMD_NODENAME", "gpu07")
    assert node_name() == "gpu07" and node_name("gpu08") == "gpu08"
    monkeypatch.delenv("SLURMD_NODENAME")
    import socket

    assert node_name() == socket.gethostname().split(".")[0]
