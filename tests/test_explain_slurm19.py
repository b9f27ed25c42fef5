"""Slurm's quiet failures (issue 18, slurm19): what a job does wrong without a Slurm error, answered with the
concrete change.

- Every variable of the OUTPUT ENVIRONMENT VARIABLES sections of sbatch(1), srun(1), salloc(1)
  (tools/gen_slurm_env.py -> generated/slurm_env.json) with the option that makes Slurm set it: a script that
  reads one the job lacks ('SLURM_CPUS_PER_TASK: unbound variable' under `set -u`, Python's KeyError) is told to
  pass that option or to read it with a default (${VAR:-default}); an srun-only variable is read inside the step.

The texts in fixtures/explain/slurm19/ were made here by running Debian's Slurm 22.05.8 (slurmctld + slurmd with
auth/none, on this project's test machine): the scripts as shown, sbatch's and the jobs' own output as the
programs printed it.
"""

import os
import sys

import pytest

from gpudoctor import explain

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(REPO, "fixtures", "explain", "slurm19")
sys.path.insert(0, os.path.join(REPO, "tools"))


def _text(name):
    with open(os.path.join(FIX, name + ".txt")) as f:
        return f.read()


def _root(kb, name):
    res = explain.explain_text(_text(name), kb)
    assert res["findings"], (name, res["verdict"])
    f = res["findings"][0]
    assert f["role"] == "root"
    return f


def _fixes(f):
    return "\n".join(x for c in f["causes"] for x in c["fix"])


def test_gen_slurm_env_regenerates_the_committed_table_from_its_slice(tmp_path):
    import gen_slurm_env
    import knowgen

    got = knowgen.regenerated(gen_slurm_env.main, os.path.join(REPO, "tools", "data", "slurm_env_slice.txt"),
                              str(tmp_path / "slurm_env.json"))
    full = knowgen.committed("slurm_env")
    assert got["header"]["version"] == full["header"]["version"] and "(commit " in full["header"]["version"]
    assert [dict(s, **{}) for s in got["sites"]] == full["sites"]
    by = {s["name"]: s for s in full["sites"]}
    # the man pages' own words decide the kind and the option
    assert by["SLURM_CPUS_PER_TASK"]["kind"] == "option" and by["SLURM_CPUS_PER_TASK"]["options"][0] == "--cpus-per-task"
    assert by["SLURM_GPUS_PER_NODE"]["options"] == ["--gpus-per-node"]
    assert by["SLURM_MEM_PER_NODE"]["options"] == ["--mem"]
    assert by["SLURM_JOB_ID"]["kind"] == "always"
    assert by["SLURM_STEP_ID"]["kind"] == "step"
    assert by["SLURM_ARRAY_TASK_ID"]["options"] == ["--array"]
    assert len(full["sites"]) >= 90 and not full["unassigned"]


@pytest.mark.parametrize("name,var,want", [
    ("unbound_cpus_per_task", "SLURM_CPUS_PER_TASK", ["#SBATCH --cpus-per-task=", "${SLURM_CPUS_PER_TASK:-1}"]),
    ("unbound_gpus_per_node", "SLURM_GPUS_PER_NODE", ["#SBATCH --gpus-per-node=", "${SLURM_GPUS_PER_NODE:-"]),
    ("unbound_array_task_id", "SLURM_ARRAY_TASK_ID", ["#SBATCH --array=", "${SLURM_ARRAY_TASK_ID:-"]),
    ("unbound_step_id", "SLURM_STEP_ID", ["srun bash -c"]),
    ("keyerror_cpus_per_task", "SLURM_CPUS_PER_TASK", ["#SBATCH --cpus-per-task=",
                                                       "os.environ.get('SLURM_CPUS_PER_TASK', '1')"]),
])
def test_a_slurm_variable_the_job_lacks_names_the_option_that_sets_it(kb, name, var, want):
    f = _root(kb, name)
    assert f["family"] == "slurm.job_env", f["id"]
    assert var in f["causes"][0]["text"]
    fx = _fixes(f)
    for w in want:
        assert w in fx, (w, fx)


def test_an_sbatch_line_after_the_first_command_is_the_line_to_move(kb):
    # late.sh: '#SBATCH --cpus-per-task=2' below 'set -u': sbatch never read it, so the variable stayed unset
    f = _root(kb, "directive_after_command")
    first = f["causes"][0]["fix"][0]
    assert first.startswith("move line 5 '#SBATCH --cpus-per-task=2' up, above line 4 'set -u'"), first
    assert 'echo "cpus=${SLURM_CPUS_PER_TASK:-1}"' in _fixes(f)


@pytest.mark.parametrize("name,want", [
    ("directive_space", ['#SBATCH --job-name="grid search"', "#SBATCH --job-name=grid-search"]),
    ("directive_space_comment", ['#SBATCH --comment="baseline run 3"']),
    ("wrap_and_script", ["sbatch --job-name=sw sweep.sh 0.1",
                         "sbatch --job-name=sw --wrap 'python3 train.py --lr 0.1'"]),
])
def test_sbatch_refusals_of_a_script_name_the_edited_line(kb, name, want):
    f = _root(kb, name)
    assert f["family"] == "slurm.error"
    for w in want:
        assert w in f["causes"][0]["fix"][0], (w, f["causes"][0]["fix"])


def test_module_command_not_found_in_a_batch_script_is_the_modules_init(kb):
    f = _root(kb, "module_not_found")
    assert f["id"] == "slurm.module_not_initialized" and f["family"] == "slurm.job_env"
    assert "#!/bin/bash -l" in _fixes(f) and "/etc/profile.d/" in _fixes(f)


@pytest.mark.parametrize("name,want", [
    ("pending_begin_time", "scontrol update JobId=6 StartTime=now"),
    ("pending_dependency", "scontrol update JobId=8 Dependency="),
    ("pending_held_user", "scontrol release 9"),
])
def test_a_job_pending_on_its_own_condition_is_the_answer_with_its_id(kb, name, want):
    f = _root(kb, name)
    assert f["id"] == "slurm.pending_requested" and f["family"] == "slurm.pending"
    assert want in f["causes"][0]["fix"][0], f["causes"][0]["fix"]


def test_a_pending_job_the_text_shows_running_later_is_no_error(kb):
    # the same job's scontrol block later says RUNNING: it only waited for its begin time (and another job's
    # RUNNING line does not end this job's wait)
    text = _text("pending_begin_time")
    later = "$ scontrol show job 6 | grep JobState\n   JobState=RUNNING Reason=None Dependency=(null)\n"
    other = "$ scontrol -o show job 4\nJobId=4 JobName=prep JobState=RUNNING Reason=None\n"
    res = explain.explain_text(text + other, kb)
    assert res["findings"] and res["findings"][0]["id"] == "slurm.pending_requested"
    res = explain.explain_text(text + "$ scontrol show job 6\nJobId=6 JobName=bench-night\n" + later, kb)
    assert not res["findings"] and res["verdict"] == "no_error", [f["id"] for f in res["findings"]]
    assert any(n["id"] == "slurm.pending_requested" for n in res["context"])


@pytest.mark.parametrize("after", ["$ cat eval-8.out\neval\n", "$ tail -n 1 slurm-8.out\neval\n"])
def test_a_pending_job_whose_output_file_the_text_shows_ran(kb, after):
    # Slurm creates the job's output file (its name carries the job id: %j) when the job starts
    text = _text("pending_dependency")
    assert explain.explain_text(text, kb)["findings"]
    res = explain.explain_text(text + after, kb)
    assert res["verdict"] == "no_error" and not res["findings"], [f["id"] for f in res["findings"]]
    # another job's output file, or this one's that does not exist, is no sign that it ran
    res = explain.explain_text(text + "$ cat eval-7.out\neval\n", kb)
    assert res["findings"] and res["findings"][0]["id"] == "slurm.pending_requested"


def test_a_normal_pending_reason_stays_a_note(kb):
    text = ("$ squeue -u alice\n             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
            "                41     debug  train.sh    alice PD       0:00      2 (Priority)\n"
            "                40     debug  eval.sh     alice  R       5:00      1 gpu01\n")
    res = explain.explain_text(text, kb)
    assert res["verdict"] == "no_error" and not res["findings"]


@pytest.mark.parametrize("name,line", [
    ("empty_argparse", "python3 prep.py --workers ${SLURM_CPUS_PER_TASK:-1}"),
    ("empty_int", "export NUM_WORKERS=${SLURM_CPUS_PER_TASK:-1}"),
])
def test_an_empty_value_from_a_variable_no_directive_sets_names_the_option(kb, name, line):
    # argparse's 'expected one argument' / int('') after the script expanded an unset $SLURM_CPUS_PER_TASK
    f = _root(kb, name)
    c = f["causes"][0]
    assert c["text"].startswith("SLURM_CPUS_PER_TASK is empty in this job"), c["text"]
    assert "#SBATCH --cpus-per-task=" in c["fix"][0] and line in c["fix"][1]
    # with the option on an #SBATCH line (long or short form) the variable is set: no such cause
    for opt in ("--cpus-per-task=4", "-c 4"):
        text = _text(name).replace("#SBATCH --output=", "#SBATCH %s\n#SBATCH --output=" % opt, 1)
        res = explain.explain_text(text, kb)
        assert not res["findings"][0]["causes"][0]["text"].startswith("SLURM_CPUS_PER_TASK is empty"), opt


@pytest.mark.parametrize("name", ["nodelist_exclude_overlap", "nodelist_exclude_overlap_srun"])
def test_a_node_both_required_and_excluded_is_named(kb, name):
    # slurmctld answers the overlap with ESLURM_INVALID_NODE_NAME (job_mgr.c); srun's -x is a hostlist (s[18-20])
    f = _root(kb, name)
    c = f["causes"][0]
    assert "s19 is in --nodelist (-w) and in --exclude (-x)" in c["text"], c["text"]
    assert c["fix"][0].startswith("drop one of the two for s19")


def test_hostlists_are_expanded():
    from gpudoctor.explain.slurmscript import _hosts, _node_lists

    assert _hosts("gpu[01-03,07],cpu1") == ["gpu01", "gpu02", "gpu03", "gpu07", "cpu1"]
    assert _node_lists(["-w", "a1", "--exclude=a[0-2]"]) == ({"a1"}, {"a0", "a1", "a2"})


def test_the_jobs_partition_and_qos_fill_the_fix_lines(kb):
    # the squeue row's partition and scontrol's QOS= name the <PARTITION> / <QOS> of the reasons' fix lines
    head = "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
    text = (head + "               311       gpu train.sh      bob PD       0:00      1 (PartitionTimeLimit)\n"
            "$ scontrol show job 311 | grep QOS\n   Priority=1 Nice=0 Account=proj QOS=short\n")
    f = explain.explain_text(text, kb)["findings"][0]
    assert "scontrol update jobid=311 timelimit=" in _fixes(f)
    text = text.replace("(PartitionTimeLimit)", "(QOSMaxWallDurationPerJobLimit)")
    f = explain.explain_text(text, kb)["findings"][0]
    assert "sacctmgr show qos short format=name,maxwall" in _fixes(f), _fixes(f)


def test_an_empty_operand_in_the_batch_scripts_arithmetic(kb):
    # bash: '$(( $SLURM_GPUS_PER_NODE * SLURM_NNODES ))' with the variable unset -> 'operand expected'
    f = _root(kb, "empty_arith")
    assert f["id"] == "slurm.script_empty_operand" and f["family"] == "slurm.job_env"
    c = f["causes"][0]
    assert c["text"].startswith("SLURM_GPUS_PER_NODE is empty in this job")
    assert "#SBATCH --gpus-per-node=" in c["fix"][0]
    assert "WORLD=$(( ${SLURM_GPUS_PER_NODE:-<default>} * SLURM_NNODES ))" in c["fix"][1]


def test_a_slurm_variable_in_a_double_quoted_wrap_was_expanded_at_submission(kb):
    # bash expands $SLURM_CPUS_ON_NODE inside "..." on the login shell, where Slurm has not set it
    f = _root(kb, "wrap_double_quotes")
    c = f["causes"][0]
    assert c["text"].startswith("$SLURM_CPUS_ON_NODE is inside a double-quoted command")
    assert '--wrap "python3 prep.py --workers \\$SLURM_CPUS_ON_NODE"' in c["fix"][0]
    assert "--wrap 'python3 prep.py --workers $SLURM_CPUS_ON_NODE'" in c["fix"][1]


@pytest.mark.parametrize("name,want", [
    ("multiprog_missing_task", "add one for task 1, a range (0-1) or '*' for the rest"),
    ("nodelist_file_missing", "create ./hosts.txt with the node names, one per line"),
    ("nodelist_more_than_nodes", "-N 2 (--nodes=2), or list only 1 node(s) in -w"),
])
def test_srun_refusals_give_the_edit_from_their_values(kb, name, want):
    # gen_slurm_messages MSG_FIX rows whose slots take the message's own values (multi_prog.c, allocate.c, opt.c)
    f = _root(kb, name)
    assert want in f["causes"][0]["fix"][0], f["causes"][0]["fix"]


def test_other_jobs_pending_on_their_own_conditions_are_no_error(kb):
    # a squeue listing where the jobs waiting on a dependency / a begin time are not ones this text submitted
    head = "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
    text = ("$ squeue\n" + head + "               501     debug  stage2.sh    carol PD       0:00      1 (Dependency)\n"
            "               502     debug  nightly     dave PD       0:00      1 (BeginTime)\n"
            "               499     debug  train.sh    alice  R      10:00      1 gpu01\n")
    res = explain.explain_text(text, kb)
    assert res["verdict"] == "no_error" and not res["findings"], [f["id"] for f in res["findings"]]
    res = explain.explain_text("$ sbatch --begin=now+1hour stage3.sh\nSubmitted batch job 502\n" + text, kb)
    assert res["findings"] and res["findings"][0]["id"] == "slurm.pending_requested"
