"""explain reads the launch lines and launcher configs pasted beside an error (gpudoctor/explain/
launchpaste.py, issue 18): plan's readers name what cannot work, ranked with the error.

Texts: public issue threads (cited at each test; where a test changes one value of the thread's
text to make the fault, it says so), and accelerate's own config files as huggingface/accelerate
ships them at commit 16cb6eb8 (https://github.com/huggingface/accelerate/tree/16cb6eb8/...),
which must give no finding. None comes from bench/data/explain_heldout_*."""

import json
import os

import pytest

from gpudoctor.explain import explain_text, load_knowledge
from gpudoctor.explain import launchpaste

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def kb():
    return load_knowledge()


def ids(res):
    return [f["id"] for f in res["findings"]]


def launch(res):
    return [f for f in res["findings"] if f.get("from_launch")]


# huggingface/accelerate#2818 (`accelerate env`, two single-GPU machines): num_processes is the
# total over all machines, so 1 over 2 machines starts none per machine
ACC_2818 = """- `Accelerate` default config:
        - compute_environment: LOCAL_MACHINE
        - distributed_type: MULTI_GPU
        - mixed_precision: fp16
        - use_cpu: False
        - debug: False
        - num_processes: 1
        - machine_rank: 0
        - num_machines: 2
        - gpu_ids: all
        - main_process_ip: <IP>
        - main_process_port: 6000
        - rdzv_backend: c10d
        - same_network: False
"""


def test_accelerate_env_num_processes_total(kb):
    res = explain_text(ACC_2818, kb)
    assert res["verdict"] == "root_cause" and res["root"] == "launcher.accelerate_processes"
    f = res["findings"][0]
    assert "not a multiple of num_machines 2" in f["causes"][0]["text"]
    assert f["causes"][0]["evidence"][0]["text"].strip().startswith("- num_processes: 1")
    assert "num_machines x GPUs per machine" in f["causes"][0]["fix"][0]


# huggingface/accelerate#2362: the main node's and the other node's config (line numbers as pasted)
ACC_2362 = """# accelerate_config_1.yaml
  1 compute_environment: LOCAL_MACHINE
  2 debug: false
  3 distributed_type: MULTI_GPU
  4 downcast_bf16: 'no'
  5 gpu_ids: all
  6 machine_rank: %d
  7 main_process_ip: 100.82.170.1
  8 main_process_port: 10080
  9 main_training_function: main
 10 mixed_precision: 'no'
 11 num_machines: 2
 12 num_processes: 2
 13 rdzv_backend: static
 14 same_network: true

# accelerate_config_2.yaml
  1 compute_environment: LOCAL_MACHINE
  2 debug: false
  3 distributed_type: MULTI_GPU
  4 downcast_bf16: 'no'
  5 gpu_ids: all
  6 machine_rank: %d
  7 main_process_ip: 100.82.170.1
  8 main_process_port: 10080
  9 main_training_function: main
 10 mixed_precision: 'no'
 11 num_machines: 2
 12 num_processes: 2
 13 rdzv_backend: static
 14 same_network: true
"""


def test_two_configs_one_rank_each_is_healthy_and_the_same_rank_is_not(kb):
    ok = explain_text(ACC_2362 % (0, 1), kb)
    assert ok["verdict"] == "no_error" and not launch(ok)
    # the maintainer's diagnosis in that thread ("Both nodes are set as machine_rank==0"): the second
    # config with machine_rank 0
    bad = explain_text(ACC_2362 % (0, 0), kb)
    assert bad["root"] == "launcher.same_rank"
    f = bad["findings"][0]
    assert [e["line"] for e in f["causes"][0]["evidence"]] == [7, 23]
    assert "machine_rank 0" in f["causes"][0]["text"]


# pytorch/pytorch#81313: the two nodes' lines, ranks 0 and 1: healthy
PT_81313 = """when i run the shell on two node,the program hanging
```
torchrun --nproc_per_node=2 --nnodes=2 --node_rank=0 --master_addr='10.110.158.1' --master_port=3456 main.py
torchrun --nproc_per_node=2 --nnodes=2 --node_rank=1 --master_addr='10.110.158.1' --master_port=3456 main.py
```
"""

# AMDResearch/hpcfund#47: an sbatch file whose srun starts torchrun on each node (c10d): healthy
HPC_47 = """#!/bin/bash
#SBATCH -N 2
#SBATCH -n 2
export NUM_NODES=${SLURM_NNODES}
export GPUS_PER_NODE=4
export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
export MASTER_PORT=29500
srun torchrun \\
    --nnodes      $NUM_NODES \\
    --node_rank   $SLURM_PROCID \\
    --nproc_per_node $GPUS_PER_NODE \\
    --rdzv_backend c10d \\
    --rdzv_endpoint "$MASTER_ADDR:$MASTER_PORT" \\
    --rdzv_id      "$SLURM_JOB_ID" \\
    train.py \\
        --num_nodes $NUM_NODES
"""


@pytest.mark.parametrize("text", [PT_81313, HPC_47], ids=["pytorch-81313", "hpcfund-47"])
def test_correct_multi_node_lines_give_no_finding(kb, text):
    res = explain_text(text, kb)
    assert not launch(res), [f["causes"][0]["text"] for f in launch(res)]
    # pytorch-81313's text says the program hangs: explain's hang triage answers that, hedged (hang.py)
    assert res["verdict"] == "no_error" or (res["root"], res["findings"][0]["confidence"]) == ("nccl.hang", "structural")


def test_nnodes_2_with_a_loopback_master(kb):
    # pytorch/pytorch#25767's line (torchrun on two p4d nodes) with --master_addr localhost (the fault
    # issue 18 names: "--nnodes 2 with a --master_addr of localhost")
    text = ("(testenv) [user@gpu-st-p4d-24xlarge-20 examples]$ torchrun --nproc_per_node=6 --nnodes=2 --node_rank=0 "
            "--master_addr=localhost --master_port=12512 nlp_example.py\n")
    res = explain_text(text, kb)
    assert res["root"] == "launcher.loopback_master"
    assert "localhost on a 2-node plan" in res["findings"][0]["causes"][0]["text"]
    # one pasted line is typed on one node: --node_rank=0 there is no finding by itself
    assert "launcher.same_rank" not in ids(res)
    # and beside the timeout it causes (the message torch's TCPStore client prints), it is the root
    hung = explain_text(text + "[E socket.cpp:860] [c10d] The client socket has timed out after 1800s while trying "
                        "to connect to (localhost, 12512).\n", kb)
    assert hung["root"] == "launcher.loopback_master" and hung["findings"][0]["explains_root"]
    assert hung["findings"][1]["id"].startswith("rendezvous.") and hung["findings"][1]["role"] == "related"
    healthy = explain_text(text.replace("localhost", "gpu-st-p4d-24xlarge-20"), kb)
    assert healthy["verdict"] == "no_error" and not launch(healthy)


def test_a_launch_finding_goes_first_only_when_it_explains_the_error(kb):
    # the allocation gives 4 GPUs a node and torchrun starts 8 (hpcfund#47's script with --gres and 8)
    lines = HPC_47.replace("#SBATCH -n 2\n", "#SBATCH -n 2\n#SBATCH --gres=gpu:4\n").replace(
        "$GPUS_PER_NODE", "8")
    odd = lines + "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.\n"
    # (the store's timeout is explained by a rank claim, not by the GPU count: the launch finding follows)
    res = explain_text(odd, kb)
    assert res["findings"][0]["id"].startswith("rendezvous.") and "launcher.nproc_gpus" in ids(res)
    # invalid device ordinal: its own entry names the process count first; the launch line follows it
    res = explain_text(lines + "RuntimeError: CUDA error: invalid device ordinal\n", kb)
    assert ids(res)[:2] == ["cuda.invalid_device_ordinal", "launcher.nproc_gpus"]
    assert res["findings"][1]["explains_root"] and res["findings"][1]["role"] == "related"
    # a specific error it does not explain keeps its place as the root
    other = lines + "ModuleNotFoundError: No module named 'flash_attn'\n"
    res = explain_text(other, kb)
    assert res["findings"][0]["id"] != "launcher.nproc_gpus"
    f = next(f for f in res["findings"] if f["id"] == "launcher.nproc_gpus")
    assert f["role"] == "related" and "8 processes per node but the allocation gives 4 GPUs" in f["causes"][0]["text"]


# deepspeedai/DeepSpeed#4907: the hostfile and the launch line (two nodes, two GPUs each)
DS_4907 = """my hostfile:
```bash
# 192.168.3.100 & 192.168.3.101 are LAN IP address
192.168.3.100 slots=2
192.168.3.101 slots=2
```
then I ran the command:
```bash
deepspeed --num_gpus 2 --num_nodes 2 --master_addr 192.168.3.100 --hostfile hostfile cifar10_deepspeed.py --deepspeed_config ds_config.json
```
"""
# deepspeedai/Megatron-DeepSpeed#126: what the other node printed (its title), without pdsh's own line
MDS_126 = ("172.16.220.18: bash: line 0: cd: /data/asc23/src_zero3: No such file or directory\n"
           "172.16.220.18: bash: /home/lxw/anaconda3/envs/sys_py37/bin/python: No such file or directory\n")


def test_deepspeed_pdsh_run_names_the_remote_environment(kb):
    res = explain_text(DS_4907 + MDS_126, kb)
    assert res["root"] == "deepspeed.remote_env"
    f = res["findings"][0]
    assert f.get("from_launch") and "through pdsh (hostfile hostfile" in f["causes"][0]["text"]
    assert ".deepspeed_env" in f["causes"][0]["fix"][0]
    # the launch alone (DeepSpeed#4907's own error was ssh's) is no remote-environment finding
    alone = explain_text(DS_4907, kb)
    assert "deepspeed.remote_env" not in ids(alone) and not launch(alone)


def test_accelerate_num_processes_1_on_a_two_gpu_node(kb):
    # huggingface/accelerate#77's config (JSON, MULTI_GPU, num_processes 1); the node: the H200 x2 facts
    # (accelerate PR #1746 made MULTI_GPU with one process on one machine an error of `accelerate config`)
    from gpudoctor.explain.fixes import load_facts

    text = """{
  "compute_environment": "LOCAL_MACHINE",
  "distributed_type": "MULTI_GPU",
  "fp16": false,
  "machine_rank": 0,
  "main_process_ip": null,
  "main_process_port": 20655,
  "main_training_function": "main",
  "num_machines": 1,
  "num_processes": 1
}
"""
    facts = load_facts(os.path.join(ROOT, "fixtures", "nodes", "h200x2-ubuntu2404-torch211.json"))
    res = explain_text(text, kb, facts=facts)
    assert res["root"] == "launcher.accelerate_processes"
    assert "one GPU is used of the 2 (the facts of" in res["findings"][0]["causes"][0]["text"]


MULTI_CPU = """compute_environment: LOCAL_MACHINE
distributed_type: MULTI_CPU
downcast_bf16: 'no'
machine_rank: 0
main_process_ip: %s
main_process_port: 29500
main_training_function: main
mixed_precision: bf16
mpirun_config:
  mpirun_hostfile: /home/user/hostfile
num_machines: 4
num_processes: 16
rdzv_backend: static
same_network: true
tpu_env: []
tpu_use_cluster: false
tpu_use_sudo: false
use_cpu: true
"""

# accelerate's own config files (huggingface/accelerate @ 16cb6eb8): none is a finding
ACCELERATE_SHIPPED = {
    # examples/config_yaml_templates/multi_node.yaml
    "multi_node": """distributed_type: MULTI_GPU
# We need to specify the current machine's rank
machine_rank: 0
# We then need to specify the IP address and port of the main process
main_process_ip: '1234'
main_process_port: 9999
# We need to specify the number of machines
num_machines: 2
# We need to specify the *total* number of processes
num_processes: 8
# And then we need to specify how rdvz comms will be handled
rdzv_backend: static # or c10d
# If the compute nodes are on the same network (cloud will more than likely be false)
same_network: false
""",
    # examples/config_yaml_templates/multi_gpu.yaml
    "multi_gpu": 'distributed_type: "MULTI_GPU"\nmixed_precision: "bf16"\nnum_processes: 2',
    # tests/test_configs/latest.yaml
    "latest": """compute_environment: LOCAL_MACHINE
deepspeed_config: {}
distributed_type: 'NO'
downcast_bf16: 'no'
fsdp_config: {}
gpu_ids: all
machine_rank: 0
main_process_ip: null
main_process_port: null
main_training_function: main
megatron_lm_config: {}
mixed_precision: 'no'
num_machines: 1
num_processes: 1
rdzv_backend: static
same_network: true
use_cpu: false
""",
    # docs/source/usage_guides/intel_cpu.md (the multi-CPU, four-machine config)
    "docs_intel_cpu": MULTI_CPU % "36.112.23.24",
    # docs/source/basic_tutorials/launch.md (a config block)
    "docs_launch": """compute_environment: LOCAL_MACHINE
deepspeed_config: {}
distributed_type: MULTI_GPU
fsdp_config: {}
machine_rank: 0
main_process_ip: null
main_process_port: null
main_training_function: main
mixed_precision: fp16
num_machines: 1
num_processes: 2
use_cpu: false
""",
}


@pytest.mark.parametrize("name", sorted(ACCELERATE_SHIPPED))
def test_accelerate_shipped_configs_give_no_finding(kb, name):
    text = ACCELERATE_SHIPPED[name] + "\n$ accelerate launch --config_file %s.yaml train.py\n" % name
    res = explain_text(text, kb)
    assert not launch(res), [f["causes"][0]["text"] for f in launch(res)]
    assert res["verdict"] == "no_error"


def test_files_the_paste_names_are_never_opened_here(kb, tmp_path):
    secret = tmp_path / "hostfile"
    secret.write_text("this-host-is-secret slots=8\nother-secret-host slots=8\n")
    for line in ("deepspeed --hostfile %s --num_gpus 8 train.py\n" % secret,
                 "distributed_type: DEEPSPEED\nnum_machines: 2\nnum_processes: 16\nmachine_rank: 0\n"
                 "main_process_ip: 10.0.0.1\ndeepspeed_hostfile: %s\n"
                 "deepspeed_multinode_launcher: pdsh\n$ accelerate launch train.py\n" % secret,
                 "accelerate launch --config_file %s train.py\n" % secret,
                 "mpirun -np 16 --hostfile %s python train.py\n" % secret):
        res = explain_text(line, kb)
        assert "secret" not in json.dumps(res).replace(str(tmp_path), ""), line
    assert launchpaste.MAX_LAUNCHES <= 16


def test_many_launch_lines_are_bounded(kb):
    import io

    from gpudoctor.explain.scan import scan_stream

    text = "".join("torchrun --nnodes 2 --nproc_per_node 8 --master_addr localhost --master_port %d t.py\n"
                   % (20000 + i) for i in range(300))
    scan = scan_stream(io.BytesIO(text.encode()), kb)
    assert len(scan.paste.launches) == launchpaste.MAX_LAUNCHES  # the rest are not kept, nor planned
    assert scan.paste.tries == 300
    res = explain_text(text, kb)
    assert res["root"] == "launcher.loopback_master"


def test_command_of_takes_the_command_not_a_log_line_that_names_a_launcher():
    assert launchpaste.command_of("user@gpu1:~/x$ NCCL_DEBUG=INFO torchrun --nnodes 2 t.py") == \
        "NCCL_DEBUG=INFO torchrun --nnodes 2 t.py"
    assert launchpaste.command_of("+ srun -N 2 torchrun --nnodes 2 t.py") == "srun -N 2 torchrun --nnodes 2 t.py"
    # huggingface/accelerate#412: "then `accelerate launch ./main.py`"
    assert launchpaste.command_of("then `accelerate launch ./main.py`") == "accelerate launch ./main.py"
    assert launchpaste.command_of("[INFO] Using deepspeed launcher for the job") is None
    assert launchpaste.command_of("deepspeed: command not found") is None


def test_a_loader_test_config_with_a_loopback_master_on_four_machines_is_a_finding(kb):
    # tests/test_configs/0_28_0_mpi.yaml tests accelerate's config loader: the same config as the
    # intel_cpu guide's with main_process_ip 127.0.0.1, which the three other machines cannot reach
    res = explain_text(MULTI_CPU % "127.0.0.1", kb)
    assert res["root"] == "launcher.loopback_master"
    assert "127.0.0.1 with num_machines 4" in res["findings"][0]["causes"][0]["text"]


def _smi():
    # nvidia-smi on the 2x H200 machine of this project's device runs (fixtures/probe/h200x2-machine.txt)
    with open(os.path.join(ROOT, "fixtures", "probe", "h200x2-machine.txt")) as f:
        lines = f.read().split("\n")
    start = next(i for i, l in enumerate(lines) if "NVIDIA-SMI" in l) - 2
    return "\n".join(lines[max(start, 0):start + 30]) + "\n"


def test_the_gpu_count_from_nvidia_smi_in_the_paste(kb):
    smi = _smi()
    res = explain_text("$ nvidia-smi\n" + smi + "$ torchrun --standalone --nproc_per_node 4 train.py\n", kb)
    assert res["root"] == "launcher.nproc_gpus"
    assert "4 processes per node but a node has 2 GPUs (nvidia-smi's table" in res["findings"][0]["causes"][0]["text"]
    ok = explain_text("$ nvidia-smi\n" + smi + "$ torchrun --standalone --nproc_per_node 2 train.py\n", kb)
    assert ok["verdict"] == "no_error" and not launch(ok)


def test_a_pasted_deepspeed_env_without_path(kb):
    # DeepSpeed#4907's run; the .deepspeed_env as DeepSpeed's docs show it (NCCL_IB_DISABLE, NCCL_SOCKET_IFNAME);
    # the other node's shell does not find ninja (deepspeedai/DeepSpeed#1687)
    text = (DS_4907 + "$ cat ~/.deepspeed_env\nNCCL_IB_DISABLE=1\nNCCL_SOCKET_IFNAME=eth0\n"
            "192.168.3.101: /bin/sh: 1: ninja: command not found\n")
    res = explain_text(text, kb)
    f = next(f for f in res["findings"] if f["id"] == "deepspeed.remote_env")
    assert f.get("from_launch") and "sets NCCL_IB_DISABLE, NCCL_SOCKET_IFNAME, not PATH or LD_LIBRARY_PATH" in \
        f["causes"][0]["text"]


def test_one_config_per_node_log_read_together(kb, tmp_path):
    # accelerate#2362's config (machine_rank 0) in each node's log, the first with the store's timeout
    from gpudoctor.explain import explain_inputs

    cfg = "\n".join(l[4:] for l in (ACC_2362 % (0, 0)).split("\n")[1:15]) + "\n"
    a, b = tmp_path / "node0.log", tmp_path / "node1.log"
    a.write_text(cfg + "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. "
                       "1/2 clients joined.\n")
    b.write_text(cfg)
    res = explain_inputs([(str(p), lambda p=p: open(str(p), "rb")) for p in (a, b)], kb)
    assert res["root"] == "launcher.same_rank" and res["findings"][0]["explains_root"]
    ev = res["findings"][0]["causes"][0]["evidence"]
    assert [(os.path.basename(e["file"]), e["line"]) for e in ev] == [("node0.log", 6), ("node1.log", 6)]
    assert "waits for rank 1, which no machine takes" in res["findings"][0]["causes"][0]["text"]
