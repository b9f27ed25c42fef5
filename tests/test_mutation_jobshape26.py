"""Mutation round 21 (mutation26): explain/jobshape.py's "ran before" rule (review26) across inputs, in-process.

Two single-node torchrun runs one after the other are no two machines each alone; test_review26.py checks the
folder of two runs through a subprocess (`gpudoctor explain --json a b`), which mutmut cannot count, so the rule's
cross-input half (glog's time of the agent's "Local worker group finished (" against the other's first line) had
no test it could run. Here the same recorded runs (fixtures/explain/shape-netns-2026-11-28/nodes-alone-info, two
netns nodes started together) go through explain_inputs, the several-file path of the CLI.
"""

import io
import os
import re

import pytest

from gpudoctor import explain

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = os.path.join(ROOT, "fixtures", "explain", "shape-netns-2026-11-28", "nodes-alone-info")


@pytest.fixture(scope="module")
def kb():
    return explain.load_knowledge()


def _read(name):
    with open(os.path.join(RUNS, name)) as f:
        return f.read()


def _later(text, pid, when):
    """node1's run as a later launcher prints it: another pid, its lines at WHEN ('06:23' or '05:24') instead."""
    out = text.replace(" 32514 ", " %d " % pid)
    return re.sub(r"(?m)^(\[?[IWEF]1128) 05:23:", r"\g<1> %s:" % when, out)


def _ids(kb, texts):
    inputs = [(name, (lambda t=t: io.BytesIO(t.encode()))) for name, t in texts]
    return [f["id"] for f in explain.explain_inputs(inputs, kb)["findings"]]


@pytest.mark.parametrize("when", ["06:23", "05:24"])
def test_two_files_one_run_after_the_other_in_either_order(kb, when):
    run = _read("node1.log")
    later = _later(run, 40001, when)
    # (node1's agent finished at 05:23:32.448; the later run's first glog line is at WHEN:17)
    assert "nodes_alone" not in " ".join(_ids(kb, [("run1.log", run), ("run2.log", later)]))
    assert "nodes_alone" not in " ".join(_ids(kb, [("run2.log", later), ("run1.log", run)]))


def test_two_files_that_ran_together_are_two_machines_alone(kb):
    # the recorded pair: node2 began (05:23:18) before node1 finished (05:23:32): either order of the files
    a, b = _read("node1.log"), _read("node2.log")
    for pair in ([("node1.log", a), ("node2.log", b)], [("node2.log", b), ("node1.log", a)]):
        ids = _ids(kb, pair)
        assert ids and ids[0] == "elastic.nodes_alone", ids


def test_one_log_later_run_first_in_the_file_is_read_by_line_order(kb):
    # within one input the lines' order decides, not glog's time
    run = _read("node1.log")
    ids = _ids(kb, [("both.log", _later(run, 40001, "04:23") + run)])
    assert "elastic.nodes_alone" not in ids, ids


def test_runs_with_no_end_line_are_judged_beside_each_other(kb):
    # a launcher whose agent never said "Local worker group finished" (killed, hung, cut log) did not end before
    # anything: the recorded pair without those lines is still two machines alone
    a, b = ("".join(x for x in _read(n).splitlines(True) if "Local worker group finished" not in x)
            for n in ("node1.log", "node2.log"))
    ids = _ids(kb, [("node1.log", a), ("node2.log", b)])
    assert ids and ids[0] == "elastic.nodes_alone", ids
