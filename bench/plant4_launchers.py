#!/usr/bin/env python3
"""P4: plant one mistake per launcher run (accelerate launch + config YAML, the deepspeed launcher +
DeepSpeed config JSON, torchrun rendezvous flags, mpirun if present) on a real GPU machine, keep
verbatim logs, for an independent held-out set for `gpudoctor explain` (issue 18).

Made by the planted-4 evaluator. Config files start from the ones accelerate and DeepSpeed ship
(huggingface/accelerate examples/config_yaml_templates and examples/deepspeed_config_templates at
16cb6eb8), one mistake planted in each. Self-contained: writes programs to /tmp/p4-XXXX/ and each
scenario's files to a neutral job folder /tmp/p4-XXXX/jobNN/ (no case name shows in a path), runs
the scenario under a wall-clock limit (whole process group killed at the limit), saves
stdout+stderr verbatim to <out>/<name>.log and <out>/manifest.json (command, env, config texts,
exit status, seconds, versions); logs are packed into <out>/logs.tar.gz.

Kept exactly as it ran (the record of bench/data/explain_heldout_2026-11-26p4.jsonl): its runner,
process-group kill and machine facts repeat bench/plant3_h100.py's on purpose, so that one file carries to the
GPU machine alone and the set's logs stay reproducible from this file as it was.

    OUT=/tmp/out python3 plant4_launchers.py [NAMES]
"""
import concurrent.futures, json, os, shutil, signal, socket, subprocess, sys, tarfile, tempfile, time

PY = sys.executable
T_START = time.time()
END_BY_S = float(os.environ.get("P4_END_BY_S", "270"))
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

PROGS = {
    "train.py": r'''
import torch
import torch.nn as nn
from accelerate import Accelerator


def main():
    accelerator = Accelerator()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.utils.data.TensorDataset(torch.randn(512, 64), torch.randint(0, 10, (512,)))
    loader = torch.utils.data.DataLoader(data, batch_size=16, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    model.train()
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        if step % 4 == 0:
            accelerator.print(f"step {step} loss {loss.item():.4f}")
        if step >= 8:
            break
    accelerator.wait_for_everyone()
    accelerator.print("training done")
    accelerator.end_training()


if __name__ == "__main__":
    main()
''',
    "train_fp16.py": r'''
import torch
import torch.nn as nn
from accelerate import Accelerator


def main():
    accelerator = Accelerator(mixed_precision="fp16")
    accelerator.print(f"mixed precision: {accelerator.mixed_precision}")
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.utils.data.TensorDataset(torch.randn(256, 64), torch.randint(0, 10, (256,)))
    loader = torch.utils.data.DataLoader(data, batch_size=16)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for step, (x, y) in enumerate(loader):
        with accelerator.autocast():
            loss = nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        if step % 4 == 0:
            accelerator.print(f"step {step} loss {loss.item():.4f}")
    accelerator.print("training done")


if __name__ == "__main__":
    main()
''',
    "train_lm.py": r'''
import torch
import torch.nn as nn
from accelerate import Accelerator


class Block(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab=1000, d=128, n=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.emb(ids)
        for b in self.blocks:
            x = b(x)
        return self.head(x)


def main():
    accelerator = Accelerator()
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, 1000, (128, 32))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(ids), batch_size=8)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for step, (batch,) in enumerate(loader):
        logits = model(batch[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), batch[:, 1:].reshape(-1))
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        if step % 4 == 0:
            accelerator.print(f"step {step} loss {loss.item():.4f}")
    accelerator.print("training done")


if __name__ == "__main__":
    main()
''',
    "train_nodl.py": r'''
import torch
import torch.nn as nn
from accelerate import Accelerator


def main():
    accelerator = Accelerator()
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer = accelerator.prepare(model, optimizer)
    for step in range(8):
        x = torch.randn(16, 64, device=accelerator.device)
        y = torch.randint(0, 10, (16,), device=accelerator.device)
        loss = nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
    accelerator.print("training done")


if __name__ == "__main__":
    main()
''',
    "train_ds.py": r'''
import argparse
import torch
import torch.nn as nn
import deepspeed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--steps", type=int, default=6)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    deepspeed.init_distributed()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    dtype = next(engine.module.parameters()).dtype
    for step in range(args.steps):
        x = torch.randn(engine.train_micro_batch_size_per_gpu(), 64, device=engine.device, dtype=dtype)
        y = torch.randint(0, 10, (x.size(0),), device=engine.device)
        loss = nn.functional.cross_entropy(engine(x).float(), y)
        engine.backward(loss)
        engine.step()
        if engine.global_rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    print("training done", flush=True)


if __name__ == "__main__":
    main()
''',
    "train_ddp.py": r'''
import os
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    model = DDP(nn.Linear(64, 10).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(5):
        loss = model(torch.randn(16, 64, device="cuda")).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
''',
}

# ---- config files as shipped (accelerate 16cb6eb8 examples), one mistake planted in each ----


def ds_cfg(**over):
    """A plain DeepSpeed config (no 'auto': the deepspeed launcher does not fill those)."""
    cfg = {
        "train_batch_size": 16,
        "train_micro_batch_size_per_gpu": 8,
        "gradient_accumulation_steps": 2,
        "steps_per_print": 2,
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-3, "weight_decay": 0.01, "torch_adam": True}},
        "bf16": {"enabled": True},
        "zero_optimization": {"stage": 1},
        "gradient_clipping": 1.0,
        "wall_clock_breakdown": False,
    }
    for k, v in over.items():
        if v is None:
            cfg.pop(k, None)
        else:
            cfg[k] = v
    return json.dumps(cfg, indent=4) + "\n"


ACC_MULTI_GPU = '''# Specify distributed_type as `MULTI_GPU` for DDP
distributed_type: "MULTI_GPU"
# Can be one of "no", "fp16", or "bf16" (see `transformer_engine.yaml` for `fp8`)
mixed_precision: "bf16"
# Specify the number of GPUs to use
num_processes: {n}
main_process_port: {port}
'''

ACC_LATEST = '''compute_environment: LOCAL_MACHINE
debug: false
distributed_type: {dtype}
downcast_bf16: 'no'
enable_cpu_affinity: false
gpu_ids: {gpu_ids}
machine_rank: {machine_rank}
main_process_ip: {ip}
main_process_port: {port}
main_training_function: main
mixed_precision: {mp}
num_machines: {num_machines}
num_processes: {n}
rdzv_backend: static
same_network: true
tpu_env: []
tpu_use_cluster: false
tpu_use_sudo: false
use_cpu: false
'''


def latest(**kw):
    d = dict(dtype="MULTI_GPU", gpu_ids="all", machine_rank=0, ip="null", port=0, mp="bf16", num_machines=1, n=1)
    d.update(kw)
    return ACC_LATEST.format(**d)


ACC_FSDP = '''compute_environment: LOCAL_MACHINE
debug: false
distributed_type: FSDP
downcast_bf16: 'no'
fsdp_config:
  fsdp_activation_checkpointing: false
  fsdp_auto_wrap_policy: {policy}
  fsdp_backward_prefetch: BACKWARD_PRE
  fsdp_cpu_ram_efficient_loading: true
  fsdp_forward_prefetch: false
  fsdp_offload_params: false
  fsdp_sharding_strategy: FULL_SHARD
  fsdp_state_dict_type: SHARDED_STATE_DICT
  fsdp_sync_module_states: true
  fsdp_transformer_layer_cls_to_wrap: {cls}
  fsdp_use_orig_params: true
machine_rank: 0
main_training_function: main
main_process_port: {port}
mixed_precision: 'bf16'
num_machines: 1
num_processes: 1
rdzv_backend: static
same_network: true
use_cpu: false
'''

ACC_DS = '''compute_environment: LOCAL_MACHINE
deepspeed_config:
 deepspeed_config_file: {dsfile}
 zero3_init_flag: false
{extra_ds}distributed_type: DEEPSPEED
fsdp_config: {{}}
machine_rank: 0
main_process_ip: null
main_process_port: {port}
main_training_function: main
mixed_precision: {mp}
num_machines: 1
num_processes: 1
use_cpu: false
'''

ZERO2_TEMPLATE = {
    "fp16": {"enabled": True, "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
             "hysteresis": 2, "min_loss_scale": 1},
    "optimizer": {"type": "AdamW", "params": {"lr": "auto", "weight_decay": "auto", "torch_adam": True,
                                               "adam_w_mode": True}},
    "scheduler": {"type": "WarmupDecayLR", "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto",
                                                       "warmup_num_steps": "auto", "total_num_steps": "auto"}},
    "zero_optimization": {"stage": 2, "allgather_partitions": True, "allgather_bucket_size": 2e8,
                          "overlap_comm": True, "reduce_scatter": True, "reduce_bucket_size": "auto",
                          "contiguous_gradients": True},
    "gradient_accumulation_steps": 1,
    "gradient_clipping": "auto",
    "steps_per_print": 2000,
    "train_batch_size": "auto",
    "train_micro_batch_size_per_gpu": "auto",
    "wall_clock_breakdown": False,
}
ZERO2 = json.dumps(ZERO2_TEMPLATE, indent=4) + "\n"

DUP_KEYS = '''{
    "train_batch_size": 16,
    "train_micro_batch_size_per_gpu": 8,
    "gradient_accumulation_steps": 2,
    "optimizer": {
        "type": "AdamW",
        "params": {"lr": 1e-3, "weight_decay": 0.01, "torch_adam": true}
    },
    "bf16": {"enabled": true},
    "zero_optimization": {"stage": 2, "overlap_comm": true},
    "gradient_clipping": 1.0,
    "steps_per_print": 2,
    "gradient_accumulation_steps": 4
}
'''

TRAILING_COMMA = '''{
    "train_batch_size": 16,
    "train_micro_batch_size_per_gpu": 8,
    "optimizer": {
        "type": "AdamW",
        "params": {"lr": 1e-3, "weight_decay": 0.01, "torch_adam": true},
    },
    "bf16": {"enabled": true},
    "zero_optimization": {"stage": 2}
}
'''

ACC = "accelerate launch"
DS = "deepspeed"
P = "python3"


def ds_run(port, cfg="ds_config.json", pre="", extra=""):
    return f"{pre}deepspeed --master_port {port} {extra}train_ds.py --deepspeed --deepspeed_config {cfg}"


# name: dict(cmd, files {name: text}, env, limit, group)
S = {}
def sc(name, cmd, files=None, env=None, limit=40, group="fail"):
    S[name] = dict(cmd=cmd, files=files or {}, env=env or {}, limit=limit, group=group)

# ---------------- accelerate ----------------
sc("acc_num_processes_gt_gpus", f"{ACC} --config_file default_config.yaml train.py",
   {"default_config.yaml": ACC_MULTI_GPU.format(n=2, port=29611)})
sc("acc_port_in_use",
   f"{P} -c 'import socket,time; s=socket.socket(); s.bind((\"\",29612)); s.listen(); time.sleep(60)' & sleep 2; "
   f"{ACC} --config_file default_config.yaml train.py",
   {"default_config.yaml": latest(n=2, port=29612)}, limit=30)
sc("acc_machine_rank_ge_num_machines", f"{ACC} --config_file default_config.yaml train.py",
   {"default_config.yaml": latest(machine_rank=2, num_machines=2, n=2, ip="127.0.0.1", port=29613)}, limit=30)
sc("acc_ds_file_plus_accelerate_keys", f"{ACC} --config_file default_config.yaml train.py",
   {"default_config.yaml": ACC_DS.format(dsfile="zero_stage2_config.json", port=29614, mp="fp16",
                                         extra_ds=" gradient_accumulation_steps: 4\n offload_optimizer_device: none\n zero_stage: 2\n"),
    "zero_stage2_config.json": ZERO2})
sc("acc_fsdp_wrap_cls_not_in_model", f"{ACC} --config_file fsdp_config.yaml train_lm.py",
   {"fsdp_config.yaml": ACC_FSDP.format(policy="TRANSFORMER_BASED_WRAP", cls="LlamaDecoderLayer", port=29615)})
sc("acc_fsdp_wrap_policy_invalid", f"{ACC} --config_file fsdp_config.yaml train_lm.py",
   {"fsdp_config.yaml": ACC_FSDP.format(policy="TRANSFORMER_LAYER_WRAP", cls="Block", port=29616)})
sc("acc_gpu_ids_absent", f"{ACC} --config_file default_config.yaml train.py",
   {"default_config.yaml": latest(gpu_ids="'2,3'", n=2, port=29617)})
sc("acc_multi_gpu_one_process", f"{ACC} --multi_gpu --num_processes 1 --main_process_port 29618 train.py")
sc("acc_config_unknown_key", f"{ACC} --config_file default_config.yaml train.py",
   {"default_config.yaml": latest(n=1, port=29619).replace("num_processes: 1", "num_process: 1")})
sc("acc_mixed_precision_bfloat16", f"{ACC} --config_file default_config.yaml train.py",
   {"default_config.yaml": latest(n=1, port=29620, mp="bfloat16")})
sc("acc_ds_auto_without_dataloader", f"{ACC} --config_file default_config.yaml train_nodl.py",
   {"default_config.yaml": ACC_DS.format(dsfile="zero_stage2_config.json", port=29621, mp="'no'", extra_ds=""),
    "zero_stage2_config.json": ZERO2})
sc("acc_ds_mixed_precision_conflict", f"{ACC} --config_file default_config.yaml train.py",
   {"default_config.yaml": ACC_DS.format(dsfile="zero_stage2_config.json", port=29622, mp="bf16", extra_ds=""),
    "zero_stage2_config.json": ZERO2})
sc("acc_code_fp16_config_bf16", f"{ACC} --config_file default_config.yaml train_fp16.py",
   {"default_config.yaml": latest(n=1, port=29623, mp="bf16")})
sc("acc_config_file_missing", f"{ACC} --config_file configs/accelerate_fsdp.yaml train.py")
sc("acc_num_machines_no_main_ip", f"{ACC} --config_file default_config.yaml train.py",
   {"default_config.yaml": latest(machine_rank=1, num_machines=2, n=2, ip="null", port=29624)}, limit=30)

# ---------------- deepspeed ----------------
sc("ds_batch_size_mismatch", ds_run(29631), {"ds_config.json": ds_cfg(train_batch_size=32, train_micro_batch_size_per_gpu=4, gradient_accumulation_steps=4)})
sc("ds_auto_outside_hf", ds_run(29632, "zero_stage2_config.json"), {"zero_stage2_config.json": ZERO2})
sc("ds_fused_adam_cuda_home_wrong", ds_run(29633),
   {"ds_config.json": ds_cfg(optimizer={"type": "Adam", "params": {"lr": 1e-3}})},
   env={"CUDA_HOME": "/usr/local/cuda-11.8"}, limit=60)
sc("ds_cpu_adam_no_compiler", ds_run(29634),
   {"ds_config.json": ds_cfg(optimizer={"type": "AdamW", "params": {"lr": 1e-3}},
                             zero_optimization={"stage": 2, "offload_optimizer": {"device": "cpu", "pin_memory": True}})},
   env={"CXX": "/usr/bin/g++-10", "CC": "/usr/bin/gcc-10"}, limit=60)
sc("ds_zero3_nvme_no_aio", ds_run(29635),
   {"ds_config.json": ds_cfg(zero_optimization={"stage": 3, "offload_param": {"device": "nvme", "nvme_path": "/local_nvme", "pin_memory": True}})},
   limit=60)
sc("ds_zero_stage_4", ds_run(29636), {"ds_config.json": ds_cfg(zero_optimization={"stage": 4})})
sc("ds_fp16_and_bf16", ds_run(29637), {"ds_config.json": ds_cfg(fp16={"enabled": True, "loss_scale": 0})})
sc("ds_config_duplicate_key", ds_run(29638), {"ds_config.json": DUP_KEYS})
sc("ds_config_trailing_comma", ds_run(29639), {"ds_config.json": TRAILING_COMMA})
sc("ds_config_path_typo", ds_run(29640, cfg="configs/ds_zero2.json"), {"ds_config.json": ds_cfg()})
sc("ds_include_absent_gpu", ds_run(29641, extra="--include localhost:1 "), {"ds_config.json": ds_cfg()})
sc("ds_hostfile_localhost_ssh", ds_run(29642, extra="--hostfile hostfile "),
   {"ds_config.json": ds_cfg(), "hostfile": "localhost slots=1\n"})
sc("ds_hostfile_slots_gt_gpus", ds_run(29643, extra="--hostfile hostfile --no_ssh_check "),
   {"ds_config.json": ds_cfg(), "hostfile": "localhost slots=4\n"}, limit=40)
sc("ds_num_nodes_without_hostfile", ds_run(29644, extra="--num_nodes 2 "), {"ds_config.json": ds_cfg()})

# ---------------- torchrun ----------------
sc("tr_c10d_endpoint_unreachable",
   "torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint 10.254.3.7:29400 "
   "--rdzv-id job42 --rdzv-conf timeout=15,join_timeout=20 train_ddp.py", limit=45)
sc("tr_rdzv_backend_typo",
   "torchrun --nnodes 1 --nproc-per-node 1 --rdzv-backend c10 --rdzv-endpoint localhost:29651 train_ddp.py")
sc("tr_nnodes_min_gt_max", "torchrun --nnodes 4:2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint localhost:29652 train_ddp.py")
sc("tr_rdzv_endpoint_bad_port",
   "torchrun --nnodes 1 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint localhost:29400:1 train_ddp.py")

# ---------------- mpirun (only if present) ----------------
# ---------------- run2: fixes of run1 set-ups (same names supersede run1's logs) ----------------
NO_MP = lambda text: "\n".join(l for l in text.split("\n") if not l.startswith("mixed_precision:"))
S["acc_ds_auto_without_dataloader"]["files"]["default_config.yaml"] = NO_MP(S["acc_ds_auto_without_dataloader"]["files"]["default_config.yaml"])
sc("ds_fused_adam_arch_list_9_0a", ds_run(29645), {"ds_config.json": ds_cfg(optimizer={"type": "Adam", "params": {"lr": 1e-3}})}, limit=60)
sc("ds_fused_adam_cuda_home_wrong", ds_run(29633),
   {"ds_config.json": ds_cfg(optimizer={"type": "Adam", "params": {"lr": 1e-3}})},
   env={"CUDA_HOME": "/usr/local/cuda-11.8", "TORCH_CUDA_ARCH_LIST": "9.0"}, limit=60)
sc("ds_hostfile_slots_gt_gpus", ds_run(29643, extra="--hostfile hostfile --no_ssh_check --master_addr 127.0.0.1 "),
   {"ds_config.json": ds_cfg(), "hostfile": "localhost slots=4\n"}, limit=40)
sc("tr_c10d_endpoint_unreachable",
   "torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint 10.254.3.7:29400 "
   "--rdzv-id job42 --rdzv-conf read_timeout=10,join_timeout=20 train_ddp.py", limit=50)

sc("mpi_run_as_root", "mpirun -np 2 python3 -c 'print(1)'", group="mpi")
sc("mpi_np_gt_slots", "mpirun --allow-run-as-root -np 64 hostname", group="mpi")
sc("mpi_hostfile_missing", "mpirun --allow-run-as-root --hostfile hosts.txt -np 2 hostname", group="mpi")

# ---------------- healthy ----------------
sc("healthy_accelerate_defaults", f"{ACC} --main_process_port 29661 train.py", group="healthy")
sc("healthy_accelerate_deepspeed_zero2", f"{ACC} --config_file default_config.yaml train_lm.py",
   {"default_config.yaml": ACC_DS.format(dsfile="zero_stage2_config.json", port=29662, mp="fp16", extra_ds=""),
    "zero_stage2_config.json": ZERO2}, group="healthy", limit=60)
sc("healthy_deepspeed_launcher", ds_run(29663), {"ds_config.json": ds_cfg()}, group="healthy", limit=60)
S["healthy_accelerate_deepspeed_zero2"]["files"]["default_config.yaml"] = NO_MP(S["healthy_accelerate_deepspeed_zero2"]["files"]["default_config.yaml"])
sc("healthy_ds_report", "ds_report", group="healthy")
sc("healthy_torchrun_standalone_endpoint",
   "torchrun --standalone --nnodes 1 --nproc-per-node 1 --rdzv-endpoint 10.1.2.3:29400 train_ddp.py", group="healthy")


def run_one(name, spec, d, out):
    if time.time() - T_START > END_BY_S - 20:
        return {"name": name, "cmd": spec["cmd"], "rc": "not started (time)", "seconds": 0}
    limit = int(min(spec["limit"], max(5, END_BY_S - (time.time() - T_START))))
    for fn, text in spec["files"].items():
        with open(os.path.join(d, fn), "w") as f:
            f.write(text)
    env = dict(os.environ, PYTHONUNBUFFERED="1", **spec["env"])
    t0 = time.time()
    with open(os.path.join(out, name + ".log"), "wb") as log:
        proc = subprocess.Popen(spec["cmd"], shell=True, executable="/bin/bash", cwd=d, stdout=log,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            rc = "timeout %d s" % limit
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return {"name": name, "cmd": spec["cmd"], "env": spec["env"], "files": spec["files"], "group": spec["group"],
            "cwd": d, "rc": rc, "seconds": round(time.time() - t0, 1), "limit": limit}


def sh(c):
    try:
        r = subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60)
        return (r.stdout + r.stderr).strip()
    except Exception as exc:  # noqa: BLE001
        return "unavailable: %s" % exc


def facts():
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nvidia_smi": sh("nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader"),
        "versions": sh(PY + " -c 'import sys,torch,accelerate,deepspeed,pydantic; print(sys.version.split()[0], torch.__version__, torch.version.cuda, torch.cuda.nccl.version(), accelerate.__version__, accelerate.__file__, deepspeed.__version__, deepspeed.__file__, pydantic.__version__)'"),
        "which": sh("which accelerate deepspeed ds_report torchrun mpirun nvcc gcc g++ ssh pdsh 2>&1; echo CUDA_HOME=$CUDA_HOME"),
        "mpirun": sh("mpirun --version 2>&1 | head -3"),
        "kernel": sh("uname -r"), "hostname": sh("hostname"), "nproc": sh("nproc"),
        "ip": sh("ip -br addr 2>&1"), "ulimits": sh("ulimit -a"), "user": sh("id"),
        "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_", "CUDA_", "HF_", "ACCELERATE", "PYTHONPATH", "PATH"))},
    }


def main():
    out = os.environ.get("OUT", "/tmp/out")
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    base = tempfile.mkdtemp(prefix="p4-")
    os.environ["HF_HOME"] = os.path.join(base, "hf")
    names = sys.argv[1:] or list(S)
    have_mpi = shutil.which("mpirun") is not None
    names = [n for n in names if S[n]["group"] != "mpi" or have_mpi]
    jobs = {}
    for i, n in enumerate(names):
        d = os.path.join(base, "job%02d" % i)
        os.makedirs(d)
        for fn, text in PROGS.items():
            with open(os.path.join(d, fn), "w") as f:
                f.write(text)
        jobs[n] = d
    info = facts()
    print(json.dumps(info, indent=1), flush=True)
    results = []
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P4_PAR", "8"))) as ex:
        futs = {ex.submit(run_one, n, S[n], jobs[n], logs): n for n in names}
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results.append(r)
            print("%-40s rc=%-14s %6.1fs" % (r["name"], r["rc"], r["seconds"]), flush=True)
    man = {"facts": info, "end_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "wall_s": round(time.time() - T_START, 1), "results": sorted(results, key=lambda r: r["name"]),
           "programs": PROGS}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(man, f, indent=1, default=str)
    with tarfile.open(os.path.join(out, "logs.tar.gz"), "w:gz") as t:
        t.add(logs, arcname="logs")
    shutil.rmtree(logs)


if __name__ == "__main__":
    main()
