#!/usr/bin/env python3
"""P13: plant failures of kinds no earlier set planted (DDP + reentrant checkpoint on a shared layer, freezing
mid-training under DDP, SyncBatchNorm in rank-0-only validation, uneven all_gather, Flight Recorder dump +
analyzer, ReduceOp.BAND on NCCL, CUBLAS_WORKSPACE_CONFIG typo, blocking-wait timeout, NCCL_BUFFSIZE /
NCCL_NTHREADS / nccl.conf channels, words cases measured against a baseline on the other GPU, healthy logs
that look scary) on a real 2x H100 machine; verbatim logs for an independent held-out set for
`gpudoctor explain` (issue 18). Made by the eval-p13 evaluator (harness after bench/plant10_h100x2.py).

Each scenario runs in a neutral job folder (no case name in any path, file or output) under a wall-clock limit
(process group killed at the limit); stdout+stderr verbatim to $OUT/<name>.log; logs packed into
$OUT/logs.tar.gz; $OUT/manifest.json holds command, env, exit status, seconds and machine facts.
NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1 forced.
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
T_START = time.time()
START_BY_S = float(os.environ.get("P13_START_BY_S", "200"))
END_BY_S = float(os.environ.get("P13_END_BY_S", "330"))

COMMON = r'''
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


def setup(seconds=1800):
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=seconds),
                            device_id=torch.device("cuda", LOCAL_RANK))
    return torch.device("cuda", LOCAL_RANK)
'''

# ---------------------------------------------------------------- usercode
UT_SHARED = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, h):
        return h + self.ff(self.norm(h))


class UniversalMLP(nn.Module):
    """One block applied `depth` times (weights shared across depth), activations recomputed in backward."""

    def __init__(self, d_in=64, d=512, depth=4, n_cls=10):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.block = Block(d)
        self.head = nn.Linear(d, n_cls)
        self.depth = depth

    def forward(self, x):
        h = self.inp(x)
        for _ in range(self.depth):
            h = checkpoint(self.block, h, use_reentrant=True)
        return self.head(h)


def main():
    dev = setup(60)
    torch.manual_seed(0)
    model = DDP(UniversalMLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    log(f"params={sum(p.numel() for p in model.parameters())/1e6:.2f}M depth=4 (shared) grad-ckpt=on")
    for step in range(1, 31):
        x = torch.randn(256, 64, device=dev)
        y = torch.randint(0, 10, (256,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

FREEZE_MID = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP

WARMUP_FULL_STEPS = 12


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(128, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU())
        self.head = nn.Linear(512, 20)

    def forward(self, x):
        return self.head(self.backbone(x))


def main():
    dev = setup(60)
    torch.manual_seed(0)
    model = DDP(Net().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(1, 41):
        if step == WARMUP_FULL_STEPS + 1:
            # stage 2: linear probing, keep the backbone fixed
            for p in model.module.backbone.parameters():
                p.requires_grad_(False)
            log("stage 2: backbone frozen, training head only")
        x = torch.randn(128, 128, device=dev)
        y = torch.randint(0, 20, (128,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 4 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

SYNCBN_VAL = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def make_model():
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def main():
    dev = setup(20)
    torch.manual_seed(0)
    model = nn.SyncBatchNorm.convert_sync_batchnorm(make_model()).to(dev)
    ddp = DDP(model, device_ids=[LOCAL_RANK])
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    val = [(torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,))) for _ in range(4)]
    for epoch in range(3):
        ddp.train()
        for step in range(20):
            x = torch.randn(64, 3, 32, 32, device=dev)
            y = torch.randint(0, 10, (64,), device=dev)
            loss = F.cross_entropy(ddp(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        log(f"epoch {epoch} train loss {loss.item():.4f}")
        if RANK == 0:
            correct = total = 0
            with torch.no_grad():
                for xb, yb in val:
                    pred = model(xb.to(dev)).argmax(1)
                    correct += (pred.cpu() == yb).sum().item()
                    total += yb.numel()
            log(f"epoch {epoch} val acc {correct / total:.4f}")
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

GATHER_UNEVEN = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP

N_VAL = 1001


def main():
    dev = setup(20)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 5)).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    for step in range(50):
        x = torch.randn(128, 32, device=dev)
        loss = F.cross_entropy(model(x), (x[:, 0] > 0).long())
        opt.zero_grad(); loss.backward(); opt.step()
    log(f"train done loss {loss.item():.4f}")
    g = torch.Generator().manual_seed(1)
    xs = torch.randn(N_VAL, 32, generator=g)
    # contiguous split of the validation set, no padding: rank 0 gets 501 samples, rank 1 gets 500
    idx = torch.tensor_split(torch.arange(N_VAL), WORLD)[RANK]
    model.eval()
    with torch.no_grad():
        preds = model(xs[idx].to(dev)).argmax(1)
    log(f"local predictions: {preds.numel()}")
    gathered = [torch.empty_like(preds) for _ in range(WORLD)]
    dist.all_gather(gathered, preds)
    allp = torch.cat(gathered)
    if RANK == 0:
        labels = (xs[:, 0] > 0).long().to(dev)
        log(f"gathered {allp.numel()} predictions")
        acc = (allp[:N_VAL] == labels).float().mean().item()
        log(f"val acc {acc:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

FR_RANK0 = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup(15)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 256)).to(dev),
                device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    tokens = 0
    for step in range(1, 21):
        x = torch.randn(64, 256, device=dev)
        loss = (model(x) - x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        tokens += x.shape[0]
        if step % 10 == 0 and RANK == 0:
            # log the global token count
            t = torch.tensor([tokens], device=dev)
            dist.all_reduce(t)
            log(f"step {step} loss {loss.item():.4f} tokens(global) {t.item()}")
    log("training done, gathering weights for the consolidated checkpoint")
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    out = torch.empty(WORLD * flat.numel(), device=dev)
    dist.all_gather_into_tensor(out, flat)
    torch.cuda.synchronize()
    if RANK == 0:
        torch.save(out.cpu(), "consolidated.pt")
        log("saved consolidated.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

BAND_STOP = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP

PATIENCE = 2


def main():
    dev = setup(60)
    torch.manual_seed(RANK)
    model = DDP(nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 1)).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    best, bad = float("inf"), 0
    for epoch in range(10):
        for _ in range(20):
            x = torch.randn(256, 16, device=dev)
            loss = F.mse_loss(model(x), x.sum(1, keepdim=True))
            opt.zero_grad(); loss.backward(); opt.step()
        with torch.no_grad():
            xv = torch.randn(512, 16, device=dev)
            vl = F.mse_loss(model(xv), xv.sum(1, keepdim=True)).item()
        bad = 0 if vl < best else bad + 1
        best = min(best, vl)
        log(f"epoch {epoch} val_loss {vl:.4f} patience {bad}/{PATIENCE}")
        # stop only when every rank agrees
        stop = torch.tensor([bad >= PATIENCE], dtype=torch.bool, device=dev)
        dist.all_reduce(stop, op=dist.ReduceOp.BAND)
        if stop.item():
            log("early stop")
            break
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

# ---------------------------------------------------------------- environment
DETERMINISTIC_TRAIN = COMMON + r'''
import random

from torch.nn.parallel import DistributedDataParallel as DDP


def seed_everything(seed):
    random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False


def main():
    dev = setup(60)
    seed_everything(1234)
    log(f"CUBLAS_WORKSPACE_CONFIG={os.environ.get('CUBLAS_WORKSPACE_CONFIG')}")
    model = DDP(nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512)).to(dev),
                device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    for step in range(1, 21):
        x = torch.randn(64, 512, device=dev)
        loss = (model(x) - x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.6f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

RUN_DET = r'''#!/bin/bash
# reproducible run: fixed seeds + deterministic cuBLAS
export CUBLAS_WORKSPACE_CONFIG=4096:8
export OMP_NUM_THREADS=4
exec torchrun --nproc-per-node 2 --master-port @PORT@ train.py
'''

BLOCKING_SAVE = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def upload_checkpoint(state, path):
    torch.save(state, path)
    # copy to the object store (slow link)
    t0 = time.time()
    while time.time() - t0 < 30:
        time.sleep(1)
    return time.time() - t0


def main():
    dev = setup(int(os.environ.get("PG_TIMEOUT_S", "1800")))
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 256)).to(dev),
                device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    for epoch in range(2):
        for step in range(30):
            x = torch.randn(128, 256, device=dev)
            loss = (model(x) - x).pow(2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
        log(f"epoch {epoch} loss {loss.item():.4f}")
        if RANK == 0:
            secs = upload_checkpoint({"model": model.module.state_dict(), "opt": opt.state_dict()},
                                     f"ckpt_epoch{epoch}.pt")
            log(f"checkpoint epoch {epoch} uploaded in {secs:.0f}s")
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

RUN_BLOCKING = r'''#!/bin/bash
# cluster defaults (copied from the team's launch template)
export TORCH_NCCL_BLOCKING_WAIT=1
export PG_TIMEOUT_S=15
export NCCL_DEBUG=WARN
exec torchrun --nproc-per-node 2 --master-port @PORT@ train.py
'''

ALLREDUCE_BENCH = COMMON + r'''
def main():
    dev = setup(60)
    sizes = [1 << 20, 16 << 20, 64 << 20, 256 << 20]
    for nbytes in sizes:
        t = torch.ones(nbytes // 4, device=dev)
        for _ in range(3):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        iters = 10
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        dt = (time.perf_counter() - t0) / iters
        busbw = nbytes / dt * 2 * (WORLD - 1) / WORLD / 1e9
        if RANK == 0:
            print(f"allreduce {nbytes >> 20:5d} MiB  {dt * 1e3:8.3f} ms  busbw {busbw:7.1f} GB/s", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

DDP_SMALL = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup(60)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).to(dev),
                device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    t0 = time.time()
    for step in range(1, 101):
        x = torch.randn(256, 1024, device=dev)
        loss = (model(x) - x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 25 == 0:
            torch.cuda.synchronize()
            log(f"step {step} loss {loss.item():.4f} {(time.time() - t0) / step * 1e3:.1f} ms/step")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

# ---------------------------------------------------------------- words
SCALER_SQRT = r'''
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedMLP(nn.Module):
    def __init__(self, d=256, n_cls=10):
        super().__init__()
        self.fc1 = nn.Linear(64, d)
        self.fc2 = nn.Linear(d, n_cls)
        self.gate = nn.Parameter(torch.zeros(d))   # learned feature gate, starts closed

    def forward(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h * torch.sigmoid(self.gate))

    def gate_penalty(self):
        return self.gate.pow(2).sum().sqrt()      # L2 norm of the gate


def main():
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = GatedMLP().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    t0 = time.time()
    for step in range(1, 121):
        x = torch.randn(512, 64, device=dev)
        y = (x[:, :10].argmax(1))
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x), y) + 1e-3 * model.gate_penalty()
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if step % 20 == 0:
            print(f"step {step:4d} | loss {loss.item():.4f} | scale {scaler.get_scale():.3e} | "
                  f"{(time.time() - t0) / step * 1e3:.1f} ms/it", flush=True)


if __name__ == "__main__":
    main()
'''

UNET_TRAIN = r'''
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import utils  # noqa: F401  (project helpers)


def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                         nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class SmallUNet(nn.Module):
    def __init__(self, c=32, n_cls=4):
        super().__init__()
        self.e1, self.e2, self.e3 = block(3, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.d2, self.d1 = block(6 * c, 2 * c), block(3 * c, c)
        self.out = nn.Conv2d(c, n_cls, 1)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(F.max_pool2d(a, 2))
        c = self.e3(F.max_pool2d(b, 2))
        d = self.d2(torch.cat([F.interpolate(c, scale_factor=2.0), b], 1))
        e = self.d1(torch.cat([F.interpolate(d, scale_factor=2.0), a], 1))
        return self.out(e)


def main():
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = SmallUNet().to(dev)
    opt = torch.optim.AdamW(model.parameters(), 1e-3)
    x = torch.randn(16, 3, 128, 128, device=dev)
    y = torch.randint(0, 4, (16, 128, 128), device=dev)
    t0 = time.time()
    for step in range(1, 61):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        @HOOK@
        if step % 20 == 0:
            torch.cuda.synchronize()
            print(f"[{time.strftime('%H:%M:%S')}] step {step} loss {loss.item():.4f} "
                  f"{(time.time() - t0) / step * 1e3:.1f} ms/step", flush=True)


if __name__ == "__main__":
    main()
'''

UTILS_ANOMALY = r'''
import torch

# debugging the NaN from last week
torch.autograd.set_detect_anomaly(True)
'''

UTILS_PLAIN = r'''
import torch
'''

EVAL_COPY = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup(60)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.Adam(model.parameters(), 3e-3)
    for epoch in range(3):
        model.train()
        for _ in range(30):
            x = torch.randn(256, 32, device=dev)
            loss = F.cross_entropy(model(x), x[:, :4].argmax(1))
            opt.zero_grad(); loss.backward(); opt.step()
        model.eval()
        g = torch.Generator().manual_seed(100 + RANK)
        correct = torch.zeros((), dtype=torch.long, device=dev)
        total = torch.zeros((), dtype=torch.long, device=dev)
        with torch.no_grad():
            for _ in range(5):
                xv = torch.randn(200, 32, generator=g).to(dev)
                correct += (model(xv).argmax(1) == xv[:, :4].argmax(1)).sum()
                total += xv.shape[0]
        dist.all_reduce(correct.float())
        dist.all_reduce(total.float())
        log(f"epoch {epoch} val acc (all ranks) {correct.item() / total.item():.4f}  n={total.item()}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

EVAL_PAD = COMMON + r'''
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    dist_on = WORLD > 1
    if dist_on:
        dev = setup(60)
    else:
        dev = torch.device("cuda")
    g = torch.Generator().manual_seed(7)
    x = torch.randn(1001, 16, generator=g)
    y = (x[:, 0] + 0.5 * torch.randn(1001, generator=g) > 0).long()
    ds = TensorDataset(x, y)
    sampler = DistributedSampler(ds, shuffle=False) if dist_on else None
    dl = DataLoader(ds, batch_size=100, sampler=sampler)
    w = torch.zeros(16, 2); w[0, 1] = 1.0; w[0, 0] = -1.0
    w = w.to(dev)
    correct = torch.zeros(2, device=dev)
    for xb, yb in dl:
        pred = (xb.to(dev) @ w).argmax(1)
        correct[0] += (pred == yb.to(dev)).sum()
        correct[1] += yb.numel()
    if dist_on:
        dist.all_reduce(correct)
    if RANK == 0:
        print(f"eval: {int(correct[1])} samples, accuracy {correct[0].item() / correct[1].item():.4f} "
              f"(world_size={WORLD})", flush=True)
    if dist_on:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

# ---------------------------------------------------------------- healthy
DET_WARN_ONLY = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


class Seg(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
                                 nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU())
        self.cls = nn.Conv2d(64, 6, 1)

    def forward(self, x):
        return F.interpolate(self.cls(self.enc(x)), size=x.shape[-2:], mode="bilinear", align_corners=False)


def main():
    dev = setup(60)
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True, warn_only=True)
    model = DDP(Seg().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(1, 31):
        x = torch.randn(8, 3, 128, 128, device=dev)
        y = torch.randint(0, 6, (8, 128, 128), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

MEM_SUMMARY = r'''
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = nn.TransformerEncoder(nn.TransformerEncoderLayer(512, 8, 2048, batch_first=True), 6).to(dev)
    opt = torch.optim.AdamW(model.parameters(), 1e-4)
    for step in range(1, 31):
        seq = 128 * (1 + step % 4)          # variable sequence lengths
        x = torch.randn(32, seq, 512, device=dev)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f} peak {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB",
                  flush=True)
    print(torch.cuda.memory_summary(abbreviated=False), flush=True)


if __name__ == "__main__":
    main()
'''

NO_DESTROY = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup(60)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 2)).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    for epoch in range(3):
        for _ in range(25):
            x = torch.randn(64, 128, device=dev)
            loss = F.cross_entropy(model(x), (x[:, 0] > 0).long())
            opt.zero_grad(); loss.backward(); opt.step()
        log(f"epoch {epoch} loss {loss.item():.4f}")
    if RANK == 0:
        torch.save(model.module.state_dict(), "final.pt")
        log("saved final.pt")
    log("done")


if __name__ == "__main__":
    main()
'''

COMPILE_RO = r'''
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 32, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(32)
        self.c2 = nn.Conv2d(32, 64, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(64)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.c1(x)))
        x = F.relu(self.bn2(self.c2(x)))
        return self.fc(x.mean((2, 3)))


def main():
    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = Net().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    cmodel = torch.compile(model, mode="reduce-overhead")
    t0 = time.time()
    for step in range(1, 41):
        x = torch.randn(64, 3, 32, 32, device=dev)
        y = torch.randint(0, 10, (64,), device=dev)
        loss = F.cross_entropy(cmodel(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f} elapsed {time.time() - t0:.1f}s", flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()
'''

CL_AFTER_WRAP = COMMON + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup(60)
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
                        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).to(dev)
    model = DDP(net, device_ids=[LOCAL_RANK])
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(1, 31):
        x = torch.randn(32, 3, 64, 64, device=dev).to(memory_format=torch.channels_last)
        y = torch.randint(0, 10, (32,), device=dev)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

CKPT_DEFAULT = COMMON + r"""
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, h):
        return h + self.mlp(self.ln(h))


class Deep(nn.Module):
    def __init__(self, d=512, n=6):
        super().__init__()
        self.inp = nn.Linear(64, d)
        self.layers = nn.ModuleList(Layer(d) for _ in range(n))
        self.out = nn.Linear(d, 10)

    def forward(self, x):
        h = self.inp(x)
        for layer in self.layers:
            h = checkpoint(layer, h)      # save activation memory
        return self.out(h)


def main():
    dev = setup(60)
    torch.manual_seed(0)
    model = DDP(Deep().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), 3e-4)
    for step in range(1, 21):
        x = torch.randn(128, 64, device=dev)
        loss = F.cross_entropy(model(x), x[:, :10].argmax(1))
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
"""

BARRIER_DEV0 = COMMON + r"""
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup(20)
    torch.manual_seed(0)
    if RANK == 0:
        log("preparing data cache")
        time.sleep(2)
    dist.barrier(device_ids=[0])
    log("data ready")
    model = DDP(nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 4)).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    for step in range(1, 21):
        x = torch.randn(128, 64, device=dev)
        loss = F.cross_entropy(model(x), x[:, :4].argmax(1))
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.barrier(device_ids=[0])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
"""


def tr(port, prog="train.py", nproc=2):
    return "torchrun --nproc-per-node %d --master-port %d %s" % (nproc, port, prog)


def scenarios():
    W = {"NCCL_DEBUG": "WARN"}
    G0 = {"CUDA_VISIBLE_DEVICES": "0"}
    G1 = {"CUDA_VISIBLE_DEVICES": "1"}
    fr_cmd = ("mkdir -p fr && torchrun --nproc-per-node 2 --master-port 29815 train.py; "
              "echo; echo '$ torchfrtrace fr/ -p nccl_trace_rank_'; "
              "(command -v torchfrtrace >/dev/null && torchfrtrace fr/ -p nccl_trace_rank_) || "
              "python -m torch.distributed.flight_recorder.fr_trace fr/ -p nccl_trace_rank_")
    sc = {
        # usercode
        "ddp_reentrant_ckpt_shared_block": dict(prog={"train.py": UT_SHARED}, cmd=tr(29811), env=W, limit=60),
        "ddp_freeze_backbone_mid_training": dict(prog={"train.py": FREEZE_MID}, cmd=tr(29812), env=W, limit=60),
        "syncbn_rank0_val_train_mode": dict(prog={"train.py": SYNCBN_VAL}, cmd=tr(29813), env=W, limit=75),
        "all_gather_uneven_shards": dict(prog={"train.py": GATHER_UNEVEN}, cmd=tr(29814), env=W, limit=60),
        "fr_rank0_only_allreduce": dict(prog={"train.py": FR_RANK0}, cmd=fr_cmd,
                                        env=dict(W, TORCH_NCCL_TRACE_BUFFER_SIZE="2000",
                                                 TORCH_NCCL_DUMP_ON_TIMEOUT="1",
                                                 TORCH_NCCL_DEBUG_INFO_TEMP_FILE="@JOB@/fr/nccl_trace_rank_",
                                                 TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC="10000"),
                                        limit=120),
        "reduceop_band_nccl": dict(prog={"train.py": BAND_STOP}, cmd=tr(29816), env=W, limit=60),
        # environment
        "cublas_workspace_config_no_colon": dict(prog={"train.py": DETERMINISTIC_TRAIN,
                                                       "run.sh": RUN_DET.replace("@PORT@", "29817")},
                                                 cmd="bash run.sh", env={}, limit=60),
        "blocking_wait_timeout_15s": dict(prog={"train.py": BLOCKING_SAVE,
                                                "run.sh": RUN_BLOCKING.replace("@PORT@", "29818")},
                                          cmd="bash run.sh", env={}, limit=90),
        "nccl_buffsize_tiny": dict(prog={"train.py": DDP_SMALL}, cmd=tr(29819),
                                   env=dict(W, NCCL_BUFFSIZE="4096"), limit=60),
        "nccl_nthreads_1000": dict(prog={"train.py": DDP_SMALL}, cmd=tr(29820),
                                   env=dict(W, NCCL_NTHREADS="1000"), limit=60),
        "healthy_deterministic_warn_only": dict(prog={"train.py": DET_WARN_ONLY}, cmd=tr(29821),
                                                env=dict(W, CUBLAS_WORKSPACE_CONFIG=":4096:8"), limit=60),
        "healthy_memory_summary_expandable": dict(prog={"train.py": MEM_SUMMARY}, cmd="python train.py",
                                                  env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
                                                       "CUDA_VISIBLE_DEVICES": "1"}, limit=60),
        "healthy_no_destroy_pg": dict(prog={"train.py": NO_DESTROY}, cmd=tr(29822), env=W, limit=60),
        "healthy_compile_reduce_overhead_bn": dict(prog={"train.py": COMPILE_RO}, cmd="python train.py",
                                                   env={"TORCH_LOGS": "perf_hints", "CUDA_VISIBLE_DEVICES": "0"},
                                                   limit=150),
        "healthy_channels_last_after_wrap": dict(prog={"train.py": CL_AFTER_WRAP}, cmd=tr(29823), env=W, limit=60),
        "w_allreduce_on_float_copy": dict(prog={"train.py": EVAL_COPY}, cmd=tr(29824), env=W, limit=60),
        "ckpt_use_reentrant_unspecified": dict(prog={"train.py": CKPT_DEFAULT}, cmd=tr(29828), env=W, limit=60),
        "barrier_device_ids_zero": dict(prog={"train.py": BARRIER_DEV0}, cmd=tr(29829), env=W, limit=60),
        "nccl_shm_tiny_p2p_off": dict(prog={"train.py": DDP_SMALL},
                                      cmd="unshare -m bash -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec "
                                          + tr(29830) + "'",
                                      env=dict(W, NCCL_P2P_DISABLE="1"), limit=60),
        "nccl_topo_file_missing": dict(prog={"train.py": DDP_SMALL}, cmd=tr(29831),
                                       env=dict(W, NCCL_TOPO_FILE="/opt/nccl/topo/h100-2gpu.xml"), limit=60),
        "cvd_duplicate_zero": dict(prog={"train.py": DDP_SMALL}, cmd=tr(29832),
                                   env=dict(W, CUDA_VISIBLE_DEVICES="0,0"), limit=60),
        # second call: NCCL settings measured against the same benchmark without them
        "env_etc_nccl_conf_one_channel": dict(
            prog={"train.py": ALLREDUCE_BENCH},
            cmd=("if [ -e /etc/nccl.conf ]; then cp /etc/nccl.conf /tmp/nccl.conf.orig; fi; "
                 "printf 'NCCL_MAX_NCHANNELS=1\\n' >> /etc/nccl.conf; " + tr(29841)
                 + "; rc=$?; if [ -e /tmp/nccl.conf.orig ]; then mv /tmp/nccl.conf.orig /etc/nccl.conf; "
                 "else rm -f /etc/nccl.conf; fi; exit $rc"),
            env=dict(NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="ENV"), limit=60, seq=True),
        "env_nccl_buffsize_4096": dict(prog={"train.py": ALLREDUCE_BENCH}, cmd=tr(29842),
                                       env=dict(NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="ENV", NCCL_BUFFSIZE="4096"),
                                       limit=60, seq=True),
        "base_allreduce_bench": dict(prog={"train.py": ALLREDUCE_BENCH}, cmd=tr(29843),
                                     env=dict(NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="ENV"), limit=60, seq=True),
        "env_buffsize_ddp_steps": dict(prog={"train.py": DDP_SMALL}, cmd=tr(29844),
                                       env=dict(W, NCCL_BUFFSIZE="4096"), limit=60, seq=True),
        "base_buffsize_ddp_steps": dict(prog={"train.py": DDP_SMALL}, cmd=tr(29845), env=W, limit=60, seq=True),
        "env_pythonwarnings_error": dict(prog={"train.py": CKPT_DEFAULT}, cmd=tr(29846),
                                         env=dict(W, PYTHONWARNINGS="error"), limit=60),
        # exclusive pairs / sequential (timing)
        "w_nccl_conf_one_channel": dict(prog={"train.py": ALLREDUCE_BENCH,
                                              ".nccl.conf": "NCCL_MAX_NCHANNELS=1\nNCCL_MIN_NCHANNELS=1\n"},
                                        cmd=tr(29825), env=dict(NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="ENV",
                                                                HOME="@JOB@"), limit=60, seq=True),
        "base_nccl_conf_one_channel": dict(prog={"train.py": ALLREDUCE_BENCH}, cmd=tr(29826),
                                           env=dict(NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="ENV", HOME="@JOB@"),
                                           limit=60, seq=True),
        "w_eval_sampler_padding": dict(prog={"train.py": EVAL_PAD},
                                       cmd="python train.py; " + tr(29827), env=W, limit=60, seq=True),
        "w_scaler_skips_every_step": dict(prog={"train.py": SCALER_SQRT}, cmd="python train.py", env=G0,
                                          limit=60, seq=True),
        "w_anomaly_mode_left_on": dict(prog={"train.py": UNET_TRAIN.replace("@HOOK@", "pass"),
                                             "utils.py": UTILS_ANOMALY}, cmd="python train.py", env=G0,
                                       limit=90, pair="base_anomaly_mode_left_on"),
        "base_anomaly_mode_left_on": dict(prog={"train.py": UNET_TRAIN.replace("@HOOK@", "pass"),
                                                "utils.py": UTILS_PLAIN}, cmd="python train.py", env=G1,
                                          limit=90, paired=True),
        "w_empty_cache_every_step": dict(prog={"train.py": UNET_TRAIN.replace(
            "@HOOK@", "torch.cuda.empty_cache()  # keep memory low for the other job on this GPU"),
            "utils.py": UTILS_PLAIN}, cmd="python train.py", env=G0, limit=90, pair="base_empty_cache_every_step"),
        "base_empty_cache_every_step": dict(prog={"train.py": UNET_TRAIN.replace("@HOOK@", "pass"),
                                                  "utils.py": UTILS_PLAIN}, cmd="python train.py", env=G1,
                                            limit=90, paired=True),
    }
    return sc


def run_one(name, sc, jobdir, out):
    os.makedirs(jobdir, exist_ok=True)
    files = dict(sc.get("prog", {}))
    for fn, text in files.items():
        with open(os.path.join(jobdir, fn), "w") as f:
            f.write(text.lstrip("\n"))
    env_add = {k: v.replace("@JOB@", jobdir) for k, v in sc["env"].items()}
    cmd = sc["cmd"]
    rec = {"name": name, "cmd": cmd, "env": env_add, "jobdir": jobdir, "files": sorted(files)}
    if time.time() - T_START > START_BY_S:
        rec.update(rc="not started (time)", seconds=0)
        return rec
    limit = int(min(sc["limit"], max(5, END_BY_S - (time.time() - T_START))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
    t0 = time.time()
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
    rec.update(rc=rc, seconds=round(time.time() - t0, 1))
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
        "nvidia_smi": sh("nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version --format=csv,noheader"),
        "topo": sh("nvidia-smi topo -m"),
        "torch": sh("%s -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version(), "
                    "torch.backends.cudnn.version())'" % PY),
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(torch|triton|numpy|nvidia-nccl)'" % PY),
        "python": sys.version.split()[0],
        "python_path": PY,
        "kernel": sh("uname -r"),
        "nproc": sh("nproc"),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTHONPATH", "PYTORCH"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p13out"
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

    for n in want:   # timing-sensitive ones first, alone, or case on GPU 0 + baseline on GPU 1 together
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
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P13_JOBS", "16"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in par]
        for f in concurrent.futures.as_completed(futs):
            note(f.result())
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"facts": facts(), "base_dir": base, "wall_s": round(time.time() - T_START, 1),
                   "scenarios": results}, f, indent=1)
    subprocess.run("cd %s && tar czf logs.tar.gz *.log && rm -f *.log" % out, shell=True)
    print("done in %.0f s" % (time.time() - T_START), flush=True)


if __name__ == "__main__":
    main()
