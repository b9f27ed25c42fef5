#!/usr/bin/env python3
"""P2: plant one-bug torch programs / environment mistakes on a real H100, keep verbatim logs.

Independent held-out set for `gpudoctor explain` (issue 18), made by the planted-2 evaluator.
Kept exactly as it ran (the record of bench/data/explain_heldout_2026-11-26p2.jsonl): its run_one and
facts repeat bench/plant_h100.py's on purpose, so that one file carries to the GPU machine alone.
Self-contained: writes the programs to /tmp/p2-XXXX/, runs each scenario under a wall-clock
limit, saves stdout+stderr verbatim to $OUT/<name>.log and $OUT/manifest.json (command, extra
env, exit status, seconds, machine facts, program sources).

    OUT=/tmp/out python3 bench/plant2_h100.py [NAMES]   (on the GPU machine; bench/data/heldout-2026-11-26/README-p2.md)
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

PY = sys.executable

COMMON = r'''
import datetime, os, sys, time
import torch
import torch.distributed as dist
RANK = int(os.environ.get("RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
def init(backend, fake_hosts=False, seconds=20):
    if fake_hosts:  # NCCL takes each rank for its own node (src/misc/utils.cc getHostHash)
        os.environ["NCCL_HOSTID"] = "node%d" % RANK
    if backend == "nccl":
        torch.cuda.set_device(0)
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=seconds))
'''

PROGS = {
    # ---------------- (a) user code / data ----------------
    "ckpt_prefix.py": r'''
import torch, torch.nn as nn, torch.distributed as dist, os
from torch.nn.parallel import DistributedDataParallel as DDP
os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29701")
dist.init_process_group("gloo", rank=0, world_size=1)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64))
        self.head = nn.Linear(64, 10)
    def forward(self, x):
        return self.head(self.encoder(x))
model = DDP(Net())
torch.save(model.state_dict(), "checkpoint_epoch3.pt")
print("saved checkpoint_epoch3.pt", flush=True)
dist.destroy_process_group()
# later, in the evaluation script:
net = Net()
state = torch.load("checkpoint_epoch3.pt", map_location="cpu")
net.load_state_dict(state)
print("loaded")
''',
    "ckpt_size.py": r'''
import torch, torch.nn as nn
class Classifier(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(16, num_classes)
    def forward(self, x):
        return self.fc(self.backbone(x))
torch.save(Classifier(1000).state_dict(), "pretrained.pt")
model = Classifier(num_classes=37).cuda()
model.load_state_dict(torch.load("pretrained.pt"))
''',
    "ddp_branch.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo")
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(16, 16)
        self.aux_head = nn.Linear(16, 4)
        self.head = nn.Linear(16, 4)
    def forward(self, x, use_aux):
        h = torch.relu(self.body(x))
        return self.aux_head(h) if use_aux else self.head(h)
model = DDP(Net())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    out = model(torch.randn(8, 16), use_aux=(step % 2 == 1))
    loss = out.pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    "bcast_src.py": COMMON + r'''
init("gloo")
weights = torch.randn(1024) if RANK == 0 else torch.empty(1024)
dist.broadcast(weights, src=WORLD)   # meant: the last rank, WORLD - 1
print("broadcast ok", flush=True)
dist.destroy_process_group()
''',
    "new_group.py": COMMON + r'''
init("gloo")
# pipeline stages of 2 ranks each, written for 4 GPUs, run on 2
stage_groups = [dist.new_group([0, 1]), dist.new_group([2, 3])]
print("groups ok", flush=True)
dist.destroy_process_group()
''',
    "gather_len.py": COMMON + r'''
init("gloo")
local = torch.full((4,), float(RANK))
gathered = [torch.zeros(4)]          # one slot, not one per rank
dist.all_gather(gathered, local)
print(RANK, gathered, flush=True)
dist.destroy_process_group()
''',
    "gather_sizes.py": COMMON + r'''
init("gloo")
# each rank holds a different number of predictions in the last eval batch
n = 5 if RANK == 0 else 3
preds = torch.arange(n, dtype=torch.float32)
out = [torch.zeros_like(preds) for _ in range(WORLD)]
dist.all_gather(out, preds)
print("gathered", [o.tolist() for o in out], flush=True)
dist.destroy_process_group()
''',
    "agit_size.py": COMMON + r'''
init("nccl")
shard = torch.randn(1024, device="cuda")
full = torch.empty(1024 * 4, device="cuda")      # sized for 4 GPUs
dist.all_gather_into_tensor(full, shard)
torch.cuda.synchronize()
print("ok", flush=True)
dist.destroy_process_group()
''',
    "rs_shape.py": COMMON + r'''
init("nccl")
grads = torch.randn(1000, device="cuda")
shard = torch.empty(1000 // 8, device="cuda")   # world size assumed 8
dist.reduce_scatter_tensor(shard, grads)
torch.cuda.synchronize()
print("ok", flush=True)
dist.destroy_process_group()
''',
    "mixed_dtype.py": COMMON + r'''
init("nccl", fake_hosts=True, seconds=15)
# rank 1 runs the model in half precision and reduces its loss sum in fp16
dtype = torch.float32 if RANK == 0 else torch.float16
stats = torch.ones(1 << 20, device="cuda", dtype=dtype)
for step in range(3):
    dist.all_reduce(stats)
    print(f"rank {RANK} step {step} sum {stats[0].item()}", flush=True)
dist.destroy_process_group()
''',
    "scaler_bf16.py": r'''
import torch, torch.nn as nn
model = nn.Sequential(nn.Linear(512, 512), nn.GELU(), nn.Linear(512, 10)).cuda().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch.amp.GradScaler("cuda")
for step in range(3):
    x = torch.randn(64, 512, device="cuda", dtype=torch.bfloat16)
    y = torch.randint(0, 10, (64,), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
    print("step", step, loss.item(), flush=True)
''',
    "noncontig.py": COMMON + r'''
init("nccl")
w = torch.randn(256, 128, device="cuda")
g = w[:, ::2]                 # every other column: a strided view
dist.all_reduce(g)
torch.cuda.synchronize()
print("ok", flush=True)
dist.destroy_process_group()
''',
    "barrier_ids.py": COMMON + r'''
init("nccl")
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
x = torch.ones(8, device="cuda"); dist.all_reduce(x)
dist.barrier(device_ids=[local_rank + 1])
print("after barrier", flush=True)
dist.destroy_process_group()
''',
    "scatter_list.py": COMMON + r'''
init("gloo")
out = torch.empty(4)
chunks = [torch.full((4,), float(i)) for i in range(WORLD)]   # built on every rank
dist.scatter(out, scatter_list=chunks, src=0)
print(RANK, out, flush=True)
dist.destroy_process_group()
''',
    "cuda_fork.py": r'''
import torch
from torch.utils.data import Dataset, DataLoader
class GPUAugmentDataset(Dataset):
    def __init__(self):
        self.mean = torch.tensor([0.485, 0.456, 0.406], device="cuda")
    def __len__(self):
        return 64
    def __getitem__(self, i):
        img = torch.rand(3, 32, 32, device="cuda")
        return (img - self.mean[:, None, None]), i % 10
loader = DataLoader(GPUAugmentDataset(), batch_size=8, num_workers=2)
for x, y in loader:
    print(x.shape)
''',
    "ddp_frozen.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo")
backbone = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64))
for p in backbone.parameters():
    p.requires_grad_(False)          # frozen feature extractor
model = DDP(backbone)
print("wrapped", flush=True)
''',
    "ddp_cpu_ids.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("nccl")
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
model = nn.Linear(128, 128)
model = DDP(model, device_ids=[local_rank])       # model never moved to the GPU
print("wrapped", flush=True)
''',
    "inplace.py": r'''
import torch, torch.nn as nn
net = nn.Sequential(nn.Linear(32, 32), nn.Sigmoid()).cuda()
x = torch.randn(16, 32, device="cuda")
h = net(x)
h += 1.0                     # in-place on a sigmoid output saved for backward
loss = h.pow(2).sum()
loss.backward()
''',
    "env_missing.py": r'''
import torch, torch.distributed as dist
dist.init_process_group(backend="nccl", init_method="env://")
''',
    "rank1_keyerror.py": COMMON + r'''
init("gloo", seconds=60)
records = [{"text": "a", "label": 1}] * 16
records[13] = {"text": "b", "lable": 0}
model = torch.nn.Linear(4, 1)
for step in range(8):
    rec = records[step * WORLD + RANK]
    y = torch.tensor([float(rec["label"])])
    loss = (model(torch.randn(4)) - y).pow(2).sum()
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad)
    print(f"rank {RANK} step {step} loss {loss.item():.3f}", flush=True)
dist.destroy_process_group()
''',
    "weights_only.py": r'''
import argparse, torch, torch.nn as nn
args = argparse.Namespace(lr=3e-4, epochs=10, arch="mlp")
model = nn.Linear(8, 8)
torch.save({"model": model.state_dict(), "args": args, "epoch": 10}, "last.ckpt")
ckpt = torch.load("last.ckpt", map_location="cpu")
model.load_state_dict(ckpt["model"])
print("resumed from epoch", ckpt["epoch"])
''',
    "ddp_moved.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo")
model = DDP(nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1)))
model.to("cuda")            # moved after wrapping
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(16, 32, device="cuda")).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    "uneven.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("nccl", fake_hosts=True, seconds=15)
model = DDP(nn.Linear(256, 256).cuda(), device_ids=[0])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
# each rank reads its own shard file; rank 1's shard has fewer batches
batches = 6 if RANK == 0 else 4
for step in range(batches):
    loss = model(torch.randn(64, 256, device="cuda")).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
print(f"rank {RANK} finished epoch", flush=True)
dist.destroy_process_group()
''',
    # ---------------- (b) environment / configuration ----------------
    "allreduce.py": COMMON + r'''
backend = sys.argv[1] if len(sys.argv) > 1 else "nccl"
init(backend, fake_hosts=os.environ.get("FAKE_HOSTS") == "1", seconds=int(os.environ.get("PG_TIMEOUT", "20")))
dev = "cuda" if backend == "nccl" else "cpu"
x = torch.ones(1 << 20, device=dev)
for i in range(3):
    dist.all_reduce(x)
if dev == "cuda":
    torch.cuda.synchronize()
print(f"rank {RANK}: all_reduce ok {x[0].item()}", flush=True)
dist.destroy_process_group()
''',
    "gpu_train.py": r'''
import os, torch
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local_rank)
x = torch.randn(1024, 1024, device="cuda")
print("matmul", (x @ x).sum().item(), flush=True)
''',
    "holdport.py": r'''
import socket, sys, time
s = socket.socket(); s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(1)
print("another job holds port", sys.argv[1], flush=True)
time.sleep(float(sys.argv[2]))
''',
    # ---------------- (c) healthy ----------------
    "healthy_ddp.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
backend = sys.argv[1] if len(sys.argv) > 1 else "nccl"
init(backend, fake_hosts=(backend == "nccl"))
dev = "cuda" if backend == "nccl" else "cpu"
model = DDP(nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).to(dev))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(5):
    loss = model(torch.randn(32, 64, device=dev)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if RANK == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
print(f"rank {RANK} done", flush=True)
''',
    "healthy_warn.py": COMMON + r'''
import warnings
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo")
model = DDP(nn.Linear(16, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1)
sched.step()                                  # before optimizer.step(): a UserWarning
for step in range(3):
    loss = model(torch.randn(8, 16)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if RANK == 0:
        print(f"epoch 0 step {step} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.4f}", flush=True)
if RANK == 0:
    torch.save(model.module.state_dict(), "ckpt.pt")
    sd = torch.load("ckpt.pt")
    print("checkpoint reloaded,", len(sd), "tensors", flush=True)
# no destroy_process_group(): torch warns at exit
''',
}


def torchrun(n, port, prog, *args):
    return "%s -m torch.distributed.run --nproc_per_node %d --master_port %d %s %s" % (
        PY, n, port, prog, " ".join(args))


def scenarios():
    tr = torchrun
    # name: (shell command run in the programs' folder, extra env, limit s)
    return {
        # (a) user code / data
        "ckpt_module_prefix": ("%s ckpt_prefix.py" % PY, {}, 60),
        "ckpt_size_mismatch": ("%s ckpt_size.py" % PY, {}, 60),
        "ddp_unused_branch_detail": (tr(2, 29702, "ddp_branch.py"), {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}, 60),
        "broadcast_src_out_of_range": (tr(2, 29703, "bcast_src.py"), {}, 60),
        "new_group_ranks_out_of_range": (tr(2, 29704, "new_group.py"), {}, 60),
        "all_gather_list_too_short": (tr(2, 29705, "gather_len.py"), {}, 60),
        "all_gather_uneven_sizes": (tr(2, 29706, "gather_sizes.py"), {}, 60),
        "all_gather_into_tensor_size": (tr(1, 29707, "agit_size.py"), {}, 60),
        "reduce_scatter_shape": (tr(1, 29708, "rs_shape.py"), {}, 60),
        "nccl_mixed_dtype_hang": (tr(2, 29709, "mixed_dtype.py"), {"TORCH_NCCL_DUMP_ON_TIMEOUT": "0"}, 90),
        "gradscaler_bf16_params": ("%s scaler_bf16.py" % PY, {}, 60),
        "nccl_non_contiguous": (tr(1, 29710, "noncontig.py"), {}, 60),
        "barrier_device_ids_wrong": (tr(1, 29711, "barrier_ids.py"), {}, 60),
        "scatter_list_on_non_src": (tr(2, 29712, "scatter_list.py"), {}, 60),
        "cuda_in_forked_workers": ("%s cuda_fork.py" % PY, {}, 60),
        "ddp_all_params_frozen": (tr(2, 29713, "ddp_frozen.py"), {}, 60),
        "ddp_cpu_module_device_ids": (tr(1, 29714, "ddp_cpu_ids.py"), {}, 60),
        "inplace_autograd": ("%s inplace.py" % PY, {}, 60),
        "env_init_without_launcher": ("%s env_missing.py" % PY, {}, 60),
        "rank1_data_keyerror": (tr(2, 29715, "rank1_keyerror.py"), {}, 90),
        "ddp_unused_branch_info": (tr(2, 29717, "ddp_branch.py"), {"TORCH_DISTRIBUTED_DEBUG": "INFO"}, 60),
        "nccl_uneven_batches": (tr(2, 29718, "uneven.py"), {"TORCH_NCCL_ASYNC_ERROR_HANDLING": "1",
                                                           "TORCH_NCCL_DUMP_ON_TIMEOUT": "0"}, 100),
        "torch_load_weights_only": ("%s weights_only.py" % PY, {}, 60),
        "ddp_moved_to_cuda_after_wrap": (tr(1, 29716, "ddp_moved.py"), {}, 60),
        # (b) environment / configuration
        "nccl_socket_ifname_missing": (tr(1, 29720, "allreduce.py"), {"NCCL_SOCKET_IFNAME": "ens1f0np0"}, 60),
        "nccl_net_ib_no_hca": (tr(1, 29721, "allreduce.py"), {"NCCL_NET": "IB"}, 60),
        "nccl_algo_invalid": (tr(2, 29722, "allreduce.py"), {"FAKE_HOSTS": "1", "NCCL_ALGO": "Tree,Rings"}, 60),
        "nccl_proto_invalid": (tr(2, 29723, "allreduce.py"), {"FAKE_HOSTS": "1", "NCCL_PROTO": "LL256"}, 60),
        "nccl_ib_hca_bogus_fakehosts": (tr(2, 29724, "allreduce.py"),
                                        {"FAKE_HOSTS": "1", "NCCL_IB_HCA": "mlx5_9:1", "NCCL_DEBUG": "WARN"}, 60),
        "cuda_visible_devices_1": (tr(1, 29725, "gpu_train.py"), {"CUDA_VISIBLE_DEVICES": "1"}, 60),
        "cuda_visible_devices_empty": (tr(1, 29726, "allreduce.py"), {"CUDA_VISIBLE_DEVICES": ""}, 60),
        "master_port_in_use": ("(%s holdport.py 29727 40 &) ; sleep 2; %s" % (PY, tr(2, 29727, "allreduce.py", "gloo")),
                               {}, 60),
        "master_addr_unroutable": ("%s allreduce.py gloo" % PY,
                                   {"MASTER_ADDR": "10.254.0.17", "MASTER_PORT": "29500", "RANK": "1",
                                    "WORLD_SIZE": "2", "LOCAL_RANK": "0", "PG_TIMEOUT": "15"}, 60),
        "master_addr_unresolvable": ("%s allreduce.py gloo" % PY,
                                     {"MASTER_ADDR": "gpu-node-017", "MASTER_PORT": "29500", "RANK": "1",
                                      "WORLD_SIZE": "2", "LOCAL_RANK": "0", "PG_TIMEOUT": "15"}, 60),
        "world_size_larger_than_started": ("%s allreduce.py gloo" % PY,
                                           {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29728", "RANK": "0",
                                            "WORLD_SIZE": "4", "LOCAL_RANK": "0", "PG_TIMEOUT": "15"}, 60),
        "torchrun_nnodes2_one_node": ("%s -m torch.distributed.run --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d "
                                      "--rdzv_endpoint 127.0.0.1:29729 --rdzv_id job42 --rdzv_conf join_timeout=20 "
                                      "allreduce.py nccl" % PY, {}, 75),
        "ulimit_v_cuda_init": ("ulimit -v 16000000 && echo \"ulimit -v: $(ulimit -v)\" && exec %s gpu_train.py" % PY,
                               {}, 60),
        "ulimit_n_16_torchrun": ("ulimit -n 16 && echo \"ulimit -n: $(ulimit -n)\" && exec %s" % tr(2, 29730, "allreduce.py", "gloo"),
                                 {}, 60),
        "gloo_socket_ifname_missing": (tr(2, 29731, "allreduce.py", "gloo"), {"GLOO_SOCKET_IFNAME": "ib0"}, 60),
        "nccl_socket_family_ipv6": (tr(1, 29732, "allreduce.py"), {"NCCL_SOCKET_FAMILY": "AF_INET6"}, 60),
        # (c) healthy
        "healthy_ddp_fakehosts_info": (tr(2, 29740, "healthy_ddp.py", "nccl"),
                                       {"NCCL_DEBUG": "INFO", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1"}, 90),
        "healthy_p2p_shm_disabled": (tr(2, 29741, "allreduce.py"),
                                     {"FAKE_HOSTS": "1", "NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1",
                                      "NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,ENV"}, 90),
        "healthy_warnings_gloo": (tr(2, 29742, "healthy_warn.py"), {}, 60),
        "healthy_ld_preload_missing": (tr(1, 29743, "healthy_ddp.py", "gloo"),
                                       {"LD_PRELOAD": "/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so"}, 60),
    }


def run_one(name, spec, d, out):
    cmd, env_add, limit = spec
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
    t0 = time.time()
    with open(os.path.join(out, name + ".log"), "wb") as log:
        try:
            rc = subprocess.run(cmd, shell=True, executable="/bin/bash", cwd=d, stdout=log,
                                stderr=subprocess.STDOUT, env=env, timeout=limit,
                                start_new_session=True).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout %d s" % limit
    return {"name": name, "cmd": cmd, "env": env_add, "rc": rc, "seconds": round(time.time() - t0, 1)}


def facts():
    def sh(c):
        try:
            return subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
        except Exception as exc:  # noqa: BLE001
            return "unavailable: %s" % exc
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nvidia_smi": sh("nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader"),
        "torch": sh("%s -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'" % PY),
        "python": sys.version.split()[0],
        "kernel": sh("uname -r"),
        "hostname": sh("hostname"),
        "ip": sh("ip -br addr 2>&1"),
        "infiniband": sh("ls /dev/infiniband 2>&1"),
        "ulimits": sh("ulimit -a"),
        "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p2out"
    os.makedirs(out, exist_ok=True)
    d = tempfile.mkdtemp(prefix="p2-")
    for name, src in PROGS.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(src.lstrip())
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    results = []
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P2_JOBS", "8"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], d, out) for k in want]
        for f in concurrent.futures.as_completed(futs):
            results.append(f.result())
            print(results[-1], flush=True)
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"facts": facts(), "programs_dir": d, "scenarios": results, "programs": PROGS}, f, indent=1)
    subprocess.run("cd %s && tar czf logs.tar.gz *.log && rm -f *.log" % out, shell=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()
