"""Answers of explain/slurmscript.py (slurm19) that mutation testing round 14 found unasserted (docs/mutation.md,
"Round 14"): the first cause of each fixture its new readers answer (_overlap, _empty, _wrap / _expanded_early),
asserted whole, text and fix lines (test_explain_slurm19.py checks words inside them). The texts are that file's
fixtures: real outputs of Slurm 22.05.8 run here (fixtures/explain/slurm19)."""

import os

import pytest

from gpudoctor import explain

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "..", "fixtures", "explain", "slurm19")
ANSWERS = {
    'nodelist_exclude_overlap': ('slurm.node_config',
        "The job's required and excluded node lists overlap: s19 is in --nodelist (-w) and in "
        "--exclude (-x). slurmctld refuses such a job with ESLURM_INVALID_NODE_NAME, 'Invalid node "
        "name specified', although the name is known (src/slurmctld/job_mgr.c: \"Job's required and "
        "excluded node lists overlap\").",
        ["drop one of the two for s19: remove it from --exclude (-x), or remove it from --nodelist "
         "(-w)"]),
    'nodelist_exclude_overlap_srun': ('slurm.node_config',
        "The job's required and excluded node lists overlap: s19 is in --nodelist (-w) and in "
        "--exclude (-x). slurmctld refuses such a job with ESLURM_INVALID_NODE_NAME, 'Invalid node "
        "name specified', although the name is known (src/slurmctld/job_mgr.c: \"Job's required and "
        "excluded node lists overlap\").",
        ["drop one of the two for s19: remove it from --exclude (-x), or remove it from --nodelist "
         "(-w)"]),
    'empty_int': ('code.exception',
        "SLURM_CPUS_PER_TASK is empty in this job: Slurm sets it only when the job is given "
        "--cpus-per-task (sbatch(1) OUTPUT ENVIRONMENT VARIABLES), and no #SBATCH line shown gives "
        "it; the script's line 'export NUM_WORKERS=$SLURM_CPUS_PER_TASK' passes that empty value "
        "on.",
        ["pass the option: add '#SBATCH --cpus-per-task=<value>' to the #SBATCH lines at the top of "
         "the script, before its first command (or sbatch --cpus-per-task=<value> <script>); Slurm "
         "sets SLURM_CPUS_PER_TASK only then",
         "or give it a default on the line that reads it: export "
         "NUM_WORKERS=${SLURM_CPUS_PER_TASK:-1}   (was: export NUM_WORKERS=$SLURM_CPUS_PER_TASK)"]),
    'empty_argparse': ('launcher.script_args',
        "SLURM_CPUS_PER_TASK is empty in this job: Slurm sets it only when the job is given "
        "--cpus-per-task (sbatch(1) OUTPUT ENVIRONMENT VARIABLES), and no #SBATCH line shown gives "
        "it; the script's line 'python3 prep.py --workers $SLURM_CPUS_PER_TASK' passes that empty "
        "value on.",
        ["pass the option: add '#SBATCH --cpus-per-task=<value>' to the #SBATCH lines at the top of "
         "the script, before its first command (or sbatch --cpus-per-task=<value> <script>); Slurm "
         "sets SLURM_CPUS_PER_TASK only then",
         "or give it a default on the line that reads it: python3 prep.py --workers "
         "${SLURM_CPUS_PER_TASK:-1}   (was: python3 prep.py --workers $SLURM_CPUS_PER_TASK)"]),
    'empty_arith': ('slurm.script_empty_operand',
        "SLURM_GPUS_PER_NODE is empty in this job: Slurm sets it only when the job is given "
        "--gpus-per-node (sbatch(1) OUTPUT ENVIRONMENT VARIABLES), and no #SBATCH line shown gives "
        "it; the script's line 'WORLD=$(( $SLURM_GPUS_PER_NODE * SLURM_NNODES ))' passes that empty "
        "value on.",
        ["pass the option: add '#SBATCH --gpus-per-node=<value>' to the #SBATCH lines at the top of "
         "the script, before its first command (or sbatch --gpus-per-node=<value> <script>); Slurm "
         "sets SLURM_GPUS_PER_NODE only then",
         "or give it a default on the line that reads it: WORLD=$(( "
         "${SLURM_GPUS_PER_NODE:-<default>} * SLURM_NNODES ))   (was: WORLD=$(( $SLURM_GPUS_PER_NODE "
         "* SLURM_NNODES )))"]),
    'wrap_double_quotes': ('launcher.script_args',
        "$SLURM_CPUS_ON_NODE is inside a double-quoted command on the submitting line ('sbatch "
        "--output=wrap-%j.out --wrap \"python3 prep.py --workers $SLURM_CPUS_ON_NODE\"'): the "
        "submitting shell expanded it before Slurm ran the command, where Slurm had not set it, so "
        "the command got an empty value (bash(1) QUOTING: '$' keeps its meaning inside double "
        "quotes).",
        ["escape it so that the job's shell expands it: sbatch --output=wrap-%j.out --wrap \"python3 "
         "prep.py --workers \\$SLURM_CPUS_ON_NODE\"",
         "or quote the whole command with single quotes: sbatch --output=wrap-%j.out --wrap 'python3 "
         "prep.py --workers $SLURM_CPUS_ON_NODE'"]),
}


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_the_first_cause_whole(kb, name):
    with open(os.path.join(CASES, name + ".txt"), encoding="utf-8") as fh:
        f = explain.explain_text(fh.read(), kb)["findings"][0]
    eid, text, fix = ANSWERS[name]
    assert (f["id"], f["causes"][0]["text"], f["causes"][0]["fix"]) == (eid, text, fix)


def test_hostlists_and_node_options():
    from gpudoctor.explain.slurmscript import _hosts, _node_lists

    assert _hosts("x,n[1-2]") == ["x", "n1", "n2"] and _hosts("n[08-10]") == ["n08", "n09", "n10"]
    assert _hosts("a" * 399 + "bc") == ["a" * 399 + "b"]  # 400 characters read
    assert len(_hosts("n[1-300]")) == 256 and _hosts("n[1-300]")[-1] == "n256"  # 256 hosts at most
    assert _node_lists(["-w"]) == (set(), set()) and _node_lists(["-w", "a1"]) == ({"a1"}, set())
    assert _node_lists(["-wa1", "-xb[1-2]"]) == ({"a1"}, {"b1", "b2"}) and _node_lists(["-wa"]) == ({"a"}, set())
    assert _node_lists(["-w-foo"]) == (set(), set())  # not a glued value
    assert _node_lists(["--nodelist=a[1-2]", "--exclude", "a2"]) == ({"a1", "a2"}, {"a2"})


@pytest.mark.parametrize("name, confirm, evidence", [
    ("wrap_double_quotes", "scontrol show job <JOBID> | grep -i command   (the command as Slurm got it)",
     [(1, '$ sbatch --output=wrap-%j.out --wrap "python3 prep.py --workers $SLURM_CPUS_ON_NODE"')]),
    ("nodelist_exclude_overlap", "grep -nE -- '--nodelist|--exclude|-w |-x ' <script>; sinfo -N   (the node names)",
     [(4, "#SBATCH --nodelist=s19"), (5, "#SBATCH --exclude=s19")]),
    ("empty_int", "grep -n '^#SBATCH' <script>   (no --cpus-per-task there)",
     [(5, "export NUM_WORKERS=$SLURM_CPUS_PER_TASK")]),
])
def test_the_causes_other_fields(kb, name, confirm, evidence):
    with open(os.path.join(CASES, name + ".txt"), encoding="utf-8") as fh:
        c = explain.explain_text(fh.read(), kb)["findings"][0]["causes"][0]
    assert (c["checks"], c["confirm"], c["exports"], c["static_rank"], c["computed"]) == ([], [confirm], {}, 0, None)
    assert [(e["line"], e["text"]) for e in c["evidence"]] == evidence


def test_a_script_after_wrap_gets_the_users_line_both_ways(kb):
    # sbatch's 'Script arguments not permitted with --wrap option' (src/sbatch/opt.c), the user's line shown
    with open(os.path.join(CASES, "wrap_and_script.txt"), encoding="utf-8") as fh:
        f = explain.explain_text(fh.read(), kb)["findings"][0]
    c = f["causes"][0]
    assert c["text"] == ("sbatch --wrap takes the whole command as its one argument; words after it are taken as a "
                         "script's arguments.")
    assert c["fix"][0] == ("submit one of the two, not both: the script with its arguments, sbatch --job-name=sw "
                           "sweep.sh 0.1; or the wrapped command alone, sbatch --job-name=sw --wrap 'python3 train.py "
                           "--lr 0.1' (--wrap makes the batch script from its string, so sbatch refuses a script file "
                           "after it)")
    assert [(e["line"], e["text"]) for e in c["evidence"]] == [
        (2, "sbatch: error: Script arguments not permitted with --wrap option"),
        (1, '$ sbatch --job-name=sw --wrap "python3 train.py --lr 0.1" sweep.sh 0.1')]


def test_an_overlap_of_many_nodes_from_hostlists(kb):
    # made from nodelist_exclude_overlap.txt: hostlists, a comment after a directive, -x as a short option
    text = ("$ cat pin.sh\n#!/bin/bash\n#SBATCH --job-name=pin\n#SBATCH --nodelist=s[1-6]   # the fast ones\n"
            "#SBATCH --exclude=s[1-5],t1\n#SBATCH -x s6\n#SBATCH --output=pin-%j.out\nhostname\n$ sbatch pin.sh\n"
            "sbatch: error: Batch job submission failed: Invalid node name specified\n")
    c = explain.explain_text(text, kb)["findings"][0]["causes"][0]
    assert c["text"].startswith("The job's required and excluded node lists overlap: s1, s2, s3, s4 ... is in "
                                "--nodelist (-w) and in --exclude (-x).")
    assert c["fix"] == ["drop one of the two for s1: remove it from --exclude (-x), or remove it from --nodelist (-w)"]
    assert [(e["line"], e["text"]) for e in c["evidence"]] == [(4, "#SBATCH --nodelist=s[1-6]   # the fast ones"),
                                                               (5, "#SBATCH --exclude=s[1-5],t1")]


# ------------------------------------------------------------ round 15: _overlap's survivors at a1f6202, called

class _H:
    def __init__(self, line, text):
        self.line, self.text = line, text


class _Sc:
    def __init__(self, nodes=(), cmds=()):
        self.matches = {"_struct_sb_nodes": [_H(i + 1, t) for i, t in enumerate(nodes)],
                        "_struct_sb_cmd": [_H(20 + i, t) for i, t in enumerate(cmds)]}


REFUSED = "sbatch: error: Batch job submission failed: Invalid node name specified"


def _overlap(nodes=(), cmds=(), matches=(REFUSED,), evidence=(), causes=1):
    from gpudoctor.explain import slurmscript

    f = {"matches": [{"text": t} for t in matches],
         "causes": [{"text": "c%d" % i, "evidence": [{"text": t} for t in (evidence if i == 0 else ())]}
                    for i in range(causes)]}
    slurmscript._overlap(_Sc(nodes, cmds), f)
    return f["causes"][0] if f["causes"][0]["text"].startswith("The job's") else None


def test_round15_overlap_reads_the_refusal_from_the_matches_or_the_first_cause():
    nodes = ["#SBATCH --nodelist=s19", "#SBATCH -x s19"]
    assert _overlap(nodes)["fix"] == ["drop one of the two for s19: remove it from --exclude (-x), or remove it from "
                                      "--nodelist (-w)"]
    assert _overlap(nodes, matches=(), evidence=(REFUSED,), causes=2) is not None  # the first cause's evidence
    assert _overlap(nodes, matches=("sbatch: error: x",)) is None
    assert _overlap(["#SBATCH --nodelist=s19", "#SBATCH -x s20"]) is None


def test_round15_overlap_command_lines_prefixes_comments_and_bounds():
    # the sbatch line itself (the prompt cut), a grep -n paste of the script, a comment after a directive
    assert _overlap(cmds=["$ sbatch -w s19 -x s19 job.sh"]) is not None
    assert _overlap(["job.sh:3:#SBATCH --nodelist=s19", "job.sh:4:#SBATCH --exclude=s19"]) is not None
    assert _overlap(["#SBATCH --nodelist=s19,s20", "#SBATCH --exclude=s21  # was -x s19 before"]) is None
    # an unbalanced quote on one line: that line is skipped, the next ones read
    assert _overlap(["#SBATCH --comment='x", "#SBATCH --nodelist=s19", "#SBATCH -x s19"]) is not None
    # 100 words of a line at most
    assert _overlap(["#SBATCH --nodelist=s19 " + "--hint=x " * 97 + "-x s19"]) is not None
    assert _overlap(["#SBATCH --nodelist=s19 " + "--hint=x " * 98 + "-x s19"]) is None
    # four nodes shown, ' ...' only past four; the evidence's text cut at 300 characters
    four = _overlap(["#SBATCH -w s[1-4]", "#SBATCH -x s[1-4]"])["text"]
    assert "overlap: s1, s2, s3, s4 is in" in four
    five = _overlap(["#SBATCH -w s[1-5]", "#SBATCH -x s[1-5]"])["text"]
    assert "overlap: s1, s2, s3, s4 ... is in" in five
    long = "#SBATCH -w s19 -x s19 --comment=" + "c" * 400
    assert _overlap([long])["evidence"] == [{"line": 1, "text": long[:300]}]
