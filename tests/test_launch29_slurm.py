"""launch29: the node count of a batch job that asks `-n N --ntasks-per-node T` and no -N, against the real Slurm 22.05
(the session's 4-node `multislurm` fixture, tests/slurmcluster.py: 4 nodes of 2 CPUs). ViniciusMikuni/H1Unfold's
scripts/submit.sh (https://github.com/ViniciusMikuni/H1Unfold/blob/fc67148ffe6a34b1f55b6217dcf402a4e98857ca/scripts/submit.sh,
round 10's fix part) asks `#SBATCH -n 64` and `#SBATCH --ntasks-per-node 4`: the plan said "nodes ?" and its srun
line nnodes unknown. sbatch(1) --ntasks-per-node: with --ntasks it is a maximum per node; Slurm allocates the fewest
nodes that hold the tasks, ceil(N/T), as for srun (tests/test_launch27_slurm.py)."""

import re

import pytest

from gpudoctor.launch.script import read_script


@pytest.fixture
def ms(multislurm, tmp_path):
    multislurm.reset()
    multislurm.cwd = str(tmp_path)
    return multislurm


@pytest.mark.parametrize("n,tpn", [(4, 2), (3, 2), (2, 2)])
def test_sbatch_ntasks_with_ntasks_per_node_gets_the_nodes_the_plan_says(ms, tmp_path, n, tpn):
    script = tmp_path / "job.sbatch"
    script.write_text("#!/bin/bash\n#SBATCH -n %d\n#SBATCH --ntasks-per-node %d\n"
                      'echo "NNODES=$SLURM_JOB_NUM_NODES"\nsrun hostname\n' % (n, tpn))
    p = ms.run("sbatch", "--wait", "-o", str(tmp_path / "out.txt"), str(script), timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "out.txt").read_text()
    nodes = int(text.split("NNODES=")[1].split()[0])
    hosts = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith(("NNODES=", "srun:"))]
    assert len(hosts) == n and len(set(hosts)) == nodes  # the step's n tasks ran on the job's nodes
    assert nodes == -(-n // tpn)
    rs = read_script(str(script), [], environ={})
    assert rs.allocation["nodes"] == nodes and rs.allocation["tasks"] == n
    (la,) = rs.launches
    assert (la.plan.nnodes_min, la.plan.nnodes_max, la.plan.world_size()) == (nodes, nodes, n)


# Slurm heterogeneous jobs (launch28's and this round's searches found no public script with a repository name; the
# shape of Slurm's own documentation, https://slurm.schedmd.com/heterogeneous_jobs.html): components split at
# `#SBATCH hetjob`; the options were read as one job's, the second -N overriding the first
HET = '''#!/bin/bash
#SBATCH -N 1 -n 2
#SBATCH hetjob
#SBATCH -N 2 --ntasks-per-node=1
echo "NNODES=$SLURM_NNODES NTASKS=$SLURM_NTASKS"
echo S0; srun --het-group=0 hostname
echo S1; srun --het-group=1 hostname
echo S2; srun hostname
echo S3; srun --het-group=0,1 hostname
'''


def test_heterogeneous_job_steps_run_in_the_components_they_name(ms, tmp_path):
    script = tmp_path / "het.sbatch"
    script.write_text(HET)
    p = ms.run("sbatch", "--wait", "-o", str(tmp_path / "out.txt"), str(script), timeout=120, cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "out.txt").read_text()
    assert "NNODES=1 NTASKS=2" in text, text  # the batch script's own counts are component 0's
    steps, cur = {}, None
    for ln in text.splitlines():
        if re.match(r"^S\d$", ln):
            cur = steps.setdefault(int(ln[1:]), [])
        elif cur is not None and ln.strip() and not ln.startswith("srun:"):
            cur.append(ln.strip())
    real = [(len(set(steps[k])), len(steps[k])) for k in range(4)]  # (nodes, tasks) of each step
    assert real == [(1, 2), (2, 2), (1, 2), (3, 4)], steps
    rs = read_script(str(script), [], environ={})
    assert [(la.plan.nnodes_max, la.plan.world_size()) for la in rs.launches] == real
    assert rs.allocation["nodes"] == 1 and rs.allocation["het_size"] == 2
