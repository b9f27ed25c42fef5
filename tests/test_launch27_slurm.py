"""launch27: srun's node count from `-n N --ntasks-per-node=T` with no -N, against the real Slurm 22.05 (the session's
4-node `multislurm` fixture, tests/slurmcluster.py: 4 nodes of 2 CPUs). Deformable-DETR's tools/run_dist_slurm.sh
(https://github.com/fundamentalvision/Deformable-DETR/blob/11169a60c33333af00a4849f1808023eba96a931/tools/run_dist_slurm.sh,
lines 24-29, mmdetection's slurm_train.sh form, also InternImage's and VideoMAEv2's) runs `srun --ntasks=${GPUS}
--ntasks-per-node=${GPUS_PER_NODE} ...` with no -N: the plan said nnodes unknown. srun(1): --ntasks-per-node is then
a maximum per node; Slurm allocates the fewest nodes that hold the tasks."""

import pytest

from gpudoctor.launch import build_plan


@pytest.fixture
def ms(multislurm, tmp_path):
    multislurm.reset()
    multislurm.cwd = str(tmp_path)
    return multislurm


@pytest.mark.parametrize("n,tpn", [(4, 2), (3, 2), (2, 2), (2, 1), (1, 2)])
def test_srun_ntasks_with_ntasks_per_node_nodes_as_slurm_allocates(ms, n, tpn):
    p = ms.run("srun", "--ntasks=%d" % n, "--ntasks-per-node=%d" % tpn, "sh", "-c", 'echo "$(hostname) $SLURM_NNODES"',
               timeout=60)
    assert p.returncode == 0, p.stderr
    rows = [ln.split() for ln in p.stdout.splitlines() if ln.strip()]
    assert len(rows) == n
    hosts = {h for h, _ in rows}
    assert {int(k) for _, k in rows} == {len(hosts)}  # Slurm's own count is the hosts the tasks ran on
    plan = build_plan(launch="srun --ntasks=%d --ntasks-per-node=%d python train.py" % (n, tpn), environ={})
    assert (plan.nnodes_min, plan.nnodes_max) == (len(hosts), len(hosts))
    assert plan.world_size() == n
    per = [sum(1 for h, _ in rows if h == x) for x in hosts]
    assert plan.nproc_per_node == (per[0] if len(set(per)) == 1 else None)


def test_srun_ntasks_per_node_beyond_a_node_is_refused_by_slurm_not_spread(ms):
    # 4 tasks at most 4 a node on nodes of 2 CPUs: Slurm refuses the request; it does not spread it over more nodes
    # (so ceil(N/T) is a node count, not a lower bound, where the nodes hold T)
    p = ms.run("srun", "--ntasks=4", "--ntasks-per-node=4", "true", timeout=60)
    assert p.returncode != 0
    assert "can not be satisfied" in p.stderr or "not available" in p.stderr, p.stderr
