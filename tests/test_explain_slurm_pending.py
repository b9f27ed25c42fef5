"""squeue's REASON column for a pending job, as slurmctld writes the job's state_desc
(https://github.com/SchedMD/slurm/blob/master/src/slurmctld/job_scheduler.c: "Nodes required for job are
DOWN, DRAINED%s or reserved for jobs in higher priority partitions"; src/slurmctld/job_mgr.c: "launch
failed requeued held" after a prolog failure), in squeue's default format (JOBID PARTITION NAME USER ST
TIME NODES NODELIST(REASON))."""

import pytest

from gpudoctor import explain

HEAD = "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"


@pytest.mark.parametrize("reason,want", [
    ("(Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions)",
     "slurm.node_down"),
    ("(Nodes required for job are DOWN, DRAINED, REBOOTING or reserved for jobs in higher priority partitions)",
     "slurm.node_down"),
    ("(launch failed requeued held)", "slurm.prolog"),
])
def test_a_pending_jobs_reason_is_answered(kb, reason, want):
    res = explain.explain_text(HEAD + "                26     debug  train.sh    alice PD       0:00      2 %s\n"
                               % reason, kb)
    f = res["findings"][0]
    assert f["id"] == want and f["role"] == "root"
    if want == "slurm.node_down":
        assert any("sinfo -R" in x for c in f["causes"] for x in c["fix"])


def test_a_running_job_is_no_error(kb):
    res = explain.explain_text(HEAD + "                26     debug  train.sh    alice  R       5:02      2 gpu[01-02]\n", kb)
    assert res["verdict"] == "no_error"


def test_the_batch_scripts_shell_not_finding_the_program_is_the_jobs_environment(kb):
    # bash's '<script>: line N: <cmd>: command not found' for the script slurmstepd runs from its spool
    # directory (src/slurmd/slurmstepd/mgr.c: <batchdir>/slurm_script)
    res = explain.explain_text("Submitted batch job 19\nrunning on node07\n"
                               "/var/spool/slurmd/job00019/slurm_script: line 4: torchrun: command not found\n", kb)
    f = res["findings"][0]
    assert f["id"] == "slurm.job_env" and "--export=NONE" in f["causes"][0]["text"]
    assert "slurm_script: line 4" in f["causes"][0]["evidence"][0]["text"]


@pytest.mark.parametrize("name", ["srun-partition-down.txt", "salloc-partition-down.txt",
                                  "srun-partition-inactive.txt", "sbatch-partition-drain.txt"])
def test_an_allocation_that_only_queues_in_a_down_partition_is_the_partition(kb, name):
    # made here: Debian's slurm-wlm 22.05 (tests/slurmcluster.py, one node), `scontrol update partitionname=debug
    # state=down` (inactive, drain: refused at once with 'Required partition not available (inactive or drain)'),
    # then srun / salloc cut after 6 s (they wait forever). srun and salloc print the code of a queued
    # allocation at info level (src/api/allocate.c: info("%s", slurm_strerror(resp->error_code))), which
    # tools/gen_slurm_errors.py reads with job_mgr.c's list of the codes that leave a job queued
    import os

    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "slurm",
                           name)) as f:
        res = explain.explain_text(f.read(), kb)
    f = res["findings"][0]
    assert res["verdict"] == "root_cause" and f["id"] == "slurm.partition" and f["role"] == "root"
    assert "state=up" in " ".join(x for c in f["causes"] for x in c["fix"]) or "UP partition" in f["causes"][0]["fix"][1]
    # the same words inside another program's line are no Slurm allocation
    res = explain.explain_text("INFO: report: Partition in DOWN state (0 of 4 shards)\n", kb)
    assert not any(x["id"] == "slurm.partition" for x in res["findings"])
