"""Slurm's quiet failures (issue 18, slurm19): what a job does wrong without a Slurm error, answered with the
concrete change.

- Every variable of the OUTPUT ENVIRONMENT VARIABLES sections of sbatch(1), srun(1), salloc(1)
  (tools/gen_slurm_env.py -> generated/slurm_env.json) with the option that makes Slurm set it: a script that
  reads one the job lacks ('SLURM_CPUS_PER_TASK: unbound variable' under `set -u`, Python's KeyError) is told to
  pass that option or to read it with a default (${VAR:-default}); an srun-only variable is read inside the step.

The texts in fixtures/explain/slurm19/ were made here by running Debian's Slurm 22.05.8 (slurmctld + slurmd with
auth/none, the testbed of ../shared/reference/testbed.md): the scripts as shown, sbatch's and the jobs' own output
as the programs printed it.
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
