"""`gpudoctor plan`: a node rank that is the same on every node is a finding only where the
launcher reads it (gpudoctor/launch/script.py _findings, Plan.machine_rank).

torch/distributed/run.py (pytorch/pytorch 010929fd) config_from_args passes --node-rank to the
rendezvous only for the static backend (rdzv_configs["rank"] = args.node_rank); c10d and etcd
rank the agents as they join (elastic/rendezvous/dynamic_rendezvous.py). accelerate hands
--machine_rank to torchrun as --node_rank (utils/launch.py prepare_multi_gpu_env), or to
DeepSpeed's runner only with the nossh launcher (prepare_deepspeed_cmd_env). The same rule in
torchx: "node_rank is only used when rdzv_backend is 'static'" (meta-pytorch/torchx#761)."""

import os

import pytest

from conftest import FIXTURES
from gpudoctor.launch import build_plan
from gpudoctor.launch.script import read_script

HEAD = ("#!/bin/bash\n#SBATCH -N 2\n#SBATCH --ntasks-per-node=1\n"
        "M=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)\n")
CLAIMS = "every node claims rank 0"
JOIN = "rendezvous ranks the nodes as they join"

# the launch line under a 2-node allocation, the finding it must give (None: none), a note it must give
CASES = [
    # $SLURM_NODEID expanded once by the batch shell: 0 on every node
    ("srun torchrun --nnodes 2 --nproc_per_node 8 --node_rank $SLURM_NODEID --master_addr $M train.py", CLAIMS, None),
    ("srun torchrun --nnodes 2 --nproc_per_node 8 --node_rank $SLURM_NODEID --rdzv_backend static "
     "--rdzv_endpoint $M:29500 train.py", CLAIMS, None),
    ("srun torchrun --nnodes 2 --nproc_per_node 8 --node_rank $SLURM_NODEID --rdzv_backend c10d "
     "--rdzv_endpoint $M:29400 train.py", None, "the c10d " + JOIN),
    ("srun torchrun --nnodes 2 --nproc-per-node 8 --node-rank=$SLURM_NODEID --rdzv-backend=etcd "
     "--rdzv-endpoint=$M:2379 train.py", None, "the etcd " + JOIN),
    ("srun python -m torch.distributed.launch --nnodes 2 --nproc_per_node 8 --node_rank $SLURM_PROCID "
     "--rdzv_backend etcd-v2 --rdzv_endpoint $M train.py", None, "the etcd-v2 " + JOIN),
    ("PET_NODE_RANK=$SLURM_PROCID srun torchrun --nnodes 2 --nproc_per_node 8 --master_addr $M train.py", CLAIMS,
     None),
    ("srun accelerate launch --multi_gpu --num_machines 2 --num_processes 16 --machine_rank $SLURM_PROCID "
     "--main_process_ip $M --main_process_port 29500 train.py", CLAIMS, None),
    ("srun accelerate launch --multi_gpu --num_machines 2 --num_processes 16 --machine_rank $SLURM_PROCID "
     "--rdzv_backend c10d --main_process_ip $M --main_process_port 29500 train.py", None, "the c10d " + JOIN),
    ("srun deepspeed --hostfile hf --no_ssh --node_rank $SLURM_NODEID train.py", CLAIMS, None),
    # used elsewhere than the node rank: the finding stays, saying where
    ("srun torchrun --nnodes 2 --nproc_per_node 8 --node_rank $SLURM_NODEID --rdzv_backend c10d "
     "--rdzv_endpoint $M:29400 train.py --rank $SLURM_PROCID", "(0) in the training script's arguments",
     "$SLURM_NODEID is expanded once by the batch shell (0 on every node), but torchrun does not use it"),
    ("srun torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint node$SLURM_PROCID:29400 "
     "train.py", "(0) in the master address or port and the rendezvous endpoint", None),
    # a variable for the ranks: its value is redacted in the plan, and still the same everywhere
    ("MY_RANK=$SLURM_NODEID srun torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint $M:29400 "
     "train.py", "(0) in the launch line's environment", None),
    # a rank written in the script
    ("srun torchrun --nnodes 2 --nproc_per_node 8 --node_rank 0 --master_addr $M train.py",
     "the node rank is 0 on every node", None),
    ("srun torchrun --nnodes 2 --nproc_per_node 8 --node_rank 0 --rdzv_backend c10d --rdzv_endpoint $M train.py",
     None, None),
    ("srun accelerate launch --multi_gpu --num_machines 2 --num_processes 16 --machine_rank 1 --main_process_ip $M "
     "train.py", "the node rank is 1 on every node", None),
    ("srun accelerate launch --multi_gpu --num_machines 2 --num_processes 16 --machine_rank 1 --rdzv_backend c10d "
     "--main_process_ip $M train.py", None, None),
    ("srun deepspeed --hostfile hf --no_ssh --node_rank 0 train.py", "the node rank is 0 on every node", None),
    # no config and no --multi_gpu: accelerate turns multi-GPU on by itself on a node with several GPUs
    ("srun accelerate launch --num_machines 2 --num_processes 16 --machine_rank 0 --main_process_ip $M train.py",
     "the node rank is 0 on every node", None),
    ("srun accelerate launch --num_machines 2 --num_processes 16 --machine_rank 0 --rdzv_backend c10d "
     "--main_process_ip $M train.py", None, None),
    ("deepspeed --hostfile hf --node_rank 0 train.py", None, None),  # pdsh: the runner ranks the hosts
]


@pytest.mark.parametrize("line,finding,note", CASES, ids=[str(i) for i in range(len(CASES))])
def test_a_node_rank_is_judged_where_the_launcher_reads_it(tmp_path, monkeypatch, line, finding, note):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hf").write_text("node1 slots=8\nnode2 slots=8\n")
    (tmp_path / "job.sbatch").write_text(HEAD + line + "\n")
    (la,) = read_script(str(tmp_path / "job.sbatch"), [], environ={}).launches
    assert la.refused is None and la.plan.nnodes_max == 2
    if finding is None:
        assert la.findings == []
    else:
        assert len(la.findings) == 1 and finding in la.findings[0], la.findings
    if note is not None:
        assert any(note in n for n in la.plan.notes), la.plan.notes
    else:
        assert not any("expanded once" in n for n in la.plan.notes), la.plan.notes


def test_hpcfund47_is_healthy_and_its_static_twin_is_not(gpudoctor_cli, tmp_path):
    # AMDResearch/hpcfund#47: --node_rank $SLURM_PROCID (0 on every node) under c10d is correct
    path = os.path.join(FIXTURES, "launch", "scripts", "hpcfund47_c10d_procid.sbatch")
    rc, out, err = gpudoctor_cli("plan", path)
    assert rc == 0 and "finding" not in out, out
    assert "note           $SLURM_PROCID is expanded once by the batch shell (0 on every node), but torchrun " \
           "does not use it: the c10d rendezvous ranks the nodes as they join" in out
    # without --rdzv_backend c10d torchrun runs the static rendezvous, which reads the rank
    twin = tmp_path / "job.sbatch"
    twin.write_text(open(path).read().replace("    --rdzv_backend c10d \\\n", ""))
    (la,) = read_script(str(twin), [], environ={}).launches
    assert la.plan.rdzv_backend == "static" and len(la.findings) == 1 and CLAIMS in la.findings[0]


def test_torch_run_test_cases():
    # test/distributed/launcher/run_test.py test_launch_elastic_multiple_agents: every agent runs
    # the same argv (etcd, --nnodes 1:2, no node rank) and the job completes: no rank to judge
    line = ("torchrun --nnodes=1:2 --nproc_per_node=4 --rdzv_backend=etcd --rdzv_endpoint=localhost:2379 "
            "--rdzv_id=1 --monitor_interval=1 --start_method=spawn bin/test_script.py --touch_file_dir=/tmp/x")
    plan = build_plan(launch=line, environ={})
    assert (plan.rdzv_backend, plan.machine_rank, plan.nnodes_max) == ("etcd", None, 2)
    # test_launch_user_script_python_caffe2_bc: the static rendezvous with --node_rank=0 reads it
    line = ("torchrun --nnodes=1 --nproc_per_node=4 --monitor_interval=1 --start_method=spawn --master_addr=localhost "
            "--master_port=29511 --node_rank=0 bin/test_script.py --touch_file_dir=/tmp/x")
    plan = build_plan(launch=line, environ={})
    assert (plan.rdzv_backend, plan.machine_rank, plan.rdzv_endpoint) == ("static", 0, "localhost:29511")


def test_a_node_rank_under_c10d_is_a_note_on_the_launch_line():
    # pytorch/pytorch#182223: with --nnodes 1:2 under c10d, the --node_rank 0 node's worker got RANK 1
    # ("expected behavior since that is only used for static rendezvous"; #182374 adds torch's warning)
    plan = build_plan(launch="torchrun --nnodes 1:2 --nproc_per_node 1 --node_rank 1 --rdzv_backend c10d "
                             "--rdzv_endpoint node1:29400 train.py", environ={})
    assert plan.machine_rank is None
    assert "--node-rank 1 is not used by the c10d rendezvous (only static reads it): the nodes get their ranks as " \
           "they join, so this node's workers need not be ranks 1.." in plan.notes
    static = build_plan(launch="torchrun --nnodes 2 --nproc_per_node 1 --node_rank 1 --master_addr node1 train.py",
                        environ={})
    assert static.machine_rank == 1 and not any("--node-rank" in n for n in static.notes)


def test_an_accelerate_config_rdzv_backend_is_named_as_unused(tmp_path, monkeypatch):
    # accelerate 16cb6eb8 commands/launch.py: the flag's default "static" is not None, so
    # _validate_launch_command never copies the config's rdzv_backend: the config's c10d is static
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\n"
                                     "machine_rank: 0\nmain_process_ip: 10.0.0.1\nmain_process_port: 29500\n"
                                     "mixed_precision: 'no'\nnum_machines: 2\nnum_processes: 16\n"
                                     "rdzv_backend: c10d\nsame_network: true\n")
    plan = build_plan(launch="accelerate launch --config_file c.yaml train.py", environ={})
    assert (plan.rdzv_backend, plan.machine_rank) == ("static", 0)
    assert "rdzv_backend c10d in the config is not used: accelerate launch's --rdzv_backend (default static) wins " \
           "over it, so the rendezvous is static and the node rank counts; give --rdzv_backend c10d on the launch " \
           "line" in plan.notes
    flagged = build_plan(launch="accelerate launch --config_file c.yaml --rdzv_backend c10d train.py", environ={})
    assert (flagged.rdzv_backend, flagged.machine_rank) == ("c10d", None)
    assert not any("in the config is not used" in n for n in flagged.notes)


APART = "the batch shell runs this line once, on the first node of the 2-node allocation (no srun in front)"


@pytest.mark.parametrize("body,finding", [
    # sbatch(1) runs the script on the first node only: a launcher that starts its own node's processes
    # must be started on every node by srun; $SLURM_NODEID there is the batch shell's own 0, no rank claim
    ("torchrun --nnodes 2 --nproc_per_node 8 --node_rank $SLURM_NODEID --master_addr $M train.py", APART),
    ("torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint $M:29400 train.py", APART),
    ("torchrun --nnodes 2 --nproc_per_node 8 --node_rank 0 --master_addr $M train.py", APART),
    ("accelerate launch --multi_gpu --num_machines 2 --num_processes 16 --machine_rank 0 --main_process_ip $M "
     "train.py", APART),
    ("torchrun --nnodes 1:2 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint $M:29400 train.py", None),
    ("deepspeed --hostfile hf train.py", None),  # DeepSpeed's pdsh runner starts the other node itself
    ("mpirun -np 16 python train.py", None),
    # the other node started by its own srun line, the first node's line run by the batch shell
    ("srun -N1 -w node2 torchrun --nnodes 2 --nproc_per_node 8 --node_rank 1 --master_addr $M train.py &\n"
     "torchrun --nnodes 2 --nproc_per_node 8 --node_rank $SLURM_NODEID --master_addr $M train.py", None),
], ids=["static-once", "c10d", "written", "accelerate", "elastic-min-1", "deepspeed-pdsh", "mpirun", "srun-N1"])
def test_a_launcher_the_batch_shell_runs_alone(tmp_path, monkeypatch, body, finding):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hf").write_text("node1 slots=8\nnode2 slots=8\n")
    (tmp_path / "job.sbatch").write_text(HEAD + body + "\n")
    launches = read_script(str(tmp_path / "job.sbatch"), [], environ={}).launches
    found = [f for la in launches for f in la.findings]
    assert all(la.refused is None for la in launches)
    assert found == ([] if finding is None else [found[0]]) and (finding is None or finding in found[0]), found
