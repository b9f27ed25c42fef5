#!/usr/bin/env python3
"""P16 (eval-p16): plant multi-GPU training failures of kinds no earlier set planted, on 2x H100.

Each scenario runs in a neutral job folder (/tmp/job-XXXX/jobNN, files train.py / utils.py / run.sh), under a
wall-clock limit (its process group killed at the limit); stdout+stderr verbatim to $OUT/<name>.log; logs packed
into $OUT/logs.tar.gz; $OUT/manifest.json holds command, env, exit status, seconds and machine facts.
NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1 forced for every scenario.
"""
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

PY = sys.executable
BIN = os.path.dirname(PY)
T0 = time.time()
START_BY_S = float(os.environ.get("P16_START_BY_S", "380"))
END_BY_S = float(os.environ.get("P16_END_BY_S", "500"))

HEAD = r'''
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

RANK = int(os.environ.get("RANK", "0"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))


def log(msg):
    print(f"[rank{RANK}] {time.strftime('%H:%M:%S')} {msg}", flush=True)


def setup(seconds=600, device_id=True):
    torch.cuda.set_device(LOCAL_RANK)
    kw = {"device_id": torch.device("cuda", LOCAL_RANK)} if device_id else {}
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=seconds), **kw)
    return torch.device("cuda", LOCAL_RANK)


class MLP(nn.Module):
    def __init__(self, d_in=128, d=512, n_cls=10, p=0.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d), nn.GELU(), nn.Dropout(p), nn.Linear(d, d), nn.GELU(),
                                 nn.Dropout(p), nn.Linear(d, n_cls))

    def forward(self, x):
        return self.net(x)


def batch(dev, n=256, d_in=128, n_cls=10):
    x = torch.randn(n, d_in, device=dev)
    y = (x[:, :n_cls] * 3).argmax(-1)
    return x, y
'''

# ------------------------------------------------------------------ user code
AVG_GLOO = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    cpu_group = dist.new_group(backend="gloo")  # small CPU-side metrics
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(2):
        correct = total = 0
        for step in range(20):
            x, y = batch(dev)
            out = model(x)
            loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += (out.argmax(-1) == y).sum().item()
            total += y.numel()
        acc = torch.tensor([correct / total], dtype=torch.float64)
        dist.all_reduce(acc, op=dist.ReduceOp.AVG, group=cpu_group)
        log(f"epoch {epoch} loss {loss.item():.4f} train_acc {acc.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

MON_BARRIER = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(1, 31):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    # make sure every rank finished the epoch before rank 0 writes the checkpoint; report stragglers
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=30), wait_all_ranks=True)
    if RANK == 0:
        torch.save(model.module.state_dict(), "model.pt")
        log("saved model.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

PARAM_AVG = HEAD + r'''
# local SGD: every rank trains on its own, parameters averaged every 5 steps


def average_parameters(model):
    for p in model.parameters():
        dist.all_reduce(p, op=dist.ReduceOp.SUM)
        p /= WORLD


def main():
    dev = setup()
    torch.manual_seed(0)
    model = MLP().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(1, 21):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            average_parameters(model)
            log(f"step {step} loss {loss.item():.4f} (averaged)")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

LAZY_DDP = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


class Head(nn.Module):
    def __init__(self, n_cls=10):
        super().__init__()
        self.proj = nn.LazyLinear(256)   # input width depends on the feature extractor
        self.out = nn.Linear(256, n_cls)

    def forward(self, x):
        return self.out(F.relu(self.proj(x)))


def main():
    dev = setup()
    model = Head().to(dev)
    model = DDP(model, device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 21):
        x, y = batch(dev, d_in=96)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    log(f"done loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

ZERO_SAVE = HEAD + r'''
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP

CONSOLIDATE = @CONSOLIDATE@


def main():
    dev = setup()
    model = DDP(MLP(d=1024).to(dev), device_ids=[LOCAL_RANK])
    opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-3)
    log(f"ZeRO-1 optimizer, world {WORLD}")
    for epoch in range(2):
        for step in range(1, 26):
            x, y = batch(dev)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        log(f"epoch {epoch} loss {loss.item():.4f}")
        if CONSOLIDATE:
            opt.consolidate_state_dict(to=0)
        if RANK == 0:
            torch.save({"model": model.module.state_dict(), "optim": opt.state_dict(), "epoch": epoch},
                       f"ckpt_{epoch}.pt")
            log(f"saved ckpt_{epoch}.pt")
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

HOOK_TWICE = HEAD + r'''
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP


def wrap(model):
    ddp = DDP(model, device_ids=[LOCAL_RANK])
    ddp.register_comm_hook(None, default_hooks.bf16_compress_hook)   # halve gradient traffic
    return ddp


def main():
    dev = setup()
    model = wrap(MLP(d=1024).to(dev))
    if os.environ.get("COMPRESS_GRADS", "fp16") == "fp16":
        model.register_comm_hook(None, default_hooks.fp16_compress_hook)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 21):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    log(f"done loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

POWERSGD = HEAD + r'''
from torch.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powerSGD
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP(d=1024).to(dev), device_ids=[LOCAL_RANK])
    state = powerSGD.PowerSGDState(process_group=None, matrix_approximation_rank=2, start_powerSGD_iter=1)
    model.register_comm_hook(state, powerSGD.powerSGD_hook)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 41):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

COMPILE_MASK = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


class TokenDrop(nn.Module):
    """Keep only tokens with a large enough norm, then pool."""

    def __init__(self, d=256, n_cls=10):
        super().__init__()
        self.emb = nn.Linear(32, d)
        self.mix = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU())
        self.head = nn.Linear(d, n_cls)

    def forward(self, x):            # x: (B, T, 32)
        h = self.emb(x)
        keep = h.norm(dim=-1) > 1.0
        kept = h[keep]               # (N_kept, d)
        kept = self.mix(kept)
        pooled = kept.mean(0, keepdim=True).expand(x.shape[0], -1)
        return self.head(pooled + h.mean(1))


def main():
    dev = setup()
    model = TokenDrop().to(dev)
    model = torch.compile(model, fullgraph=True)
    model = DDP(model, device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 11):
        x = torch.randn(64, 48, 32, device=dev)
        y = torch.randint(0, 10, (64,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    log(f"done loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

BCE_AMP = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP(n_cls=5).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for step in range(1, 21):
        x = torch.randn(256, 128, device=dev)
        y = (x[:, :5] > 0).float()                      # multi-label targets
        with torch.autocast("cuda", dtype=torch.float16):
            probs = torch.sigmoid(model(x))
            loss = F.binary_cross_entropy(probs, y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

CKPT_DROPPATH = HEAD + r'''
import random

from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d, drop_path=0.3):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.drop_path = drop_path

    def forward(self, h):
        if self.training and random.random() < self.drop_path:   # stochastic depth
            return h
        return h + self.ff(self.norm(h))


class Net(nn.Module):
    def __init__(self, d=384, depth=8):
        super().__init__()
        self.inp = nn.Linear(128, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(depth))
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = checkpoint(blk, h, use_reentrant=False)
        return self.head(h)


def main():
    dev = setup()
    random.seed(1234 + RANK)
    model = DDP(Net().to(dev), device_ids=[LOCAL_RANK], find_unused_parameters=True)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    log("activation checkpointing: on (8 blocks), drop_path 0.3")
    for step in range(1, 31):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

FSDP1_SYNC = HEAD + r'''
import functools

from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy


def main():
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=600))
    model = MLP(d=2048)                     # built on CPU; rank 0 would load pretrained weights here
    if RANK == 0 and os.path.exists("pretrained.pt"):
        model.load_state_dict(torch.load("pretrained.pt"))
    model = FSDP(model, auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=100_000),
                 sync_module_states=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    dev = torch.device("cuda", LOCAL_RANK)
    for step in range(1, 21):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    log(f"done loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

SPAWN_ARGS = r'''
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def worker(rank, world_size):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "@PORT@")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    model = DDP(nn.Linear(128, 10).cuda(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(20):
        x = torch.randn(64, 128, device=rank)
        loss = F.cross_entropy(model(x), torch.randint(0, 10, (64,), device=rank))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"rank {rank}: loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    world_size = torch.cuda.device_count()
    print(f"spawning {world_size} processes", flush=True)
    mp.spawn(worker, args=@ARGS@, nprocs=world_size, join=True)
'''

AUTOCAST_DEV = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 21):
        x, y = batch(dev)
        with torch.autocast(device_type=str(dev), dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    log(f"done loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

DT_PARTIAL = HEAD + r'''
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Partial, Replicate, Shard, distribute_tensor


def main():
    setup()
    mesh = init_device_mesh("cuda", (WORLD,), mesh_dim_names=("tp",))
    w = distribute_tensor(torch.randn(1024, 1024), mesh, [Shard(0)])
    x = distribute_tensor(torch.randn(16, 1024), mesh, [Replicate()])
    y = x @ w.t()                                  # (16, 1024) sharded on dim 1
    log(f"y placements {y.placements}")
    # per-rank partial statistics, summed later
    stats = y.redistribute(mesh, [Partial()])
    log(f"stats {stats.full_tensor().sum().item():.3f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

CPU_METRIC = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(2):
        running = 0.0
        for step in range(1, 21):
            x, y = batch(dev)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
        mean_loss = torch.tensor(running / 20)
        dist.all_reduce(mean_loss)
        mean_loss /= WORLD
        log(f"epoch {epoch} mean loss {mean_loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

SCALER_NO_SCALE = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for step in range(1, 21):
        x, y = batch(dev)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

# ------------------------------------------------------------------ configuration
DDP_TRAIN = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    log(f"world {WORLD} device {torch.cuda.get_device_name(dev)}")
    model = DDP(MLP(d=1024).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    t = time.time()
    for step in range(1, 51):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 25 == 0:
            torch.cuda.synchronize()
            log(f"step {step} loss {loss.item():.4f} {1000 * (time.time() - t) / 25:.1f} ms/step")
            t = time.time()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

MALLOC_HIST = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    if os.environ.get("MEMORY_SNAPSHOT", "0") == "1":
        torch.cuda.memory._record_memory_history(max_entries=100_000)
    model = DDP(MLP(d=2048).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 21):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if os.environ.get("MEMORY_SNAPSHOT", "0") == "1":
        torch.cuda.memory._dump_snapshot(f"mem_rank{RANK}.pickle")
    log(f"done loss {loss.item():.4f} peak {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

CFG_TRAIN = HEAD + r'''
import argparse

from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile-backend", default="inductor")
    ap.add_argument("--amp-dtype", default="bfloat16")
    args = ap.parse_args()
    dev = setup()
    model = MLP(d=1024).to(dev)
    if args.compile_backend != "none":
        model = torch.compile(model, backend=args.compile_backend)
    model = DDP(model, device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    amp_dtype = getattr(torch, args.amp_dtype)
    t = time.time()
    for step in range(1, 41):
        x, y = batch(dev)
        with torch.autocast("cuda", dtype=amp_dtype):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            torch.cuda.synchronize()
            log(f"step {step} loss {loss.item():.4f} {1000 * (time.time() - t) / 20:.1f} ms/step")
            t = time.time()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

ALLREDUCE_BW = HEAD + r'''
def main():
    dev = setup()
    for mib in (16, 256):
        n = mib * 2**20 // 4
        t = torch.ones(n, device=dev)
        for _ in range(3):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        iters = 20
        t0 = time.time()
        for _ in range(iters):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        dt = (time.time() - t0) / iters
        busbw = 2 * (WORLD - 1) / WORLD * n * 4 / dt / 1e9
        if RANK == 0:
            log(f"all_reduce {mib:4d} MiB: {dt * 1e3:8.2f} ms  busbw {busbw:7.1f} GB/s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

# ------------------------------------------------------------------ words (timed against a baseline)
F64_UTILS = r'''
import torch

# numerics helpers shared with the evaluation notebooks
torch.set_default_dtype(torch.float64)


def count_params(model):
    return sum(p.numel() for p in model.parameters())
'''
PLAIN_UTILS = r'''
import torch


def count_params(model):
    return sum(p.numel() for p in model.parameters())
'''
SINGLE_TRAIN = r'''
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from utils import count_params

PROFILE = @PROFILE@


def main():
    dev = torch.device("cuda")
    torch.set_float32_matmul_precision("high")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(),
                          nn.Linear(4096, 1024), nn.GELU(), nn.Linear(1024, 100)).to(dev)
    print(f"params {count_params(model) / 1e6:.1f}M", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    prof = None
    if PROFILE:
        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                  torch.profiler.ProfilerActivity.CUDA],
                                      record_shapes=True, profile_memory=True, with_stack=True)
        prof.start()
    t = time.time()
    for step in range(1, 201):
        x = torch.randn(2048, 1024, device=dev)
        y = torch.randint(0, 100, (2048,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            torch.cuda.synchronize()
            print(f"step {step} loss {loss.item():.4f} {1000 * (time.time() - t) / 50:.1f} ms/step "
                  f"mem {torch.cuda.memory_allocated() / 2**20:.0f} MiB", flush=True)
            t = time.time()
    if prof is not None:
        prof.stop()
    print("done", flush=True)


if __name__ == "__main__":
    main()
'''

BIG_BUFFER = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(MLP):
    def __init__(self):
        super().__init__(d=1024)
        # running feature statistics for the drift monitor (128M floats)
        self.register_buffer("feat_hist", torch.zeros(128 * 2**20))

    def forward(self, x):
        return super().forward(x)


def main():
    dev = setup()
    model = DDP(Net().to(dev), device_ids=[LOCAL_RANK]@DDPKW@)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    t = time.time()
    for step in range(1, 101):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 25 == 0:
            torch.cuda.synchronize()
            log(f"step {step} loss {loss.item():.4f} {1000 * (time.time() - t) / 25:.1f} ms/step")
            t = time.time()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

FSDP1_CLIP = HEAD + r'''
import functools

from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy


def main():
    dev = setup()
    torch.manual_seed(0)
    model = FSDP(MLP(d=1024).to(dev),
                 auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=100_000),
                 device_id=dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    torch.manual_seed(RANK)
    for step in range(1, 31):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f} grad_norm {gnorm.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

SAMPLER_SEED = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    dev = setup()
    g = torch.Generator().manual_seed(0)
    xs = torch.randn(4096, 128, generator=g)
    ys = (xs[:, :10] * 3).argmax(-1)
    ds = TensorDataset(torch.arange(4096), xs, ys)
    sampler = DistributedSampler(ds, shuffle=True, seed=RANK)   # different shuffles per rank
    loader = DataLoader(ds, batch_size=256, sampler=sampler)
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        seen = []
        for idx, x, y in loader:
            seen.append(idx)
            loss = F.cross_entropy(model(x.to(dev)), y.to(dev))
            opt.zero_grad()
            loss.backward()
            opt.step()
        seen = torch.cat(seen).to(dev)
        gathered = [torch.empty_like(seen) for _ in range(WORLD)]
        dist.all_gather(gathered, seen)
        uniq = torch.cat(gathered).unique().numel()
        log(f"epoch {epoch} loss {loss.item():.4f} samples this rank {seen.numel()} "
            f"distinct samples all ranks {uniq} of {len(ds)}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

EVAL_MODE = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def evaluate(model, dev):
    model.eval()
    tot = 0.0
    with torch.no_grad():
        for _ in range(5):
            x, y = batch(dev)
            tot += F.cross_entropy(model(x), y).item()
    return tot / 5


def main():
    dev = setup()
    torch.manual_seed(0)
    model = DDP(MLP(d=1024, p=0.5).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    torch.manual_seed(RANK)
    for step in range(1, 121):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} train_loss {loss.item():.4f}")
        if step % 40 == 0:
            log(f"step {step} val_loss {evaluate(model, dev):.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

REDUCE_VAL = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    torch.manual_seed(0)
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    torch.manual_seed(RANK)
    for epoch in range(3):
        for step in range(20):
            x, y = batch(dev)
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            x, y = batch(dev, n=1024)
            val = F.cross_entropy(model(x), y)
        dist.reduce(val, dst=0, op=dist.ReduceOp.SUM)
        val = val / WORLD
        log(f"epoch {epoch} val_loss {val.item():.4f}")
        if val.item() < 0.05:
            log("early stop")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

# ------------------------------------------------------------------ healthy
FIND_UNUSED = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK], find_unused_parameters=True)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 41):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

OLD_AMP = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP(d=1024).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for step in range(1, 41):
        x, y = batch(dev)
        with torch.cuda.amp.autocast():
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale():.0f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

FSDP1_FROZEN = HEAD + r'''
import functools

from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import ModuleWrapPolicy


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.frozen = nn.Linear(d, d)      # pretrained projection, kept fixed
        self.adapter = nn.Linear(d, d)     # trained

    def forward(self, h):
        return h + self.adapter(F.gelu(self.frozen(h)))


class Net(nn.Module):
    def __init__(self, d=1024, depth=4):
        super().__init__()
        self.inp = nn.Linear(128, d)
        self.blocks = nn.Sequential(*[Block(d) for _ in range(depth)])
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        return self.head(self.blocks(self.inp(x)))


def main():
    dev = setup()
    net = Net()
    for blk in net.blocks:
        blk.frozen.requires_grad_(False)
    model = FSDP(net, auto_wrap_policy=ModuleWrapPolicy({Block}), device_id=dev, use_orig_params=True)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    for step in range(1, 31):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

NO_DEVID_BARRIER = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group("nccl")
    dev = torch.device("cuda", LOCAL_RANK)
    if RANK == 0:
        log("preparing data cache")
        time.sleep(2)
    dist.barrier()
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 31):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.barrier()
    log("finished")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

COMPILE_DDP = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    model = DDP(MLP(d=2048).to(dev), device_ids=[LOCAL_RANK], bucket_cap_mb=4)
    model = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    t = time.time()
    for step in range(1, 31):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step in (1, 30):
            torch.cuda.synchronize()
            log(f"step {step} loss {loss.item():.4f} elapsed {time.time() - t:.1f}s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

# ------------------------------------------------------------------ second call
MANY_LAYERS = r"""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

FOREACH = @FOREACH@


class Net(nn.Module):
    def __init__(self, d=256, depth=96):
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d)) for _ in range(depth))
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        for layer in self.layers:
            x = x + F.gelu(layer(x))
        return self.head(x)


def main():
    dev = torch.device("cuda")
    torch.manual_seed(0)
    model = Net().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.05, foreach=FOREACH)
    t = time.time()
    for step in range(1, 201):
        x = torch.randn(64, 256, device=dev)
        y = torch.randint(0, 10, (64,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            torch.cuda.synchronize()
            print(f"step {step} loss {loss.item():.4f} {1000 * (time.time() - t) / 50:.1f} ms/step", flush=True)
            t = time.time()
    print("done", flush=True)


if __name__ == "__main__":
    main()
"""

ELASTIC_RECORD = HEAD + r"""
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP


@record
def main():
    dev = setup()
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 21):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    shard = torch.load(f"data/shard_{RANK:03d}.pt")
    log(f"loaded {len(shard)}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
"""

PARAM_CPU = HEAD + r"""
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(MLP):
    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.tensor(1.0))

    def forward(self, x):
        return super().forward(x) / self.temperature


def main():
    dev = setup()
    model = Net()
    model.net.to(dev)                       # the backbone; temperature is a plain scalar
    model = DDP(model, device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(1, 21):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    log(f"done loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
"""

GRAD_PENALTY = HEAD + r"""
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup()
    critic = DDP(MLP(n_cls=1).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
    for step in range(1, 21):
        real = torch.randn(128, 128, device=dev) + 1
        fake = torch.randn(128, 128, device=dev)
        eps = torch.rand(128, 1, device=dev)
        mix = (eps * real + (1 - eps) * fake).requires_grad_(True)
        grads = torch.autograd.grad(critic(mix).sum(), mix, create_graph=True)[0]
        gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
        loss = critic(fake).mean() - critic(real).mean() + 10 * gp
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            log(f"step {step} loss {loss.item():.4f} gp {gp.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
"""


def tr(port, extra=""):
    return " ".join(("torchrun --nproc-per-node 2 --master-port %d %s train.py" % (port, extra)).split())


W = {"NCCL_DEBUG": "WARN"}
G0 = {"CUDA_VISIBLE_DEVICES": "0"}
G1 = {"CUDA_VISIBLE_DEVICES": "1"}


def scenarios():
    sc = {
        # timed: 2-GPU sequential (alone on the machine), then single-GPU pairs (case GPU0, baseline GPU1)
        "w_ddp_big_buffer": dict(prog={"train.py": BIG_BUFFER.replace("@DDPKW@", "")}, cmd=tr(29901), env=W,
                                 limit=60, seq=True),
        "base_ddp_big_buffer": dict(prog={"train.py": BIG_BUFFER.replace("@DDPKW@", ", broadcast_buffers=False")},
                                    cmd=tr(29902), env=W, limit=60, seq=True),
        "w_nccl_proto_ll": dict(prog={"train.py": ALLREDUCE_BW}, cmd=tr(29903),
                                env={"NCCL_PROTO": "LL", "NCCL_DEBUG": "WARN"}, limit=60, seq=True),
        "base_nccl_proto_ll": dict(prog={"train.py": ALLREDUCE_BW}, cmd=tr(29904), env=W, limit=60, seq=True),
        "w_default_dtype_f64": dict(prog={"train.py": SINGLE_TRAIN.replace("@PROFILE@", "False"),
                                          "utils.py": F64_UTILS}, cmd="python train.py", env=G0, limit=120,
                                    pair="base_default_dtype_f64"),
        "base_default_dtype_f64": dict(prog={"train.py": SINGLE_TRAIN.replace("@PROFILE@", "False"),
                                             "utils.py": PLAIN_UTILS}, cmd="python train.py", env=G1, limit=120,
                                       paired=True),
        "w_profiler_left_on": dict(prog={"train.py": SINGLE_TRAIN.replace("@PROFILE@", "True"),
                                         "utils.py": PLAIN_UTILS}, cmd="python train.py", env=G0, limit=120,
                                   pair="base_profiler_left_on"),
        "base_profiler_left_on": dict(prog={"train.py": SINGLE_TRAIN.replace("@PROFILE@", "False"),
                                            "utils.py": PLAIN_UTILS}, cmd="python train.py", env=G1, limit=120,
                                      paired=True),
        # words, not timed
        "w_fsdp1_local_clip": dict(prog={"train.py": FSDP1_CLIP}, cmd=tr(29905), env=W, limit=75),
        "w_sampler_seed_rank": dict(prog={"train.py": SAMPLER_SEED}, cmd=tr(29906), env=W, limit=60),
        "w_eval_mode_not_restored": dict(prog={"train.py": EVAL_MODE}, cmd=tr(29907), env=W, limit=60),
        "w_reduce_non_dst": dict(prog={"train.py": REDUCE_VAL}, cmd=tr(29908), env=W, limit=60),
        # user code
        "avg_on_gloo_group": dict(prog={"train.py": AVG_GLOO}, cmd=tr(29911), env=W, limit=60),
        "monitored_barrier_nccl": dict(prog={"train.py": MON_BARRIER}, cmd=tr(29912), env=W, limit=60),
        "allreduce_param_leaf": dict(prog={"train.py": PARAM_AVG}, cmd=tr(29913), env=W, limit=60),
        "ddp_lazy_linear": dict(prog={"train.py": LAZY_DDP}, cmd=tr(29914), env=W, limit=60),
        "zero_state_dict_unconsolidated": dict(prog={"train.py": ZERO_SAVE.replace("@CONSOLIDATE@", "False")},
                                               cmd=tr(29915), env=W, limit=60),
        "comm_hook_twice": dict(prog={"train.py": HOOK_TWICE}, cmd=tr(29916), env=W, limit=60),
        "powersgd_start_iter_1": dict(prog={"train.py": POWERSGD}, cmd=tr(29917), env=W, limit=60),
        "compile_bool_mask_fullgraph": dict(prog={"train.py": COMPILE_MASK}, cmd=tr(29918), env=W, limit=120),
        "bce_under_fp16_autocast": dict(prog={"train.py": BCE_AMP}, cmd=tr(29919), env=W, limit=60),
        "ckpt_stochastic_depth_recompute": dict(prog={"train.py": CKPT_DROPPATH}, cmd=tr(29920), env=W, limit=60),
        "fsdp1_sync_states_cpu_model": dict(prog={"train.py": FSDP1_SYNC}, cmd=tr(29921), env=W, limit=60),
        "mp_spawn_args_not_tuple": dict(prog={"train.py": SPAWN_ARGS.replace("@PORT@", "29922")
                                              .replace("@ARGS@", "(world_size)")},
                                        cmd="python train.py", env={}, limit=60),
        "autocast_device_type_with_index": dict(prog={"train.py": AUTOCAST_DEV}, cmd=tr(29923), env=W, limit=60),
        "dtensor_redistribute_partial": dict(prog={"train.py": DT_PARTIAL}, cmd=tr(29924), env=W, limit=60),
        "allreduce_cpu_tensor_nccl": dict(prog={"train.py": CPU_METRIC}, cmd=tr(29925), env=W, limit=60),
        "scaler_step_without_scale": dict(prog={"train.py": SCALER_NO_SCALE}, cmd=tr(29926), env=W, limit=60),
        # configuration
        "cvd_indices_absent": dict(prog={"train.py": DDP_TRAIN}, cmd=tr(29931),
                                   env=dict(W, CUDA_VISIBLE_DEVICES="2,3"), limit=60),
        "alloc_max_split_too_small": dict(prog={"train.py": DDP_TRAIN}, cmd=tr(29932),
                                          env=dict(W, PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:16"), limit=60),
        "nccl_socket_threads_over_64": dict(prog={"train.py": DDP_TRAIN}, cmd=tr(29933),
                                            env=dict(W, NCCL_P2P_DISABLE="1", NCCL_SHM_DISABLE="1",
                                                     NCCL_SOCKET_IFNAME="lo", NCCL_SOCKET_NTHREADS="16",
                                                     NCCL_NSOCKS_PERTHREAD="8"), limit=60),
        "nccl_mnnvl_forced": dict(prog={"train.py": DDP_TRAIN}, cmd=tr(29934),
                                  env=dict(W, NCCL_MNNVL_ENABLE="1"), limit=60),
        "torchrun_module_flag_py": dict(prog={"train.py": DDP_TRAIN},
                                        cmd="torchrun --nproc-per-node 2 --master-port 29935 -m train.py",
                                        env=W, limit=60),
        "torchrun_no_python_script": dict(prog={"train.py": DDP_TRAIN},
                                          cmd="torchrun --nproc-per-node 2 --master-port 29936 --no-python train.py",
                                          env=W, limit=60),
        "compile_backend_typo": dict(prog={"train.py": CFG_TRAIN}, cmd=tr(29937, "").replace(
            "train.py", "train.py --compile-backend inductr"), env=W, limit=90),
        "amp_dtype_float32": dict(prog={"train.py": CFG_TRAIN}, cmd=tr(29938).replace(
            "train.py", "train.py --compile-backend none --amp-dtype float32"), env=W, limit=60),
        "malloc_async_memory_history": dict(prog={"train.py": MALLOC_HIST}, cmd=tr(29939),
                                            env=dict(W, PYTORCH_CUDA_ALLOC_CONF="backend:cudaMallocAsync",
                                                     MEMORY_SNAPSHOT="1"), limit=60),
        # healthy
        "healthy_find_unused_all_used": dict(prog={"train.py": FIND_UNUSED}, cmd=tr(29941), env=W, limit=60),
        "healthy_cuda_amp_deprecated": dict(prog={"train.py": OLD_AMP}, cmd=tr(29942), env=W, limit=60),
        "healthy_fsdp1_frozen_orig_params": dict(prog={"train.py": FSDP1_FROZEN}, cmd=tr(29943), env=W, limit=75),
        "healthy_barrier_no_device_id": dict(prog={"train.py": NO_DEVID_BARRIER}, cmd=tr(29944), env=W, limit=60),
        "healthy_zero_consolidated": dict(prog={"train.py": ZERO_SAVE.replace("@CONSOLIDATE@", "True")},
                                          cmd=tr(29945), env=W, limit=60),
        "healthy_compile_ddp": dict(prog={"train.py": COMPILE_DDP}, cmd=tr(29946), env=W, limit=150),
        "healthy_mp_spawn": dict(prog={"train.py": SPAWN_ARGS.replace("@PORT@", "29947")
                                       .replace("@ARGS@", "(world_size,)")},
                                 cmd="python train.py", env={"NCCL_DEBUG": "VERSION"}, limit=60),
        # second call
        "w_adamw_foreach_false": dict(prog={"train.py": MANY_LAYERS.replace("@FOREACH@", "False")},
                                      cmd="python train.py", env=G0, limit=90, pair="base_adamw_foreach_false"),
        "base_adamw_foreach_false": dict(prog={"train.py": MANY_LAYERS.replace("@FOREACH@", "None")},
                                         cmd="python train.py", env=G1, limit=90, paired=True),
        "elastic_error_file_dir_missing": dict(prog={"train.py": ELASTIC_RECORD}, cmd=tr(29951),
                                               env=dict(W, TORCHELASTIC_ERROR_FILE="/scratch/runs/exp7/error.json"),
                                               limit=60),
        "torchrun_node_rank_1_of_1": dict(prog={"train.py": DDP_TRAIN}, cmd=tr(29952, "--nnodes 1 --node-rank 1"),
                                          env=W, limit=45),
        "alloc_expandable_with_async": dict(prog={"train.py": DDP_TRAIN}, cmd=tr(29953),
                                            env=dict(W, PYTORCH_CUDA_ALLOC_CONF=
                                                     "expandable_segments:True,backend:cudaMallocAsync"), limit=60),
        "ddp_param_left_on_cpu": dict(prog={"train.py": PARAM_CPU}, cmd=tr(29954), env=W, limit=60),
        "ddp_autograd_grad_penalty": dict(prog={"train.py": GRAD_PENALTY}, cmd=tr(29955), env=W, limit=60),
    }
    return sc


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
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
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
                    "torch.backends.cudnn.version())'" % PY),
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(torch|triton|numpy|nvidia-nccl)'" % PY),
        "python": sys.version.split()[0],
        "python_path": PY,
        "kernel": sh("uname -r"),
        "os": sh("grep PRETTY_NAME /etc/os-release"),
        "nproc": sh("nproc"),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTHONPATH", "PYTORCH"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p16out"
    os.makedirs(out, exist_ok=True)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
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
    par = sorted([n for n in want if not all_sc[n].get("seq") and not all_sc[n].get("pair")
                  and not all_sc[n].get("paired")], key=lambda n: -all_sc[n]["limit"])
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P16_JOBS", "12"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in par]
        for f in concurrent.futures.as_completed(futs):
            note(f.result())
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"facts": facts(), "base_dir": base, "wall_s": round(time.time() - T0, 1),
                   "scenarios": results}, f, indent=1)
    subprocess.run("cd %s && tar czf logs.tar.gz *.log && rm -f *.log" % out, shell=True)
    print("done in %.0f s" % (time.time() - T0), flush=True)


if __name__ == "__main__":
    main()
