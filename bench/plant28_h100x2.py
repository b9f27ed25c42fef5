#!/usr/bin/env python3
"""P28 (eval-p28): plant multi-GPU training failures of kinds no earlier set planted, on 2x H100.

Harness as bench/plant26_h100x2.py (run_one/facts/main): each scenario runs in a neutral job folder
(/tmp/job-XXXX/jobNN), under a wall-clock limit (own session, process group SIGKILLed at the limit);
stdout+stderr verbatim to $OUT/<name>.log, packed into $OUT/logs.tar.gz; $OUT/manifest.json holds command, env,
exit status, seconds and machine facts. NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NVSHMEM_DISABLE_NVLS=1 forced for every scenario.
"""
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

PYEXE = sys.executable
BIN = os.path.dirname(PYEXE)
T0 = time.time()
START_BY_S = float(os.environ.get("P28_START_BY_S", "360"))
END_BY_S = float(os.environ.get("P28_END_BY_S", "400"))

P_GLOO_AVG = r'''
import os
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
model = torch.nn.Linear(64, 8).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(32, 64, device="cuda")
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    # running statistics are averaged on the CPU side so they never touch the GPU stream
    stats = torch.tensor([loss.item(), float(x.size(0))])
    dist.all_reduce(stats, op=dist.ReduceOp.AVG)
    if rank == 0:
        print(f"step {step} mean loss {stats[0].item():.4f}")
dist.destroy_process_group()
'''

P_NEWGROUP = r'''
import datetime
import os
import torch
import torch.distributed as dist

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT", "60"))))
rank = dist.get_rank()
model = torch.nn.Linear(128, 128).cuda()
ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
for step in range(3):
    x = torch.randn(16, 128, device="cuda")
    ddp(x).sum().backward()
print(f"rank {rank} training done", flush=True)
if rank == 0:
    eval_group = dist.new_group(ranks=[0, 1])
    t = torch.ones(1, device="cuda")
    dist.all_reduce(t, group=eval_group)
    print("eval reduced", t.item(), flush=True)
dist.barrier()
print(f"rank {rank} finished", flush=True)
dist.destroy_process_group()
'''

P_TP_LN = r'''
import os
import torch
import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (int(os.environ["WORLD_SIZE"]),), mesh_dim_names=("tp",))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(512)
        self.up = nn.Linear(512, 2048)
        self.down = nn.Linear(2048, 512)

    def forward(self, x):
        return x + self.down(torch.relu(self.up(self.norm(x))))


m = Block().cuda()
m = parallelize_module(m, mesh, {"norm": ColwiseParallel(), "up": ColwiseParallel(), "down": RowwiseParallel()})
x = torch.randn(8, 512, device="cuda")
print("out", m(x).shape)
torch.distributed.destroy_process_group()
'''

P_DT_PLACE = r'''
import os
import torch
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (int(os.environ["WORLD_SIZE"]),), mesh_dim_names=("dp",))
torch.manual_seed(0)
w = torch.randn(1024, 256)
dw = distribute_tensor(w, mesh, [Shard(0), Replicate()])
print("local shard", dw.to_local().shape)
torch.distributed.destroy_process_group()
'''

P_MESH_IDX = r'''
import os
import torch
from torch.distributed.device_mesh import init_device_mesh

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
device = torch.device("cuda", local)
mesh = init_device_mesh(str(device), (int(os.environ["WORLD_SIZE"]),), mesh_dim_names=("dp",))
print("mesh", mesh)
'''

P_SPAWN = r'''
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def train(world_size):
    rank = int(os.environ.get("RANK", "0"))
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 32).cuda(), device_ids=[rank])
    model(torch.randn(4, 32, device="cuda")).sum().backward()
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29655")
    world_size = torch.cuda.device_count()
    print("spawning", world_size, "workers")
    mp.spawn(train, args=(world_size,), nprocs=world_size, join=True)
'''

P_GEN_CUDA = r'''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_device("cuda")
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
ds = TensorDataset(torch.randn(1024, 32), torch.randint(0, 10, (1024,)))
loader = DataLoader(ds, batch_size=64, shuffle=True)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("epoch", epoch, "loss", loss.item())
'''

P_COMPILE_MO = r'''
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 256)).cuda()
cmodel = torch.compile(model, mode="max-autotune", options={"triton.cudagraphs": False})
x = torch.randn(64, 256, device="cuda")
print(cmodel(x).sum().item())
'''

P_SPM = r'''
import random
import sentencepiece as spm

random.seed(0)
words = ["gradient", "tensor", "loss", "batch", "epoch", "shard", "rank", "token", "model", "step"]
with open("corpus.txt", "w") as f:
    for i in range(300):
        f.write(" ".join(random.choice(words) for _ in range(12)) + "\n")
spm.SentencePieceTrainer.train(input="corpus.txt", model_prefix="tok", vocab_size=8000, model_type="unigram")
sp = spm.SentencePieceProcessor(model_file="tok.model")
print(sp.encode("gradient tensor loss"))
'''

P_SPM_HEALTHY = r'''
import os
import random
import sentencepiece as spm
import torch
import torch.distributed as dist

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank = dist.get_rank()
if rank == 0:
    random.seed(0)
    words = ["gradient", "tensor", "loss", "batch", "epoch", "shard", "rank", "token", "model", "step",
             "optimizer", "warmup", "schedule", "checkpoint", "resume", "learning", "rate", "decay"]
    with open("corpus.txt", "w") as f:
        for i in range(2000):
            f.write(" ".join(random.choice(words) for _ in range(16)) + "\n")
    spm.SentencePieceTrainer.train(input="corpus.txt", model_prefix="tok", vocab_size=64, model_type="unigram")
dist.barrier()
sp = spm.SentencePieceProcessor(model_file="tok.model")
ids = torch.tensor(sp.encode("resume checkpoint warmup schedule"), device="cuda")
emb = torch.nn.parallel.DistributedDataParallel(torch.nn.Embedding(sp.get_piece_size(), 32).cuda(), device_ids=[local])
emb(ids).sum().backward()
n = torch.tensor([ids.numel()], device="cuda")
dist.all_reduce(n)
print(f"rank {rank} vocab {sp.get_piece_size()} tokens {ids.tolist()} total {n.item()}")
dist.destroy_process_group()
'''

P_AUTOCAST_IDX = r'''
import os
import torch
import torch.nn as nn

device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
model = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(3):
    x = torch.randn(32, 512, device=device)
    with torch.autocast(device_type=str(device), dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, loss.item())
'''

P_DDP_TWO = r'''
import os
import torch
import torch.distributed as dist
import torch.nn as nn

dist.init_process_group("nccl")
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
model = nn.parallel.DistributedDataParallel(model, device_ids=list(range(torch.cuda.device_count())))
x = torch.randn(64, 256, device="cuda")
model(x).sum().backward()
print("ok")
dist.destroy_process_group()
'''

P_ADAMW_FF = r'''
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True, foreach=True)
for step in range(3):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print("step", step, loss.item())
'''

P_ALLRED = r'''
import os
import time
import torch
import torch.distributed as dist

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank = dist.get_rank()
world = dist.get_world_size()
print(f"rank {rank}/{world} on {torch.cuda.get_device_name(local)} visible={os.environ.get('CUDA_VISIBLE_DEVICES')}",
      flush=True)
x = torch.ones(64 * 1024 * 1024, device="cuda")
for _ in range(3):
    dist.all_reduce(x)
torch.cuda.synchronize()
t = time.time()
for _ in range(10):
    dist.all_reduce(x)
torch.cuda.synchronize()
dt = (time.time() - t) / 10
bw = x.numel() * 4 * 2 * (world - 1) / world / dt / 1e9
if rank == 0:
    print(f"allreduce 256MB: {dt*1e3:.2f} ms, busbw {bw:.1f} GB/s, value {x[0].item()}", flush=True)
dist.destroy_process_group()
'''

P_DDP_TRAIN = r'''
import os
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank = dist.get_rank()
ds = TensorDataset(torch.randn(4096, 128), torch.randint(0, 10, (4096,)))
sampler = DistributedSampler(ds, shuffle=True)
loader = DataLoader(ds, batch_size=128, sampler=sampler, num_workers=2, pin_memory=True)
model = nn.parallel.DistributedDataParallel(
    nn.Sequential(nn.Linear(128, 512), nn.ReLU(), nn.Linear(512, 10)).cuda(), device_ids=[local])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if rank == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_COMPILE_SMALL = r'''
import time
import torch
import torch.nn as nn

model = nn.Sequential(*[nn.Sequential(nn.Linear(256, 256), nn.LayerNorm(256), nn.GELU()) for _ in range(4)]).cuda()
cmodel = torch.compile(model)
x = torch.randn(64, 256, device="cuda")
t = time.time()
print("out", cmodel(x).sum().item(), "compile+first step %.1f s" % (time.time() - t))
'''

P_COMPILE_TIMED = r'''
import os
import time
import torch
import torch.nn as nn
import torch.nn.functional as F


class Blk(nn.Module):
    def __init__(self, d, i):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.ln = nn.LayerNorm(d)
        self.i = i

    def forward(self, x):
        h = self.ln(self.fc(x))
        if self.i % 3 == 0:
            h = F.gelu(h) * torch.sigmoid(h)
        elif self.i % 3 == 1:
            h = F.silu(h) + torch.tanh(h) * 0.5
        else:
            h = F.softplus(h) - h.pow(2).mean(-1, keepdim=True)
        return x + h


dims = [128 + 32 * i for i in range(16)]
model = nn.ModuleList([Blk(d, i) for i, d in enumerate(dims)]).cuda()


def fwd(xs):
    return [blk(x) for blk, x in zip(model, xs)]


cf = torch.compile(fwd)
xs = [torch.randn(32, d, device="cuda", requires_grad=True) for d in dims]
print("compile threads env:", os.environ.get("TORCHINDUCTOR_COMPILE_THREADS", "(unset)"), flush=True)
t = time.time()
out = cf(xs)
sum(o.sum() for o in out).backward()
torch.cuda.synchronize()
print("first step (compile) %.1f s" % (time.time() - t), flush=True)
t = time.time()
for _ in range(20):
    out = cf(xs)
    sum(o.sum() for o in out).backward()
torch.cuda.synchronize()
print("steady step %.2f ms" % ((time.time() - t) / 20 * 1e3), flush=True)
'''

P_FSDP2_TIMED = r'''
import os
import time
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import CPUOffloadPolicy, fully_shard

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (int(os.environ["WORLD_SIZE"]),))
rank = dist.get_rank()
offload = os.environ.get("OFFLOAD", "0") == "1"
kw = {"offload_policy": CPUOffloadPolicy()} if offload else {}
model = nn.Sequential(*[nn.Sequential(nn.Linear(2048, 2048), nn.GELU()) for _ in range(12)]).cuda()
for blk in model:
    fully_shard(blk, mesh=mesh, **kw)
fully_shard(model, mesh=mesh, **kw)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(64, 2048, device="cuda")
for step in range(25):
    if step == 5:
        torch.cuda.synchronize()
        t = time.time()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
torch.cuda.synchronize()
if rank == 0:
    print(f"step time {(time.time() - t) / 20 * 1e3:.1f} ms  loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''

P_BCAST_DTYPE = r'''
import datetime
import os
import torch
import torch.distributed as dist
import torch.nn as nn

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local), timeout=datetime.timedelta(seconds=25))
rank = dist.get_rank()
torch.manual_seed(1234 + rank)
model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 4)).cuda()
if rank != 0 and os.environ.get("HALF_ON_WORKERS") == "1":
    model = model.half()
for p in model.parameters():
    dist.broadcast(p.data, src=0)
torch.cuda.synchronize()
s = sum(p.float().abs().sum().item() for p in model.parameters())
print(f"rank {rank} param abs-sum after broadcast {s:.4f} first {model[0].weight.flatten()[:3].tolist()}", flush=True)
x = torch.ones(8, 256, device="cuda", dtype=next(model.parameters()).dtype)
print(f"rank {rank} out {model(x).float().mean().item():.6f}", flush=True)
dist.destroy_process_group()
'''

P_LOADER_TIMED = r'''
import os
import time
import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Spectra(Dataset):
    def __len__(self):
        return 4096

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        sig = rng.standard_normal(16384).astype(np.float32)
        spec = np.abs(np.fft.rfft(sig))[:512]
        return torch.from_numpy(spec.astype(np.float32)), i % 10


local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank = dist.get_rank()
ds = Spectra()
loader = DataLoader(ds, batch_size=64, sampler=DistributedSampler(ds), num_workers=6)
model = nn.parallel.DistributedDataParallel(nn.Linear(512, 10).cuda(), device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
t = time.time()
n = 0
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
    n += x.size(0)
dt = time.time() - t
if rank == 0:
    print(f"epoch: {n} samples/rank in {dt:.1f} s ({n / dt:.0f} samples/s/rank) affinity={sorted(os.sched_getaffinity(0))[:8]}",
          flush=True)
dist.destroy_process_group()
'''

P_FSDP2_COMPILE = r'''
import os
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (int(os.environ["WORLD_SIZE"]),))
rank = dist.get_rank()
mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
blocks = nn.ModuleList([nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True) for _ in range(4)])
model = nn.Sequential(*blocks).cuda()
for blk in model:
    blk.compile()
    fully_shard(blk, mesh=mesh, mp_policy=mp)
fully_shard(model, mesh=mesh, mp_policy=mp)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(4):
    x = torch.randn(8, 64, 256, device="cuda")
    loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_FUNCOL = r'''
import os
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank = dist.get_rank()
group = dist.group.WORLD


@torch.compile
def scaled_mean(x):
    y = funcol.all_reduce(x * 2.0, "sum", group)
    return y / dist.get_world_size()


x = torch.full((1024,), float(rank + 1), device="cuda")
out = scaled_mean(x)
print(f"rank {rank} result {out[0].item()}", flush=True)
dist.destroy_process_group()
'''

P_DT_HEALTHY = r'''
import os
import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (int(os.environ["WORLD_SIZE"]),), mesh_dim_names=("dp",))
torch.manual_seed(0)
w = torch.randn(1024, 256)
dw = distribute_tensor(w, mesh, [Shard(0)])
rw = dw.redistribute(mesh, [Replicate()])
ok = torch.allclose(rw.to_local().cpu(), w)
print(f"rank {dist.get_rank()} local shard {tuple(dw.to_local().shape)} replicated ok={ok}", flush=True)
dist.destroy_process_group()
'''


def tr(port, script="train.py", pre=""):
    return "%storchrun --nproc-per-node 2 --master-port %d %s" % (pre, port, script)


W = {"NCCL_DEBUG": "WARN"}
G0 = {"CUDA_VISIBLE_DEVICES": "0"}
G1 = {"CUDA_VISIBLE_DEVICES": "1"}
PY = "python train.py"
FRESH = "TORCHINDUCTOR_CACHE_DIR=$PWD/ic TRITON_CACHE_DIR=$PWD/tc "


def scenarios():
    if os.environ.get("P28_SET") == "2":
        return scenarios2()
    return {
        # ---------------- words, timed (2-GPU runs one after the other on the otherwise idle machine)
        "w_fsdp2_cpu_offload": dict(prog={"train.py": P_FSDP2_TIMED}, cmd=tr(29701), env=dict(W, OFFLOAD="1"),
                                    limit=70, seq=True),
        "base_fsdp2_cpu_offload": dict(prog={"train.py": P_FSDP2_TIMED}, cmd=tr(29702), env=W, limit=70,
                                       seq=True),
        "w_bcast_half_workers": dict(prog={"train.py": P_BCAST_DTYPE}, cmd=tr(29703),
                                     env=dict(W, HALF_ON_WORKERS="1"), limit=70, seq=True),
        "base_bcast_half_workers": dict(prog={"train.py": P_BCAST_DTYPE}, cmd=tr(29704), env=W, limit=70,
                                        seq=True),
        "w_taskset_one_core": dict(prog={"train.py": P_LOADER_TIMED}, cmd=tr(29705, pre="taskset -c 0 "), env=W,
                                   limit=70, seq=True),
        "base_taskset_one_core": dict(prog={"train.py": P_LOADER_TIMED}, cmd=tr(29706), env=W, limit=100,
                                      seq=True),
        # words, timed pair started together (case GPU0, baseline GPU1)
        "w_compile_threads_1": dict(prog={"train.py": P_COMPILE_TIMED}, cmd=FRESH + PY,
                                    env=dict(G0, TORCHINDUCTOR_COMPILE_THREADS="1"), limit=120,
                                    pair="base_compile_threads_1"),
        "base_compile_threads_1": dict(prog={"train.py": P_COMPILE_TIMED}, cmd=FRESH + PY, env=G1, limit=120,
                                       paired=True),
        # ---------------- user code (parallel)
        "gloo_reduceop_avg": dict(prog={"train.py": P_GLOO_AVG}, cmd=tr(29711), env={}, limit=120),
        "new_group_rank0_only": dict(prog={"train.py": P_NEWGROUP}, cmd=tr(29712), env=dict(W, PG_TIMEOUT="30"),
                                     limit=110),
        "tp_colwise_on_layernorm": dict(prog={"train.py": P_TP_LN}, cmd=tr(29713), env={}, limit=120),
        "dtensor_placements_len": dict(prog={"train.py": P_DT_PLACE}, cmd=tr(29714), env={}, limit=120),
        "mesh_device_type_with_index": dict(prog={"train.py": P_MESH_IDX}, cmd=tr(29715), env={}, limit=120),
        "spawn_fn_missing_rank": dict(prog={"train.py": P_SPAWN}, cmd=PY, env={}, limit=120),
        "default_device_cuda_loader": dict(prog={"train.py": P_GEN_CUDA}, cmd=PY, env=G0, limit=120),
        "compile_mode_and_options": dict(prog={"train.py": P_COMPILE_MO}, cmd=PY, env=G1, limit=120),
        "spm_vocab_too_high": dict(prog={"prep_tokenizer.py": P_SPM}, cmd="python prep_tokenizer.py", env={},
                                   limit=120),
        "autocast_device_type_index": dict(prog={"train.py": P_AUTOCAST_IDX}, cmd=PY, env=G0, limit=120),
        "ddp_device_ids_all_gpus": dict(prog={"train.py": P_DDP_TWO}, cmd=tr(29716), env={}, limit=120),
        "adamw_fused_and_foreach": dict(prog={"train.py": P_ADAMW_FF}, cmd=PY, env=G1, limit=120),
        # ---------------- configuration
        "cvd_semicolon": dict(prog={"train.py": P_ALLRED}, cmd=tr(29721), env=dict(W, CUDA_VISIBLE_DEVICES="0;1"),
                              limit=120),
        "pythonoptimize_2": dict(prog={"train.py": P_DDP_TRAIN}, cmd=tr(29722), env=dict(W, PYTHONOPTIMIZE="2"),
                                 limit=120),
        "nccl_comm_blocking_0": dict(prog={"train.py": P_ALLRED}, cmd=tr(29723), env=dict(W, NCCL_COMM_BLOCKING="0"),
                                     limit=120),
        "compile_threads_0": dict(prog={"train.py": P_COMPILE_SMALL}, cmd=FRESH + PY,
                                  env=dict(G0, TORCHINDUCTOR_COMPILE_THREADS="0"), limit=150),
        "nproc_gpu_cvd_empty": dict(prog={"train.py": P_ALLRED},
                                    cmd="torchrun --nproc-per-node gpu --master-port 29724 train.py",
                                    env=dict(W, CUDA_VISIBLE_DEVICES=""), limit=120),
        # ---------------- healthy
        "healthy_fsdp2_compile_blocks": dict(prog={"train.py": P_FSDP2_COMPILE}, cmd=tr(29731), env=W, limit=150),
        "healthy_funcol_compile": dict(prog={"train.py": P_FUNCOL}, cmd=tr(29732), env=W, limit=150),
        "healthy_spm_ddp": dict(prog={"train.py": P_SPM_HEALTHY}, cmd=tr(29733), env=W, limit=120),
        "healthy_pci_order_reversed_info": dict(prog={"train.py": P_ALLRED}, cmd=tr(29734),
                                                env={"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": "1,0",
                                                     "NCCL_DEBUG": "INFO"}, limit=120),
        "healthy_loglevel_info_ddp": dict(prog={"train.py": P_DDP_TRAIN}, cmd=tr(29735),
                                          env={"LOGLEVEL": "INFO", "TORCH_NCCL_HIGH_PRIORITY": "1"}, limit=150),
        "healthy_dtensor_redistribute": dict(prog={"train.py": P_DT_HEALTHY}, cmd=tr(29736), env={}, limit=120),
    }


P_SPM_HEALTHY2 = P_SPM_HEALTHY.replace("vocab_size=64", "vocab_size=40")

P_FS_TWICE = r'''
import os
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (int(os.environ["WORLD_SIZE"]),))


def build_model():
    model = nn.Sequential(*[nn.Sequential(nn.Linear(512, 512), nn.GELU()) for _ in range(4)]).cuda()
    for blk in model:
        fully_shard(blk, mesh=mesh)
    fully_shard(model, mesh=mesh)
    return model


model = build_model()
# trainer side: shard again before building the optimizer
for blk in model:
    fully_shard(blk, mesh=mesh)
fully_shard(model, mesh=mesh)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
loss = model(torch.randn(8, 512, device="cuda")).sum()
loss.backward()
print("ok")
dist.destroy_process_group()
'''

P_DDP_OVER_FS = r'''
import os
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (int(os.environ["WORLD_SIZE"]),))
model = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512)).cuda()
fully_shard(model, mesh=mesh)
model = nn.parallel.DistributedDataParallel(model, device_ids=[local])
loss = model(torch.randn(8, 512, device="cuda")).sum()
loss.backward()
print("ok")
dist.destroy_process_group()
'''

P_FS_RESHARD3 = r'''
import os
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (int(os.environ["WORLD_SIZE"]),))
model = nn.Sequential(*[nn.Sequential(nn.Linear(512, 512), nn.GELU()) for _ in range(4)]).cuda()
for blk in model:
    fully_shard(blk, mesh=mesh, reshard_after_forward=3)
fully_shard(model, mesh=mesh)
loss = model(torch.randn(8, 512, device="cuda")).sum()
loss.backward()
print("ok")
dist.destroy_process_group()
'''

P_SDPA_GQA = r'''
import torch
import torch.nn.functional as F

B, T, D = 4, 256, 64
n_heads, n_kv_heads = 12, 5
q = torch.randn(B, n_heads, T, D, device="cuda", dtype=torch.bfloat16)
k = torch.randn(B, n_kv_heads, T, D, device="cuda", dtype=torch.bfloat16)
v = torch.randn(B, n_kv_heads, T, D, device="cuda", dtype=torch.bfloat16)
out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
print(out.shape)
'''

P_GROUP_LIST = r'''
import os
import torch
import torch.distributed as dist

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
t = torch.ones(4, device="cuda") * (dist.get_rank() + 1)
dist.all_reduce(t, group=[0, 1])
print(t)
dist.destroy_process_group()
'''

P_PG_TIMEOUT_INT = r'''
import os
import torch
import torch.distributed as dist

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group(backend="nccl", init_method="env://", timeout=1800)
t = torch.ones(4, device="cuda")
dist.all_reduce(t)
print(t)
dist.destroy_process_group()
'''

P_CG_SIZES = r'''
import os
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
mode = os.environ.get("COMPILE_MODE", "default")
model = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512), nn.LayerNorm(512)).cuda()
cmodel = torch.compile(model, mode=mode, dynamic=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
print("compile mode:", mode, flush=True)
sizes = [64 + 8 * (i % 60) for i in range(240)]
t = time.time()
for step, bs in enumerate(sizes):
    x = torch.randn(bs, 512, device="cuda")
    loss = cmodel(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if (step + 1) % 60 == 0:
        torch.cuda.synchronize()
        print(f"steps {step + 1}: {time.time() - t:.1f} s elapsed, loss {loss.item():.4f}", flush=True)
'''

P_ELASTIC_ERR = r'''
import os
import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


@record
def main():
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    if dist.get_rank() == 1:
        raise KeyError("missing column 'label' in shard 00017")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''


def scenarios2():
    return {
        "w_cudagraph_many_sizes": dict(prog={"train.py": P_CG_SIZES}, cmd=PY,
                                       env=dict(G0, COMPILE_MODE="reduce-overhead"), limit=110,
                                       pair="base_cudagraph_many_sizes"),
        "base_cudagraph_many_sizes": dict(prog={"train.py": P_CG_SIZES}, cmd=PY, env=G1, limit=110, paired=True),
        "healthy_spm_ddp": dict(prog={"train.py": P_SPM_HEALTHY2}, cmd=tr(29801), env=W, limit=100),
        "fsdp2_fully_shard_twice": dict(prog={"train.py": P_FS_TWICE}, cmd=tr(29802), env={}, limit=100),
        "ddp_over_fully_shard": dict(prog={"train.py": P_DDP_OVER_FS}, cmd=tr(29803), env={}, limit=100),
        "fsdp2_reshard_int_3": dict(prog={"train.py": P_FS_RESHARD3}, cmd=tr(29804), env={}, limit=100),
        "sdpa_gqa_heads_indivisible": dict(prog={"train.py": P_SDPA_GQA}, cmd=PY, env=G0, limit=100),
        "collective_group_rank_list": dict(prog={"train.py": P_GROUP_LIST}, cmd=tr(29805), env={}, limit=100),
        "pg_timeout_int_seconds": dict(prog={"train.py": P_PG_TIMEOUT_INT}, cmd=tr(29806), env={}, limit=100),
        "alloc_async_expandable": dict(prog={"train.py": P_ADAMW_FF.replace(", fused=True, foreach=True", "")},
                                       cmd=PY, env=dict(G1, PYTORCH_CUDA_ALLOC_CONF="backend:cudaMallocAsync,"
                                                        "expandable_segments:True"), limit=100),
        "cuda_max_connections_0": dict(prog={"train.py": P_ALLRED}, cmd=tr(29807),
                                       env=dict(W, CUDA_DEVICE_MAX_CONNECTIONS="0"), limit=100),
        "nccl_env_plugin_missing": dict(prog={"train.py": P_ALLRED}, cmd=tr(29808),
                                        env=dict(W, NCCL_ENV_PLUGIN="libnccl-env-site.so"), limit=100),
        "elastic_error_file_dir_missing": dict(prog={"train.py": P_ELASTIC_ERR}, cmd=tr(29809),
                                               env=dict(W, TORCHELASTIC_ERROR_FILE="/scratch/run42/errors/err.json"),
                                               limit=100),
    }


def run_one(name, sc, jobdir, out):
    os.makedirs(jobdir, exist_ok=True)
    files = dict(sc.get("prog", {}))
    for fn, text in files.items():
        with open(os.path.join(jobdir, fn), "w") as f:
            f.write(text.lstrip("\n"))
    env_add = dict(sc["env"])
    cmd = sc["cmd"]
    rec = {"name": name, "cmd": cmd, "env": env_add, "jobdir": jobdir, "files": sorted(files)}
    if time.time() - T0 > START_BY_S:
        rec.update(rc="not started (time)", seconds=0)
        return rec
    limit = int(min(sc["limit"], max(5, END_BY_S - (time.time() - T0))))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for k, v in env_add.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    t = time.time()
    rec["start_utc"] = time.strftime("%H:%M:%S", time.gmtime())
    with open(os.path.join(out, name + ".log"), "wb") as logf:
        proc = subprocess.Popen(cmd, shell=True, executable="/bin/bash", cwd=jobdir, stdout=logf,
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
    rec.update(rc=rc, seconds=round(time.time() - t, 1))
    return rec


def facts():
    def sh(c):
        try:
            p = subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60)
            return (p.stdout + p.stderr).strip()
        except Exception as exc:  # noqa: BLE001
            return "unavailable: %s" % exc
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nvidia_smi": sh("nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version "
                         "--format=csv,noheader"),
        "topo": sh("nvidia-smi topo -m"),
        "torch": sh("%s -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version(), "
                    "torch.backends.cudnn.version())'" % PYEXE),
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(torch|triton|numpy|nvidia-nccl|jax|flax|optax|orbax|"
                   "sentencepiece|transformers)'" % PYEXE),
        "python": sys.version.split()[0],
        "python_path": PYEXE,
        "kernel": sh("uname -r"),
        "os": sh("grep PRETTY_NAME /etc/os-release"),
        "nproc": sh("nproc"),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTHONPATH", "PYTORCH", "XLA_",
                                 "TORCHINDUCTOR", "TRITON_", "LOGLEVEL"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p28out"
    mname = os.environ.get("P28_MANIFEST", "manifest.json")
    os.makedirs(out, exist_ok=True)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
    os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
    base = tempfile.mkdtemp(prefix="job-")
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    idx = {n: i for i, n in enumerate(list(all_sc))}
    results = []

    def note(r):
        results.append(r)
        print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)

    def jd(n):
        return os.path.join(base, "job%02d" % idx[n])

    par = sorted([n for n in want if not all_sc[n].get("seq") and not all_sc[n].get("pair")
                  and not all_sc[n].get("paired")], key=lambda n: -all_sc[n]["limit"])
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P28_JOBS", "40"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in par]
        for f in concurrent.futures.as_completed(futs):
            note(f.result())
    for n in want:
        s = all_sc[n]
        if s.get("paired"):
            continue
        if s.get("seq"):
            note(run_one(n, s, jd(n), out))
        elif s.get("pair"):
            pair = [n] + ([s["pair"]] if s["pair"] in want else [])
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in pair]
                for f in concurrent.futures.as_completed(futs):
                    note(f.result())
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, mname), "w") as f:
        json.dump({"facts": facts(), "base_dir": base, "wall_s": round(time.time() - T0, 1),
                   "scenarios": results}, f, indent=1)
    subprocess.run("cd %s && tar czf %s *.log && rm -f *.log" % (out, os.environ.get("P28_TAR", "logs.tar.gz")),
                   shell=True)
    print("done in %.0f s" % (time.time() - T0), flush=True)


if __name__ == "__main__":
    main()
