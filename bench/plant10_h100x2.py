#!/usr/bin/env python3
"""P10: plant failures of kinds no earlier set planted (tensor parallel / DTensor, pipelining, DCP resume,
FP8 scaled_mm, CUDA streams + CSAN, NCCL NaN check, CUDA IPC, NVML from user code, allocator fragmentation,
memory fraction, gloo backend with CUDA FSDP2, slowdowns told in words) on a real 2x H100 machine; keep verbatim
logs for an independent held-out set for `gpudoctor explain` (issue 18). Made by the eval-p10 evaluator.

Each scenario's program(s) and config files go into a neutral job folder /tmp/p10-XXXX/jobNN/ (no case name in any
path, file or output); the shell command runs there under a wall-clock limit (process group killed at the limit);
stdout+stderr verbatim to $OUT/<name>.log; logs packed into $OUT/logs.tar.gz; $OUT/manifest.json holds command,
extra env, exit status, seconds and machine facts. NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NVSHMEM_DISABLE_NVLS=1 forced. No GPU setting is changed (nvidia-smi is used read-only).

    OUT=/tmp/out python3 plant10.py [NAMES]
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
HERE = os.path.dirname(os.path.abspath(__file__))
T_START = time.time()
START_BY_S = float(os.environ.get("P10_START_BY_S", "270"))
END_BY_S = float(os.environ.get("P10_END_BY_S", "330"))

COMMON_DIST = r'''
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist

RANK = int(os.environ.get("RANK", "0"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))


def log(msg):
    print(f"[rank{RANK}] {time.strftime('%H:%M:%S')} {msg}", flush=True)


def setup(backend="nccl", seconds=30):
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=seconds))
    return torch.device("cuda", LOCAL_RANK)
'''

# ------------------------------------------------------------------ tensor parallel
TP_TRAIN = COMMON_DIST + r'''
import argparse

import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module


class Attention(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(B, T, -1))


class MLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w1 = nn.Linear(dim, 4 * dim, bias=False)
        self.w2 = nn.Linear(4 * dim, dim, bias=False)

    def forward(self, x):
        return self.w2(F.gelu(self.w1(x)))


class Block(nn.Module):
    def __init__(self, dim, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, n_heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab, dim, n_heads, n_layers):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim, n_heads) for _ in range(n_layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx)
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="tp.yaml")
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    dev = setup(seconds=30)
    mesh = init_device_mesh("cuda", (cfg["parallel"]["dp"], cfg["parallel"]["tp"]), mesh_dim_names=("dp", "tp"))
    tp_mesh = mesh[cfg["parallel"].get("tp_dim_name", "tp")]
    torch.manual_seed(0)
    m = cfg["model"]
    model = GPT(m["vocab"], m["dim"], m["n_heads"], m["n_layers"]).to(dev)
    for blk in model.blocks:
        parallelize_module(blk, tp_mesh, {
            "attn.wq": ColwiseParallel(), "attn.wk": ColwiseParallel(), "attn.wv": ColwiseParallel(),
            "attn.wo": RowwiseParallel(),
            "mlp.w1": ColwiseParallel(), "mlp.w2": RowwiseParallel(),
        })
        @@HEADS@@
    n_params = sum(p.numel() for p in model.parameters())
    log(f"model ready: {n_params/1e6:.1f}M params, tp={tp_mesh.size()} mesh={mesh}")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, @@FOREACH@@)
    g = torch.Generator(device="cpu").manual_seed(1234)
    t0 = time.time()
    for step in range(1, cfg["train"]["steps"] + 1):
        idx = torch.randint(0, m["vocab"], (cfg["train"]["batch"], cfg["train"]["seq"] + 1), generator=g).to(dev)
        logits = model(idx[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1).float(), idx[:, 1:].flatten())
        loss.backward()
        @@CLIP@@
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step % 5 == 0 and RANK == 0:
            log(f"step {step} loss {loss.item():.4f} ({(time.time()-t0)/step*1000:.0f} ms/step)")
    log("training done")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

TP_YAML = '''# 1 node x 2 GPUs, pure tensor parallel
parallel:
  dp: 1
  tp: 2
@@DIMNAME@@
model:
  vocab: 8192
  dim: 512
  n_heads: 8
  n_layers: 4
train:
  steps: 20
  batch: 8
  seq: 256
'''


def tp_prog(heads=True, foreach=False, clip=False):
    p = TP_TRAIN.replace("@@HEADS@@", "blk.attn.n_heads //= tp_mesh.size()  # heads are sharded across TP ranks"
                         if heads else "pass")
    p = p.replace("@@FOREACH@@", "foreach=False" if not foreach else "weight_decay=0.1")
    p = p.replace("@@CLIP@@", "torch.nn.utils.clip_grad_norm_(model.parameters(), cfg['train'].get('clip', 1.0))"
                  if clip else "pass")
    return p


def tp_yaml(dimname=None):
    return TP_YAML.replace("@@DIMNAME@@", ("  tp_dim_name: %s" % dimname) if dimname else "")


# ------------------------------------------------------------------ pipeline parallel
PP_TRAIN = COMMON_DIST + r'''
import argparse

import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.distributed.pipelining import PipelineStage
from torch.distributed.pipelining.schedules import get_schedule_class


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.ln(x))


class Stage0(nn.Module):
    def __init__(self, vocab, dim, n):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.blocks = nn.Sequential(*[Block(dim) for _ in range(n)])

    def forward(self, idx):
        return self.blocks(self.tok(idx))


class Stage1(nn.Module):
    def __init__(self, vocab, dim, n):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(dim) for _ in range(n)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, h):
        return self.head(self.norm(self.blocks(h)))


def loss_fn(logits, target):
    return F.cross_entropy(logits.flatten(0, 1), target.flatten())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="pp.yaml")
    cfg = yaml.safe_load(open(ap.parse_args().config))
    dev = setup(seconds=25)
    m, t = cfg["model"], cfg["train"]
    torch.manual_seed(RANK)
    n_mb = t["microbatches"]
    mb = t["batch"] // n_mb
    if RANK == 0:
        mod = Stage0(m["vocab"], m["dim"], m["layers_per_stage"]).to(dev)
        example = (torch.zeros(mb, t["seq"], dtype=torch.long, device=dev),)
    else:
        mod = Stage1(m["vocab"], m["dim"], m["layers_per_stage"]).to(dev)
        example = (@@STAGE1_EXAMPLE@@)
    stage = PipelineStage(mod, stage_index=RANK, num_stages=WORLD, device=dev, input_args=example)
    schedule = get_schedule_class(t.get("schedule", "GPipe"))(stage, n_microbatches=n_mb, loss_fn=loss_fn)
    opt = torch.optim.AdamW(mod.parameters(), lr=3e-4)
    log(f"stage {RANK}/{WORLD}: {sum(p.numel() for p in mod.parameters())/1e6:.1f}M params, "
        f"batch {t['batch']} in {n_mb} microbatches, schedule {t.get('schedule', 'GPipe')}")
    g = torch.Generator().manual_seed(7)
    t0 = time.time()
    for step in range(1, t["steps"] + 1):
        idx = torch.randint(0, m["vocab"], (t["batch"], t["seq"] + 1), generator=g).to(dev)
        if RANK == 0:
            schedule.step(idx[:, :-1].contiguous())
        else:
            losses = []
            schedule.step(target=idx[:, 1:].contiguous(), losses=losses)
        opt.step()
        opt.zero_grad(set_to_none=True)
        if RANK == WORLD - 1 and step % 5 == 0:
            log(f"step {step} loss {torch.stack(losses).mean().item():.4f} ({(time.time()-t0)/step*1000:.0f} ms/step)")
    log("done")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

PP_YAML = '''model:
  vocab: 8192
  dim: 512
  layers_per_stage: 2
train:
  steps: 20
  batch: @@BATCH@@
  microbatches: 4
  seq: 128
'''


def pp_prog(stage1_example_full_batch=False):
    ex = ("torch.zeros(t['batch'], t['seq'], m['dim'], device=dev),)  # activations coming from stage 0"
          if stage1_example_full_batch else
          "torch.zeros(mb, t['seq'], m['dim'], device=dev),)  # one microbatch of stage-0 activations")
    return PP_TRAIN.replace("@@STAGE1_EXAMPLE@@", ex)


# ------------------------------------------------------------------ DCP save / resume
DCP_TRAIN = COMMON_DIST + r'''
import argparse
import json

import torch.distributed.checkpoint as dcp
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict


def build(cfg):
    layers = []
    d = cfg["in_dim"]
    for _ in range(cfg["depth"]):
        layers += [nn.Linear(d, cfg["hidden"]), nn.ReLU()]
        d = cfg["hidden"]
    layers.append(nn.Linear(d, cfg["classes"]))
    return nn.Sequential(*layers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--steps", type=int, default=30)
    args = ap.parse_args()
    cfg = json.load(open(args.config))
    dev = setup(seconds=30)
    model = build(cfg).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    start = 0
    if args.resume:
        model_sd, optim_sd = get_state_dict(model, opt)
        state = {"model": model_sd, "optim": optim_sd, "step": 0}
        ckpt = os.path.join(args.ckpt_dir, "latest")
        log(f"resuming from {ckpt}")
        dcp.load(state, checkpoint_id=ckpt)
        set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
        start = state["step"]
        log(f"resumed at step {start}")
    g = torch.Generator().manual_seed(RANK)
    for step in range(start + 1, start + args.steps + 1):
        x = torch.randn(64, cfg["in_dim"], generator=g).to(dev)
        y = torch.randint(0, cfg["classes"], (64,), generator=g).to(dev)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
        opt.step()
        opt.zero_grad()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    if not args.resume:
        ckpt = os.path.join(args.ckpt_dir, "latest")
        model_sd, optim_sd = get_state_dict(model, opt)
        dcp.save({"model": model_sd, "optim": optim_sd, "step": start + args.steps}, checkpoint_id=ckpt)
        log(f"saved checkpoint to {ckpt}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

DCP_EXPORT = r'''
"""turn the sharded training checkpoint into one file for the inference team"""
import argparse
import os

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.format_utils import dcp_to_torch_save

ap = argparse.ArgumentParser()
ap.add_argument("ckpt")
ap.add_argument("out")
a = ap.parse_args()
print(f"converting {a.ckpt} -> {a.out}", flush=True)
dcp_to_torch_save(a.ckpt, a.out)
sd = torch.load(a.out, weights_only=False)
print("keys:", sorted(sd.keys()), "step:", sd.get("step"), flush=True)
model_sd = sd["model"]
state = {"model": {k: torch.empty_like(v) for k, v in model_sd.items()}}
dcp.load(state, checkpoint_id=a.ckpt)
same = all(torch.equal(state["model"][k], model_sd[k]) for k in model_sd)
print(f"{len(model_sd)} tensors, {sum(v.numel() for v in model_sd.values())/1e6:.2f}M params, "
      f"single-process load matches: {same}", flush=True)
'''

# ------------------------------------------------------------------ FP8 scaled_mm inference
FP8_SERVE = r'''
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

E4M3_MAX = torch.finfo(torch.float8_e4m3fn).max


def to_fp8(t):
    scale = E4M3_MAX / t.abs().amax().clamp(min=1e-12).float()
    return (t.float() * scale).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scale.reciprocal()


class FP8Linear(nn.Module):
    """weights kept in fp8 with a per-tensor scale; activations quantized on the fly"""
    def __init__(self, lin):
        super().__init__()
        w8, ws = to_fp8(lin.weight.data)
        self.register_buffer("w8", w8)          # (out, in), row-major
        self.register_buffer("w_scale", ws)

    def forward(self, x):
        shp = x.shape
        x8, xs = to_fp8(x.reshape(-1, shp[-1]))
        y = torch._scaled_mm(x8, self.w8.t(), scale_a=xs, scale_b=self.w_scale, out_dtype=torch.bfloat16)
        return y.view(*shp[:-1], -1)


class SwiGLU(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


def ffn_hidden(dim, multiple_of):
    hidden = int(2 * (4 * dim) / 3)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def swap_fp8(mod):
    for name, ch in mod.named_children():
        if isinstance(ch, nn.Linear):
            setattr(mod, name, FP8Linear(ch))
        else:
            swap_fp8(ch)


ap = argparse.ArgumentParser()
ap.add_argument("--dim", type=int, default=1024)
ap.add_argument("--layers", type=int, default=8)
ap.add_argument("--multiple-of", type=int, default=256)
a = ap.parse_args()
torch.manual_seed(0)
hidden = ffn_hidden(a.dim, a.multiple_of)
print(f"torch {torch.__version__} on {torch.cuda.get_device_name()} (sm_{''.join(map(str, torch.cuda.get_device_capability()))})")
print(f"building {a.layers} SwiGLU blocks dim={a.dim} hidden={hidden}", flush=True)
model = nn.Sequential(*[SwiGLU(a.dim, hidden) for _ in range(a.layers)]).cuda().to(torch.bfloat16)
x = torch.randn(16, 512, a.dim, device="cuda", dtype=torch.bfloat16)
with torch.no_grad():
    ref = model(x)
    swap_fp8(model)
    print("converted Linear layers to FP8 (e4m3, per-tensor scales)", flush=True)
    out = model(x)
    torch.cuda.synchronize()
    t0 = time.time()
    for _ in range(20):
        out = model(x)
    torch.cuda.synchronize()
rel = ((out.float() - ref.float()).norm() / ref.float().norm()).item()
print(f"fp8 forward: {(time.time()-t0)/20*1000:.2f} ms/iter, rel. error vs bf16 {rel:.3e}", flush=True)
'''

# ------------------------------------------------------------------ two towers on a side stream
TWO_TOWER = r'''
import argparse
import time

import torch
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--batches", type=int, default=30)
a = ap.parse_args()
torch.manual_seed(0)
dev = torch.device("cuda")


def tower():
    return nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 2048), nn.GELU(), nn.Linear(2048, 256))


query_tower, doc_tower = tower().to(dev).eval(), tower().to(dev).eval()
side = torch.cuda.Stream()
print("overlapping query and doc towers on two CUDA streams", flush=True)
cpu_q = torch.randn(a.batches, 1024, 512).pin_memory()
cpu_d = torch.randn(a.batches, 1024, 512).pin_memory()
scores = []
t0 = time.time()
with torch.no_grad():
    for i in range(a.batches):
        q = cpu_q[i].to(dev, non_blocking=True)
        d = cpu_d[i].to(dev, non_blocking=True)
        with torch.cuda.stream(side):
            dv = doc_tower(d)            # runs concurrently with the query tower
        qv = query_tower(q)
        torch.cuda.current_stream().wait_stream(side)
        scores.append((qv * dv).sum(-1).mean())
torch.cuda.synchronize()
print(f"{a.batches} batches in {(time.time()-t0)*1000:.0f} ms, mean score {torch.stack(scores).mean().item():.5f}",
      flush=True)
'''

# ------------------------------------------------------------------ NCCL NaN check with DDP
DDP_NAN = COMMON_DIST + r'''
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class PoissonHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU())
        self.rate = nn.Linear(256, 1)

    def forward(self, x):
        return self.rate(self.body(x)).squeeze(-1)


def main():
    dev = setup(seconds=30)
    torch.manual_seed(0)
    model = DDP(PoissonHead().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(RANK)
    log(f"TORCH_NCCL_NAN_CHECK={os.environ.get('TORCH_NCCL_NAN_CHECK')}")
    for step in range(1, 41):
        x = torch.randn(256, 64, generator=g).to(dev)
        counts = torch.poisson(torch.full((256,), 3.0), generator=g).to(dev)
        rate = @@RATE@@
        # negative log-likelihood of a Poisson model
        loss = (rate - counts * torch.log(rate)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} nll {loss.item():.4f}")
    log("done")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

# ------------------------------------------------------------------ CUDA IPC prefetch worker
IPC_PREFETCH = r'''
import time

import torch
import torch.multiprocessing as mp


def prefetch_worker(q, n):
    torch.cuda.set_device(0)
    for i in range(n):
        batch = torch.randn(64, 3, 224, 224, device="cuda")   # decode + augment on the GPU
        q.put((i, batch))
    print(f"prefetch worker: queued {n} batches, exiting", flush=True)


def main():
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    n = 8
    w = ctx.Process(target=prefetch_worker, args=(q, n))
    w.start()
    w.join()
    print(f"worker exited with code {w.exitcode}", flush=True)
    model = torch.nn.Conv2d(3, 16, 3).cuda()
    for _ in range(n):
        i, batch = q.get(timeout=30)
        out = model(batch)
        print(f"batch {i}: {tuple(out.shape)} mean {out.mean().item():.4f}", flush=True)


if __name__ == "__main__":
    main()
'''

# ------------------------------------------------------------------ NVML from a training callback
NVML_MON = r'''
import argparse
import time

import torch
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=40)
ap.add_argument("--monitor", default="pynvml", choices=["pynvml", "torch"])
a = ap.parse_args()


class GPUStats:
    """logs utilization / memory / power / fan / temperature every N steps"""
    def __init__(self, idx=0):
        import pynvml
        self.nv = pynvml
        pynvml.nvmlInit()
        self.h = pynvml.nvmlDeviceGetHandleByIndex(idx)
        print(f"NVML driver {pynvml.nvmlSystemGetDriverVersion()}, device {pynvml.nvmlDeviceGetName(self.h)}",
              flush=True)

    def read(self):
        nv, h = self.nv, self.h
        util = nv.nvmlDeviceGetUtilizationRates(h)
        mem = nv.nvmlDeviceGetMemoryInfo(h)
        @@READ@@
        return dict(util=util.gpu, mem_gb=round(mem.used / 2**30, 2), power_w=round(power, 1), fan=fan, temp=temp)


class TorchStats:
    def read(self):
        return dict(util=torch.cuda.utilization(), mem_gb=round(torch.cuda.memory_reserved() / 2**30, 2),
                    temp=torch.cuda.temperature(), power_w=torch.cuda.power_draw() / 1000)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4096, 4096), nn.GELU(), nn.Linear(4096, 4096)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
stats = GPUStats() if a.monitor == "pynvml" else TorchStats()
print(f"training {a.steps} steps", flush=True)
for step in range(1, a.steps + 1):
    x = torch.randn(1024, 4096, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 10 == 0:
        torch.cuda.synchronize()
        print(f"step {step} loss {loss.item():.5f} gpu {stats.read()}", flush=True)
print("done", flush=True)
'''

NVML_READ_STRICT = '''power = nv.nvmlDeviceGetPowerUsage(h) / 1000
        fan = nv.nvmlDeviceGetFanSpeed(h)
        temp = nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)'''
NVML_READ_SAFE = '''power = nv.nvmlDeviceGetPowerUsage(h) / 1000
        try:
            fan = nv.nvmlDeviceGetFanSpeed(h)
        except nv.NVMLError as e:   # passively cooled data-center boards have no fan
            fan = f"N/A ({e.__class__.__name__})"
        temp = nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)'''

# ------------------------------------------------------------------ allocator: fragmentation / fraction
EMB_CACHE = r'''
import time

import torch
import torch.nn as nn

torch.manual_seed(0)
dev = torch.device("cuda")
free, total = torch.cuda.mem_get_info()
print(f"GPU: {torch.cuda.get_device_name()} {total/2**30:.1f} GiB total, {free/2**30:.1f} GiB free", flush=True)

# phase 1: one big scoring pass over the corpus (largest activation of the job)
enc = nn.Sequential(nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 1024)).to(dev).half()
rows = int((free - 3 * 2**30) / (1024 * 2))
print(f"phase 1: scoring {rows} rows in one pass", flush=True)
with torch.no_grad():
    big = torch.empty(rows, 1024, device=dev, dtype=torch.half)
    big.normal_()
    s = big[:4096] @ big[:4096].T
    del big, s
print(f"phase 1 done; allocated {torch.cuda.memory_allocated()/2**30:.2f} GiB, "
      f"reserved {torch.cuda.memory_reserved()/2**30:.2f} GiB", flush=True)

# phase 2: embed every shard of the corpus, then keep the better half
cache = []
shard_rows = 128 * 1024
with torch.no_grad():
    while torch.cuda.memory_reserved() - torch.cuda.memory_allocated() > 4 * shard_rows * 1024 * 2:
        cache.append(enc(torch.randn(shard_rows, 1024, device=dev, dtype=torch.half)))
    print(f"phase 2: embedded {len(cache)} shards; allocated {torch.cuda.memory_allocated()/2**30:.2f} GiB, "
          f"reserved {torch.cuda.memory_reserved()/2**30:.2f} GiB", flush=True)
    quality = torch.stack([torch.linalg.vector_norm(e, dim=-1, dtype=torch.float32).mean() for e in cache])
    keep = (quality >= quality.median()).tolist()
    cache = [e for e, k in zip(cache, keep) if k]
print(f"filter: kept {len(cache)} shards; allocated {torch.cuda.memory_allocated()/2**30:.2f} GiB, "
      f"reserved {torch.cuda.memory_reserved()/2**30:.2f} GiB", flush=True)

# phase 3: score a block of queries against every kept shard
q = torch.randn(16384, 1024, device=dev, dtype=torch.half)
best = []
with torch.no_grad():
    for i, shard in enumerate(cache):
        best.append((q @ shard.T).amax(dim=-1))
print("done", torch.stack(best).shape, flush=True)
'''

FRACTION_TRAIN = r'''
import argparse
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="run.json")
cfg = json.load(open(ap.parse_args().config))
# share the GPU with the evaluation server on the same node
torch.cuda.set_per_process_memory_fraction(cfg["gpu_memory_fraction"], 0)
print(f"config: {cfg}", flush=True)
torch.manual_seed(0)
dev = torch.device("cuda")
layers = []
for _ in range(cfg["layers"]):
    layers += [nn.Linear(cfg["width"], cfg["width"]), nn.GELU()]
model = nn.Sequential(*layers, nn.Linear(cfg["width"], 1000)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
print(f"{sum(p.numel() for p in model.parameters())/1e6:.0f}M params", flush=True)
for step in range(1, 21):
    x = torch.randn(cfg["batch"], cfg["width"], device=dev)
    y = torch.randint(0, 1000, (cfg["batch"],), device=dev)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f} max mem {torch.cuda.max_memory_allocated()/2**30:.2f} GiB",
              flush=True)
'''

# ------------------------------------------------------------------ FSDP2 with a backend from config
FSDP_TRAIN = COMMON_DIST + r'''
import argparse

import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.distributed.fsdp import fully_shard


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="train.yaml")
    cfg = yaml.safe_load(open(ap.parse_args().config))
    dev = setup(backend=cfg["dist"]["backend"], seconds=30)
    log(f"process group up: backend={dist.get_backend()} world={WORLD}")
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024))
                            for _ in range(4)]).to(dev)
    for blk in model:
        fully_shard(blk)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    t0 = time.time()
    for step in range(1, 21):
        x = torch.randn(32, 1024, device=dev)
        loss = F.mse_loss(model(x), x)
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 5 == 0:
            log(f"step {step} loss {loss.item():.4f} ({(time.time()-t0)/step*1000:.0f} ms/step)")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

DCP_ASYNC = COMMON_DIST + r'''
import torch.distributed.checkpoint as dcp
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import get_state_dict
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dev = setup(seconds=30)
    torch.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    pending = None
    for step in range(1, 41):
        x = torch.randn(64, 1024, device=dev)
        loss = F.mse_loss(model(x), x)
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
            if pending is not None:
                pending.result()          # previous checkpoint must be on disk before the next one starts
            model_sd, optim_sd = get_state_dict(model, opt)
            pending = dcp.async_save({"model": model_sd, "optim": optim_sd, "step": step},
                                     checkpoint_id=f"checkpoints/step_{step:06d}")
            log(f"checkpoint step_{step:06d} scheduled (async)")
    if pending is not None:
        pending.result()
    log("done")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
'''

IPC_PREFETCH_OK = r'''
import time

import torch
import torch.multiprocessing as mp


def prefetch_worker(q, done, n):
    torch.cuda.set_device(0)
    for i in range(n):
        batch = torch.randn(64, 3, 224, 224, device="cuda")   # decode + augment on the GPU
        q.put((i, batch))
    print(f"prefetch worker: queued {n} batches", flush=True)
    done.wait()          # keep our CUDA tensors alive until the consumer is finished


def main():
    ctx = mp.get_context("spawn")
    q, done = ctx.Queue(), ctx.Event()
    n = 8
    w = ctx.Process(target=prefetch_worker, args=(q, done, n))
    w.start()
    model = torch.nn.Conv2d(3, 16, 3).cuda()
    for _ in range(n):
        i, batch = q.get(timeout=60)
        out = model(batch)
        print(f"batch {i}: {tuple(out.shape)} mean {out.mean().item():.4f}", flush=True)
        del batch
    done.set()
    w.join()
    print(f"worker exited with code {w.exitcode}", flush=True)


if __name__ == "__main__":
    main()
'''

# ------------------------------------------------------------------ words: throughput scripts
BENCH_TRAIN = r'''
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=60)
ap.add_argument("--compile", action="store_true")
ap.add_argument("--fp32", action="store_true")
a = ap.parse_args()
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.manual_seed(0)
dev = torch.device("cuda")
model = nn.Sequential(*[nn.Sequential(nn.Linear(4096, 4096), nn.GELU()) for _ in range(8)], nn.Linear(4096, 10)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
step_fn = model
if a.compile:
    print("compiling model with torch.compile()", flush=True)
    step_fn = torch.compile(model)
print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, tf32 matmul allowed: "
      f"{torch.backends.cuda.matmul.allow_tf32}", flush=True)
t0 = time.time()
for step in range(1, a.steps + 1):
    x = torch.randn(2048, 4096, device=dev)
    y = torch.randint(0, 10, (2048,), device=dev)
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=not a.fp32):
        loss = F.cross_entropy(step_fn(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if step == 10:
        torch.cuda.synchronize()
        t0 = time.time()
    if step % 10 == 0 and step > 10:
        torch.cuda.synchronize()
        dt = (time.time() - t0) / (step - 10)
        print(f"step {step} loss {loss.item():.4f} {dt*1000:.1f} ms/step {2048/dt:.0f} samples/s", flush=True)
'''

CONV_TRAIN = r'''
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=60)
ap.add_argument("--workers", type=int, default=0)
ap.add_argument("--no-benchmark", action="store_true")
a = ap.parse_args()
torch.backends.cudnn.benchmark = not a.no_benchmark
torch.manual_seed(0)


class Scans(torch.utils.data.Dataset):
    """variable-size scans, resized to the nearest 32 px keeping aspect ratio"""
    def __len__(self):
        return 10**6

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        h = 32 * int(torch.randint(8, 20, (1,), generator=g))
        w = 32 * int(torch.randint(8, 20, (1,), generator=g))
        return torch.randn(3, h, w, generator=g), int(torch.randint(0, 10, (1,), generator=g))


def collate(items):
    # one batch = one image size (bucketed by the sampler upstream)
    h, w = items[0][0].shape[1:]
    return torch.stack([F.interpolate(x[None], size=(h, w))[0] for x, _ in items]), torch.tensor([y for _, y in items])


net = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                    nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
                    nn.Conv2d(128, 256, 3, stride=2, padding=1), nn.BatchNorm2d(256), nn.ReLU(),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10)).cuda().to(memory_format=torch.channels_last)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
dl = torch.utils.data.DataLoader(Scans(), batch_size=32, collate_fn=collate, num_workers=a.workers)
print(f"cudnn {torch.backends.cudnn.version()} benchmark={torch.backends.cudnn.benchmark}, workers={a.workers}", flush=True)
t0 = time.time()
for step, (x, y) in enumerate(dl, 1):
    x = x.cuda(non_blocking=True).to(memory_format=torch.channels_last)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(net(x), y.cuda())
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 10 == 0:
        torch.cuda.synchronize()
        print(f"step {step} loss {loss.item():.3f} shape {tuple(x.shape[2:])} {(time.time()-t0)/step*1000:.0f} ms/step",
              flush=True)
    if step >= a.steps:
        break
'''

LOADER_TRAIN = r'''
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=40)
ap.add_argument("--num-workers", type=int, default=0)
a = ap.parse_args()


class Augmented(torch.utils.data.Dataset):
    def __len__(self):
        return 10**6

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(3, 256, 256, generator=g)
        # augmentation pipeline on the CPU (blur + colour jitter + random crop)
        k = torch.ones(3, 1, 5, 5) / 25
        img = F.conv2d(img[None], k, padding=2, groups=3)[0]
        img = (img * (0.8 + 0.4 * torch.rand(3, 1, 1, generator=g))).clamp(0, 1)
        y0, x0 = torch.randint(0, 32, (2,), generator=g).tolist()
        return img[:, y0:y0 + 224, x0:x0 + 224], i % 1000


torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3), nn.ReLU(), nn.Conv2d(64, 128, 3, 2, 1), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 1000)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
dl = torch.utils.data.DataLoader(Augmented(), batch_size=128, shuffle=True, num_workers=a.num_workers,
                                 pin_memory=True)
print(f"DataLoader(batch_size=128, num_workers={a.num_workers}, pin_memory=True)", flush=True)
t0 = time.time()
for step, (x, y) in enumerate(dl, 1):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = F.cross_entropy(model(x.cuda(non_blocking=True)), y.cuda(non_blocking=True))
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.3f} {128*step/(time.time()-t0):.0f} img/s", flush=True)
    if step >= a.steps:
        break
'''


def tr(port, prog, args="", nproc=2):
    return "torchrun --nproc-per-node %d --master-port %d %s %s" % (nproc, port, prog, args)


NVML_PATH = "@NVML@"


def scenarios():
    W = {"NCCL_DEBUG": "WARN"}
    S = {}
    sc = {
        "nccl_nan_check_log_negative": dict(prog={"train_counts.py": DDP_NAN.replace("@@RATE@@", "model(x)")},
                                            cmd=tr(29731, "train_counts.py"), env=dict(W, TORCH_NCCL_NAN_CHECK="1"),
                                            limit=60),
        "pp_stage_example_full_batch": dict(prog={"train_pp.py": pp_prog(True), "pp.yaml": PP_YAML.replace("@@BATCH@@", "32")},
                                            cmd=tr(29732, "train_pp.py"), env=W, limit=60),
        "healthy_pp_gpipe": dict(prog={"train_pp.py": pp_prog(False), "pp.yaml": PP_YAML.replace("@@BATCH@@", "32")},
                                 cmd=tr(29733, "train_pp.py"), env=W, limit=60),
        "pp_1f1b_one_microbatch": dict(prog={"train_pp.py": pp_prog(False),
                                             "pp.yaml": PP_YAML.replace("@@BATCH@@", "8").replace(
                                                 "microbatches: 4", "microbatches: 1\n  schedule: 1F1B")},
                                       cmd=tr(29734, "train_pp.py"), env=W, limit=60),
        "dcp_async_save_nccl_only": dict(prog={"train_ckpt.py": DCP_ASYNC}, cmd=tr(29735, "train_ckpt.py"), env=W,
                                         limit=60),
        "ipc_expandable_segments": dict(prog={"prefetch.py": IPC_PREFETCH_OK}, cmd="python prefetch.py",
                                        env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, limit=60),
        "w_fsdp2_gloo_backend": dict(prog={"train_fsdp.py": FSDP_TRAIN,
                                           "train.yaml": "dist:\n  backend: gloo   # same file as the CPU smoke test\n"},
                                     cmd=tr(29736, "train_fsdp.py"), env=W, limit=60),
        "base_fsdp2_nccl_backend": dict(prog={"train_fsdp.py": FSDP_TRAIN, "train.yaml": "dist:\n  backend: nccl\n"},
                                        cmd=tr(29737, "train_fsdp.py"), env=W, limit=60),
    }
    return sc


def run_one(name, sc, jobdir, out):
    os.makedirs(jobdir, exist_ok=True)
    files = dict(sc.get("prog", {}))
    for fn, text in files.items():
        with open(os.path.join(jobdir, fn), "w") as f:
            f.write(text.lstrip("\n"))
    env_add = {k: v.replace("@NVML@", os.path.join(HERE, "nvml")) for k, v in sc["env"].items()}
    cmd = sc["cmd"]
    rec = {"name": name, "cmd": cmd, "env": env_add, "jobdir": jobdir, "files": sorted(files)}
    if time.time() - T_START > START_BY_S:
        rec.update(rc="not started (time)", seconds=0)
        return rec
    limit = int(min(sc["limit"], max(5, END_BY_S - (time.time() - T_START))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
    t0 = time.time()
    rec["start_utc"] = time.strftime("%H:%M:%S", time.gmtime())
    with open(os.path.join(out, name + ".log"), "wb") as log:
        proc = subprocess.Popen(cmd, shell=True, executable="/bin/bash", cwd=jobdir, stdout=log,
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
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(torch|triton|numpy|pyyaml|nvidia-ml|pynvml|nvidia-nccl)'" % PY),
        "python": sys.version.split()[0],
        "python_path": PY,
        "kernel": sh("uname -r"),
        "nproc": sh("nproc"),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTHONPATH", "PYTORCH"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p10out"
    os.makedirs(out, exist_ok=True)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
    os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
    base = tempfile.mkdtemp(prefix="p10-")
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    results = []
    excl = [n for n in want if all_sc[n].get("exclusive")]
    bench = [n for n in want if all_sc[n].get("bench")]
    rest = sorted([n for n in want if n not in excl and n not in bench], key=lambda n: -all_sc[n]["limit"])
    idx = {n: i for i, n in enumerate(list(all_sc))}

    def note(r):
        results.append(r)
        print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)

    for n in excl:   # needs a whole GPU to itself: run before the others
        note(run_one(n, all_sc[n], os.path.join(base, "job%02d" % idx[n]), out))
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P10_JOBS", "10"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], os.path.join(base, "job%02d" % idx[k]), out) for k in rest]
        for f in concurrent.futures.as_completed(futs):
            note(f.result())
    # throughput cases last, a pair at a time: the case on GPU 0, its baseline on GPU 1, started together
    words = [n for n in bench if n.startswith("w_")]
    for w in words:
        b = "base_" + w[2:]
        pair = [w] + ([b] if b in bench else [])
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            futs = [pool.submit(run_one, k, all_sc[k], os.path.join(base, "job%02d" % idx[k]), out) for k in pair]
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
