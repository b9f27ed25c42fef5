"""launch29: the node count of a batch job that asks `-n N --ntasks-per-node T` and no -N, against the real Slurm 22.05
(the session's 4-node `multislurm` fixture, tests/slurmcluster.py: 4 nodes of 2 CPUs). ViniciusMikuni/H1Unfold's
scripts/submit.sh (https://github.com/ViniciusMikuni/H1Unfold/blob/fc67148ffe6a34b1f55b6217dcf402a4e98857ca/scripts/submit.sh,
round 10's fix part) asks `#SBATCH -n 64` and `#SBATCH --ntasks-per-node 4`: the plan said "nodes ?" and its srun
line nnodes unknown. sbatch(1) --ntasks-per-node: with --ntasks it is a maximum per node; Slurm allocates the fewest
nodes that hold the tasks, ceil(N/T), as for srun (tests/test_launch27_slurm.py)."""

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
