"""arr22: two leftovers of plan SCRIPT's bash reader (mutation round 17, docs/launch.md's known gaps), each checked
against real bash with argv-recording stubs (tests/test_review22.py's _both)."""

import stat

import pytest

from gpudoctor.launch.script import MARK, read_script

LAUNCH = "torchrun --nproc_per_node 2 train.py"
NODES = 'NODES=( $(scontrol show hostnames "$SLURM_JOB_NODELIST") )'


def _both(tmp_path, body, args=()):
    from test_review22 import _both as both

    # a scontrol stub beside bash_argv's: a two-node allocation's `scontrol show hostnames`
    (tmp_path / "bin").mkdir(exist_ok=True)
    sc = tmp_path / "bin" / "scontrol"
    sc.write_text("#!/bin/sh\nprintf 'n1\\nn2\\n'\n")
    sc.chmod(stat.S_IRWXU)
    return both(tmp_path, body, args)


def _plan(tmp_path, body, args=()):
    p = tmp_path / "p.sh"
    p.write_text("#!/bin/bash\n" + body + "\n")
    return read_script(str(p), list(args), environ={})


# ${NODES[k]} of NODES=( $(scontrol show hostnames ...) ): bash passes the (k+1)th node's name; the plan knows the
# node names only at run time, so the item is a stand-in naming that node, never "" (it was empty: the one stand-in
# held every node)
@pytest.mark.parametrize("idx,nth", [("1", "the second node"), ("2", "the third node"), ("12", "node 12 (from 0)")])
def test_an_item_after_the_first_of_the_node_names_is_that_node(tmp_path, idx, nth):
    real, plan = _both(tmp_path, "%s\n%s ${NODES[%s]} z" % (NODES, LAUNCH, idx))
    assert real == ([["n2", "z"]] if idx == "1" else [["z"]])  # the stub's allocation has two nodes
    assert len(plan) == 1 and len(plan[0]) == 2 and plan[0][1] == "z"
    assert MARK in plan[0][0]
    r = _plan(tmp_path, "%s\n%s ${NODES[%s]} z" % (NODES, LAUNCH, idx))
    us = r.launches[0].unknown
    assert [u.why for u in us if u.text.endswith("[%s]" % idx)] == [nth + " of the allocation"], us
    assert all(u.host for u in us if u.text.endswith("[%s]" % idx))


def test_the_first_and_second_node_are_two_stand_ins(tmp_path):
    real, plan = _both(tmp_path, '%s\n%s --master_addr "${NODES[0]}" ${NODES[1]}' % (NODES, LAUNCH))
    assert real == [["--master_addr", "n1", "n2"]]
    assert plan[0][0] == "--master_addr" and MARK in plan[0][1] and MARK in plan[0][2]
    assert plan[0][1] != plan[0][2]
    r = _plan(tmp_path, '%s\nMASTER_ADDR=${NODES[1]}\n%s --master_addr $MASTER_ADDR' % (NODES, LAUNCH))
    assert "the second node of the allocation" in [u.why for u in r.launches[0].unknown]


# An unquoted argument given as '' (or blanks) is no word at all: bash(1) Word Splitting removes an unquoted null
# argument; the plan kept it as an empty word. Quoted, it stays one empty word; one with blanks splits.
@pytest.mark.parametrize("body,args,want", [
    ("%s $1 z" % LAUNCH, ("",), ["z"]),
    ("%s ${1} z $2" % LAUNCH, ("", " "), ["z"]),
    ('%s $1 z "$1" a$1 "a$1"' % LAUNCH, ("",), ["z", "", "a", "a"]),
    ("%s $1 z b$1c" % LAUNCH, ("x y",), ["x", "y", "z", "bx", "yc"]),
    ('A=$1\n%s $A z "$A"' % LAUNCH, ("",), ["z", ""]),
    ("%s $1 z" % LAUNCH, ("v",), ["v", "z"]),
    # the same splitting where the value is used as words: set --, an array, a for list (docs/launch.md's gap
    # "a script argument with a blank used unquoted")
    ("set -- $1\n%s $# $2 z" % LAUNCH, ("x y",), ["2", "y", "z"]),
    ("set -- $1 q\n%s $# $1 z" % LAUNCH, ("",), ["1", "q", "z"]),
    ("A=($1)\n%s ${#A[@]} z" % LAUNCH, ("x y",), ["2", "z"]),
])
def test_an_unquoted_empty_argument_is_dropped_as_bash_does(tmp_path, body, args, want):
    real, plan = _both(tmp_path, body, args)
    assert real == [want]
    la = _plan(tmp_path, body, args).launches[0]
    assert la.argv_shown[4:] == want, la.argv_shown  # a given argument shown by its value
    assert len(plan[0]) == len(want)
