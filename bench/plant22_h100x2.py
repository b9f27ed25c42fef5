#!/usr/bin/env python3
"""P22 (eval-p22): plant multi-GPU training failures of kinds no earlier set planted, on 2x H100.

Harness as bench/plant19_h100x2.py: each scenario runs in a neutral job folder (/tmp/job-XXXX/jobNN), under a
wall-clock limit (own session, process group SIGKILLed at the limit); stdout+stderr verbatim to $OUT/<name>.log,
packed into $OUT/logs.tar.gz; $OUT/manifest.json holds command, env, exit status, seconds and machine facts.
NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1 forced for every scenario.
XLA_PYTHON_CLIENT_PREALLOCATE=false is set for every scenario (so parallel JAX jobs don't take 75 % of a GPU),
except where a scenario's env removes it (value None).
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
START_BY_S = float(os.environ.get("P22_START_BY_S", "250"))
END_BY_S = float(os.environ.get("P22_END_BY_S", "320"))

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


def setup(seconds=600, device_id=True, backend="nccl"):
    torch.cuda.set_device(LOCAL_RANK)
    kw = {"device_id": torch.device("cuda", LOCAL_RANK)} if device_id else {}
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=seconds), **kw)
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

# ================================================================== user code
P_XMESH = HEAD + r'''
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import distribute_tensor, Shard, Replicate


def main():
    dev = setup(seconds=60)
    mesh = init_device_mesh("cuda", (1, WORLD), mesh_dim_names=("dp", "tp"))
    tp, dp = mesh["tp"], mesh["dp"]
    w = distribute_tensor(torch.randn(1024, 512, device=dev), tp, [Shard(0)])
    log(f"weight local {tuple(w.to_local().shape)} on {tp}")
    bias = distribute_tensor(torch.zeros(1024, 512, device=dev), dp, [Replicate()])
    out = w + bias
    log(f"out {tuple(out.shape)}")
    dist.destroy_process_group()


main()
'''

P_RPC_CUDA = HEAD + r'''
import torch.distributed.rpc as rpc


def score(t):
    return (t * 2).sum()


def main():
    torch.cuda.set_device(LOCAL_RANK)
    rpc.init_rpc(f"worker{RANK}", rank=RANK, world_size=WORLD)
    log("rpc up")
    if RANK == 0:
        feats = torch.randn(4096, 256, device="cuda:0")
        r = rpc.rpc_sync("worker1", score, args=(feats,))
        log(f"score {r.item():.3f}")
    rpc.shutdown()
    log("done")


main()
'''

P_RPC_OK = HEAD + r'''
import torch.distributed.rpc as rpc


def score(t):
    return (t * 2).sum()


def main():
    torch.cuda.set_device(LOCAL_RANK)
    opts = rpc.TensorPipeRpcBackendOptions(num_worker_threads=8, rpc_timeout=60)
    peer = 1 - RANK
    opts.set_device_map(f"worker{peer}", {LOCAL_RANK: peer})
    rpc.init_rpc(f"worker{RANK}", rank=RANK, world_size=WORLD, rpc_backend_options=opts)
    log("rpc up")
    if RANK == 0:
        for i in range(5):
            feats = torch.randn(4096, 256, device="cuda:0")
            r = rpc.rpc_sync("worker1", score, args=(feats,))
            log(f"call {i} score {r.item():.3f} on {r.device}")
    rpc.shutdown()
    log("done")


main()
'''

TRITON_SCALE = r'''
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * alpha, mask=m)


def scale(x, alpha, out, BLOCK):
    grid = (triton.cdiv(x.numel(), BLOCK),)
    scale_kernel[grid](x, out, x.numel(), alpha, BLOCK=BLOCK)
    return out
'''

P_TRITON_POW2 = TRITON_SCALE + r'''
hidden = 768
x = torch.randn(64, hidden, device="cuda")
out = torch.empty_like(x)
scale(x, 0.5, out, BLOCK=hidden)  # one program per row
print("ok", out.sum().item())
'''

P_TRITON_CPU = TRITON_SCALE + r'''
x = torch.randn(1 << 20, device="cuda")
out = torch.empty(x.shape)
scale(x, 0.5, out, BLOCK=1024)
print("ok", out.sum().item())
'''

TRITON_MM = r'''
import torch
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))
'''

P_TRITON_SMEM = TRITON_MM + r'''
M = N = K = 4096
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
BM, BN, BK = 256, 256, 128
grid = (M // BM, N // BN)
mm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                BM=BM, BN=BN, BK=BK, num_stages=4, num_warps=8)
print("max err", (c - a @ b).abs().max().item())
'''

P_TRITON_AUTOTUNE = r'''
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BM": 128, "BN": 128, "BK": 64}, num_stages=3, num_warps=8),
                          triton.Config({"BM": 64, "BN": 128, "BK": 32}, num_stages=4, num_warps=4),
                          triton.Config({"BM": 128, "BN": 64, "BK": 32}, num_stages=4, num_warps=4)],
                 key=["M", "N", "K"])
@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))


M = N = K = 4096
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))
mm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
print("best config:", mm_kernel.best_config)
ref = a @ b
print("max abs err vs torch:", (c.float() - ref.float()).abs().max().item())
ms = triton.testing.do_bench(lambda: mm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                      b.stride(1), c.stride(0), c.stride(1)))
print(f"triton mm {ms:.3f} ms, {2 * M * N * K / ms / 1e9:.1f} TFLOP/s")
'''

P_CUPY_DEV = r'''
import cupy as cp

print("cupy", cp.__version__, "devices", cp.cuda.runtime.getDeviceCount())
with cp.cuda.Device(0):
    emb = cp.random.rand(8192, 1024, dtype=cp.float32)
with cp.cuda.Device(1):
    proj = cp.random.rand(1024, 256, dtype=cp.float32)
    bias = cp.zeros(256, dtype=cp.float32)
    out = emb @ proj + bias
    print("out", out.shape, float(out.sum()))
'''

P_CUPY_NCCL_NOGROUP = r'''
import time
import cupy as cp
from cupy.cuda import nccl

devs = [0, 1]
comms = nccl.NcclCommunicator.initAll(devs)
print("nccl", nccl.get_version(), "comms", len(comms), flush=True)
bufs = []
for d in devs:
    with cp.cuda.Device(d):
        bufs.append(cp.full(1 << 22, d + 1, dtype=cp.float32))
for step in range(3):
    t = time.time()
    for d, c in zip(devs, comms):
        with cp.cuda.Device(d):
            b = bufs[d]
            c.allReduce(b.data.ptr, b.data.ptr, b.size, nccl.NCCL_FLOAT32, nccl.NCCL_SUM,
                        cp.cuda.Stream.null.ptr)
    for d in devs:
        with cp.cuda.Device(d):
            cp.cuda.Stream.null.synchronize()
    print(f"step {step} allreduce {time.time() - t:.3f}s value {float(bufs[0][0])}", flush=True)
'''

P_CUPY_NCCL_OK = r'''
import time
import cupy as cp
from cupy.cuda import nccl

devs = [0, 1]
comms = nccl.NcclCommunicator.initAll(devs)
print("nccl", nccl.get_version(), "comms", len(comms), flush=True)
bufs = []
for d in devs:
    with cp.cuda.Device(d):
        bufs.append(cp.full(1 << 24, 1.0, dtype=cp.float32))
for step in range(5):
    t = time.time()
    nccl.groupStart()
    for d, c in zip(devs, comms):
        with cp.cuda.Device(d):
            b = bufs[d]
            c.allReduce(b.data.ptr, b.data.ptr, b.size, nccl.NCCL_FLOAT32, nccl.NCCL_SUM,
                        cp.cuda.Stream.null.ptr)
    nccl.groupEnd()
    for d in devs:
        with cp.cuda.Device(d):
            cp.cuda.Stream.null.synchronize()
    print(f"step {step} allreduce {(time.time() - t) * 1e3:.2f} ms value {float(bufs[0][0])}", flush=True)
'''

JAX_HEAD = r'''
import os
import sys
import time

import numpy as np
import jax
import jax.numpy as jnp
'''

P_JAX_PMAP = JAX_HEAD + r'''
print("jax", jax.__version__, "devices", jax.devices())
n_cores = 8
x = jnp.arange(n_cores * 1024, dtype=jnp.float32).reshape(n_cores, 1024)
y = jax.pmap(lambda v: jax.lax.psum(v * 2.0, "i"), axis_name="i")(x)
print("y", y.shape)
'''

P_JAX_SHARD = JAX_HEAD + r'''
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("data",))
w = jax.device_put(jnp.zeros((512, 10)), NamedSharding(mesh, P()))


@jax.jit
def predict(w, x):
    return jnp.argmax(x @ w, axis=-1)


val_x = np.random.rand(1001, 512).astype(np.float32)
print("eval set", val_x.shape, "mesh", mesh.shape)
xs = jax.device_put(val_x, NamedSharding(mesh, P("data", None)))
print("pred", predict(w, xs).shape)
'''

P_JAX_INIT_LATE = JAX_HEAD + r'''
pid = int(sys.argv[1])
print(f"process {pid}: local GPUs {jax.devices()}", flush=True)
jax.distributed.initialize("127.0.0.1:23456", num_processes=2, process_id=pid, local_device_ids=[pid])
print(f"process {pid}: global devices {jax.devices()}", flush=True)
'''

P_JAX_MP_OK = JAX_HEAD + r'''
pid = int(sys.argv[1])
jax.distributed.initialize("127.0.0.1:23457", num_processes=2, process_id=pid, local_device_ids=[pid])
print(f"process {jax.process_index()}/{jax.process_count()} local {jax.local_devices()} global {jax.device_count()}",
      flush=True)
key = jax.random.PRNGKey(0)
w_true = jax.random.normal(key, (64,))


def loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


step = jax.pmap(lambda w, x, y: (lambda g: (w - 0.1 * jax.lax.pmean(g, "b"),
                                             jax.lax.pmean(loss(w, x, y), "b")))(jax.grad(loss)(w, x, y)),
                axis_name="b")
w = jnp.zeros((1, 64))
rng = np.random.default_rng(pid)
for i in range(50):
    x = rng.normal(size=(1, 256, 64)).astype(np.float32)
    y = np.asarray(x @ np.asarray(w_true))
    w, l = step(w, x, y)
    if i % 10 == 0:
        print(f"process {pid} step {i} loss {float(l[0]):.5f}", flush=True)
print(f"process {pid} done loss {float(l[0]):.6f}", flush=True)
jax.distributed.shutdown()
'''

P_JAX_TORCH_OOM = r'''
import jax
import jax.numpy as jnp
import numpy as np
import torch
import torch.nn as nn

print("jax", jax.__version__, jax.devices(), "torch", torch.__version__, flush=True)
# feature extraction in JAX
k = jax.random.PRNGKey(0)
feats = jax.random.normal(k, (8192, 4096)) @ jax.random.normal(k, (4096, 1024))
feats = np.asarray(feats)
print("features", feats.shape, flush=True)
# head training in PyTorch
x = torch.from_numpy(feats).cuda()
model = nn.Sequential(nn.Linear(1024, 40960), nn.ReLU(), nn.Linear(40960, 40960), nn.ReLU(), nn.Linear(40960, 10)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(5):
    loss = model(x[:512]).logsumexp(-1).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, loss.item(), flush=True)
'''

P_JAX_DIST_AUTO = JAX_HEAD + r'''
jax.distributed.initialize()
print(f"process {jax.process_index()} of {jax.process_count()}, devices {jax.devices()}")
'''

P_JAX_XLAFLAGS = JAX_HEAD + r'''
print("devices", jax.devices())
x = jnp.ones((4096, 4096))
print((x @ x).sum())
'''

P_JAX_RECOMPILE = JAX_HEAD + r'''
PAD = os.environ.get("PAD_TO")
print("devices", jax.devices(), flush=True)
key = jax.random.PRNGKey(0)
w = jax.random.normal(key, (256, 256)) * 0.05


@jax.jit
def step(w, x, y):
    def loss(w):
        return jnp.mean((jnp.tanh(x @ w) @ w - y) ** 2)
    l, g = jax.value_and_grad(loss)(w)
    return w - 1e-2 * g, l


rng = np.random.default_rng(0)
times = []
t_all = time.time()
for i in range(120):
    n = 480 + (i * 37) % 97  # variable-length batches (packed sequences)
    x = rng.normal(size=(n, 256)).astype(np.float32)
    if PAD:
        x = np.concatenate([x, np.zeros((int(PAD) - n, 256), np.float32)])
    t = time.time()
    w, l = step(w, x, x)
    l.block_until_ready()
    times.append(time.time() - t)
    if i % 20 == 0:
        print(f"step {i} batch {x.shape[0]} loss {float(l):.4f} step_time {times[-1] * 1e3:.1f} ms", flush=True)
print(f"120 steps in {time.time() - t_all:.2f} s, median step {np.median(times) * 1e3:.1f} ms, "
      f"mean step {np.mean(times) * 1e3:.1f} ms", flush=True)
'''

P_JAX_ALLOC = JAX_HEAD + r'''
print("devices", jax.devices(), flush=True)
key = jax.random.PRNGKey(0)
params = [jax.random.normal(jax.random.fold_in(key, i), (1024, 1024)) * 0.03 for i in range(8)]


@jax.jit
def step(params, x):
    def loss(ps):
        h = x
        for p in ps:
            h = jax.nn.gelu(h @ p)
        return jnp.mean(h ** 2)
    l, g = jax.value_and_grad(loss)(params)
    return [p - 1e-3 * gi for p, gi in zip(params, g)], l


x = jax.random.normal(key, (2048, 1024))
params, l = step(params, x)
l.block_until_ready()
t = time.time()
for i in range(300):
    params, l = step(params, x)
    if i % 100 == 0:
        print(f"step {i} loss {float(l):.5f}", flush=True)
l.block_until_ready()
dt = time.time() - t
print(f"300 steps {dt:.2f} s, {dt / 300 * 1e3:.2f} ms/step", flush=True)
'''

P_INDEX_PUT = HEAD + r'''
def main():
    dev = torch.device("cuda", 0)
    model = MLP(d_in=128, n_cls=64).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    bank = torch.zeros(50000, 64, device=dev)  # memory bank of embeddings, one row per sample
    for step in range(20):
        idx = torch.randint(0, 50000, (256,), device=dev)  # dataset indices of the batch
        x, _ = batch(dev, n_cls=64)
        with torch.autocast("cuda", dtype=torch.float16):
            emb = model(x)
            neg = bank[torch.randint(0, 50000, (1024,), device=dev)]
            loss = (emb @ neg.t()).logsumexp(-1).mean() - emb.pow(2).sum(-1).mean() * 1e-3
        opt.zero_grad(); loss.backward(); opt.step()
        with torch.no_grad():
            bank[idx] = emb.detach()
        if step % 5 == 0:
            log(f"step {step} loss {loss.item():.4f}")


main()
'''

P_NEWGROUP_SUBSET = HEAD + r'''
def main():
    dev = setup(seconds=30, device_id=False)
    log("init ok")
    if RANK == 0:
        log_group = dist.new_group([0])  # group for rank-0-only metric logging
        log("log group ready")
    from torch.nn.parallel import DistributedDataParallel as DDP
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


main()
'''

P_HF_DEVMAP = HEAD + r'''
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments


class Toks(torch.utils.data.Dataset):
    def __len__(self):
        return 256

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        ids = torch.randint(0, 1000, (64,), generator=g)
        return {"input_ids": ids, "labels": ids.clone()}


def main():
    if RANK == 0 and not os.path.exists("base-model/config.json"):
        GPT2LMHeadModel(GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=1000, n_positions=128)).save_pretrained("base-model")
    deadline = time.time() + 60
    while not os.path.exists("base-model/model.safetensors") and time.time() < deadline:
        time.sleep(0.5)
    time.sleep(1)
    model = GPT2LMHeadModel.from_pretrained("base-model", device_map="auto")
    log(f"device map {getattr(model, 'hf_device_map', None)}")
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, max_steps=10, logging_steps=5,
                             report_to=[], save_strategy="no")
    Trainer(model=model, args=args, train_dataset=Toks()).train()


main()
'''

LIT_HEAD = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl
from torch.utils.data import DataLoader, TensorDataset


class Lit(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(128, 512), nn.GELU(), nn.Linear(512, 10))

    def training_step(self, batch, i):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", F.cross_entropy(self.net(x), y))

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def data(n=4096):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 128, generator=g)
    y = (x[:, :10] * 3).argmax(-1)
    return TensorDataset(x, y)
'''

P_LIT_FORK = LIT_HEAD + r'''
if __name__ == "__main__":
    print("GPUs:", [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())])
    trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp_notebook", max_epochs=2,
                         enable_checkpointing=False, logger=False)
    trainer.fit(Lit(), DataLoader(data(), batch_size=128, shuffle=True))
'''

P_LIT_DEV4 = LIT_HEAD + r'''
if __name__ == "__main__":
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp", max_epochs=2, logger=False)
    trainer.fit(Lit(), DataLoader(data(), batch_size=128, shuffle=True))
'''

P_LIT_OK = LIT_HEAD + r'''
if __name__ == "__main__":
    pl.seed_everything(0)
    trainer = pl.Trainer(accelerator="gpu", devices=2, strategy="ddp", max_epochs=3, logger=False,
                         enable_checkpointing=False, log_every_n_steps=5)
    trainer.fit(Lit(), DataLoader(data(), batch_size=128, shuffle=True), DataLoader(data(512), batch_size=128))
    print("fit done, epoch", trainer.current_epoch, "loss", trainer.callback_metrics.get("train_loss"))
'''

P_EIGH_BF16 = HEAD + r'''
def main():
    dev = torch.device("cuda", 0)
    model = MLP(d=1024, n_cls=256).to(dev, dtype=torch.bfloat16)
    x, _ = batch(dev, n=4096)
    feats = model(x.bfloat16())
    feats = feats - feats.mean(0)
    cov = feats.t() @ feats / feats.shape[0]
    evals, evecs = torch.linalg.eigh(cov)  # ZCA whitening of the features
    log(f"top eigenvalue {evals[-1].item():.4f}")


main()
'''

P_FSDP2_TIED = HEAD + r'''
from torch.distributed.fsdp import fully_shard


class LM(nn.Module):
    def __init__(self, vocab=8000, d=512, n=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True) for _ in range(n))
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.emb.weight  # tied

    def forward(self, ids):
        h = self.emb(ids)
        for b in self.blocks:
            h = b(h)
        return self.head(h)


def main():
    dev = setup()
    model = LM().to(dev)
    fully_shard(model.emb)
    for b in model.blocks:
        fully_shard(b)
    fully_shard(model.head)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(5):
        ids = torch.randint(0, 8000, (8, 128), device=dev)
        loss = F.cross_entropy(model(ids).flatten(0, 1), ids.flatten())
        opt.zero_grad(); loss.backward(); opt.step()
        log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


main()
'''

P_CKPT_KWARGS = HEAD + r'''
from torch.utils.checkpoint import checkpoint
from torch.nn.parallel import DistributedDataParallel as DDP


class Block(nn.Module):
    def __init__(self, d=256):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x, key_padding_mask=None):
        h = self.n1(x)
        x = x + self.attn(h, h, h, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return x + self.ff(self.n2(x))


class Enc(nn.Module):
    def __init__(self, n=4, d=256):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(n))
        self.out = nn.Linear(d, 10)

    def forward(self, x, mask):
        for b in self.blocks:
            x = checkpoint(b, x, key_padding_mask=mask, use_reentrant=True)
        return self.out(x.mean(1))


def main():
    dev = setup()
    model = DDP(Enc().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(5):
        x = torch.randn(16, 64, 256, device=dev, requires_grad=True)
        mask = torch.zeros(16, 64, dtype=torch.bool, device=dev)
        mask[:, 48:] = True
        y = torch.randint(0, 10, (16,), device=dev)
        loss = F.cross_entropy(model(x, mask), y)
        opt.zero_grad(); loss.backward(); opt.step()
        log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


main()
'''

P_AUTOGRAD_FN_AMP = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


class LinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w.t()

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g @ w, g.t() @ x


class MyLinear(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(o, i) * i ** -0.5)

    def forward(self, x):
        return LinearFn.apply(x, self.weight)


def main():
    dev = setup()
    model = DDP(nn.Sequential(MyLinear(128, 512), nn.GELU(), MyLinear(512, 10)).to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(5):
        x, y = batch(dev)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


main()
'''

P_TP_PLAN_KEYS = HEAD + r'''
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel


class FF(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(1024, 4096)
        self.w2 = nn.Linear(4096, 1024)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)))


def main():
    dev = setup()
    mesh = init_device_mesh("cuda", (WORLD,), mesh_dim_names=("tp",))
    torch.manual_seed(0)
    model = FF().to(dev)
    model = parallelize_module(model, mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    n_local = sum(p.numel() for p in model.parameters())
    log(f"local params {n_local}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(20):
        torch.manual_seed(step)
        x = torch.randn(64, 1024, device=dev)
        loss = (model(x) - x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 5 == 0:
            log(f"step {step} loss {loss.item():.5f} peak mem {torch.cuda.max_memory_allocated() >> 20} MiB")
    dist.destroy_process_group()


main()
'''

P_DCP_PER_RANK = HEAD + r'''
import torch.distributed.checkpoint as dcp
from torch.distributed.fsdp import fully_shard


def main():
    dev = setup()
    model = MLP(d=1024).to(dev)
    for m in model.net:
        if isinstance(m, nn.Linear):
            fully_shard(m)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(5):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    ckpt = f"checkpoints/step5-rank{RANK}"
    dcp.save({"model": model.state_dict()}, checkpoint_id=ckpt)
    log(f"saved {ckpt}")
    dist.barrier()
    # resume (eval job reads the checkpoint it was given)
    sd = {"model": model.state_dict()}
    dcp.load(sd, checkpoint_id="checkpoints/step5-rank0")
    model.load_state_dict(sd["model"])
    log("resumed")
    dist.destroy_process_group()


main()
'''

# ================================================================== configuration
P_PYG = r'''
import torch
import torch.nn.functional as F
import torch_geometric
from torch_geometric.data import Data
from torch_geometric.loader import NeighborLoader
from torch_geometric.nn import SAGEConv

print("torch_geometric", torch_geometric.__version__, flush=True)
n = 20000
edge_index = torch.randint(0, n, (2, 200000))
data = Data(x=torch.randn(n, 64), edge_index=edge_index, y=torch.randint(0, 5, (n,)))
loader = NeighborLoader(data, num_neighbors=[10, 10], batch_size=512, input_nodes=torch.arange(4000), shuffle=True)


class SAGE(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.c2 = SAGEConv(64, 128), SAGEConv(128, 5)

    def forward(self, x, ei):
        return self.c2(F.relu(self.c1(x, ei)), ei)


dev = torch.device("cuda")
model = SAGE().to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for i, b in enumerate(loader):
    b = b.to(dev)
    out = model(b.x, b.edge_index)[:b.batch_size]
    loss = F.cross_entropy(out, b.y[:b.batch_size])
    opt.zero_grad(); loss.backward(); opt.step()
print("epoch done", loss.item())
'''

P_ORT = r'''
import time
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper
import onnxruntime as ort

rng = np.random.default_rng(0)
w1 = numpy_helper.from_array(rng.normal(size=(1024, 4096)).astype(np.float32), "w1")
w2 = numpy_helper.from_array(rng.normal(size=(4096, 1024)).astype(np.float32), "w2")
g = helper.make_graph([helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
                       helper.make_node("MatMul", ["r", "w2"], ["y"])], "mlp",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1024])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1024])], [w1, w2])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
m.ir_version = 8
onnx.save(m, "model.onnx")
print("onnxruntime", ort.__version__, "device", ort.get_device(), flush=True)
sess = ort.InferenceSession("model.onnx", providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
print("session providers:", sess.get_providers(), flush=True)
x = rng.normal(size=(2048, 1024)).astype(np.float32)
sess.run(None, {"x": x})
t = time.time()
for _ in range(10):
    sess.run(None, {"x": x})
print(f"inference: {(time.time() - t) / 10 * 1e3:.1f} ms per batch of 2048", flush=True)
'''

P_PTX_JIT = HEAD + r'''
def main():
    dev = torch.device("cuda", 0)
    log(f"device {torch.cuda.get_device_name(0)} capability {torch.cuda.get_device_capability(0)} "
        f"arch list {torch.cuda.get_arch_list()}")
    model = MLP().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(20):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 5 == 0:
            log(f"step {step} loss {loss.item():.4f}")


main()
'''

P_TRITON_PTXAS = TRITON_SCALE + r'''
x = torch.randn(1 << 20, device="cuda")
out = torch.empty_like(x)
scale(x, 0.5, out, BLOCK=1024)
print("ok", out.sum().item())
'''

# ================================================================== words (timed)
P_MODLOAD = r'''
import os
import time
t0 = time.time()
import torch
import torch.nn as nn
import torch.nn.functional as F
t_imp = time.time()
x = torch.ones(1, device="cuda")
torch.cuda.synchronize()
t_init = time.time()
free, total = torch.cuda.mem_get_info()
print(f"import torch {t_imp - t0:.2f} s, first CUDA op {t_init - t_imp:.2f} s, "
      f"device memory in use after init {(total - free) >> 20} MiB", flush=True)
model = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 10)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
t = time.time()
for step in range(100):
    xb = torch.randn(256, 512, device="cuda")
    loss = F.cross_entropy(model(xb), torch.randint(0, 10, (256,), device="cuda"))
    opt.zero_grad(); loss.backward(); opt.step()
torch.cuda.synchronize()
free, total = torch.cuda.mem_get_info()
print(f"100 steps {time.time() - t:.2f} s; device memory in use {(total - free) >> 20} MiB, "
      f"allocated by tensors {torch.cuda.memory_allocated() >> 20} MiB; total wall {time.time() - t0:.2f} s", flush=True)
'''

P_DDP_BUCKET = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
BUCKET = float(os.environ.get("BUCKET_MB", "25"))


class Deep(nn.Module):
    def __init__(self, n=96, d=512):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(d, d) for _ in range(n))
        self.out = nn.Linear(d, 10)

    def forward(self, x):
        for l in self.layers:
            x = x + F.gelu(l(x))
        return self.out(x)


def main():
    dev = setup()
    model = DDP(Deep().to(dev), device_ids=[LOCAL_RANK], bucket_cap_mb=BUCKET)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for step in range(130):
        if step == 30:
            torch.cuda.synchronize(); t = time.time()
        x = torch.randn(64, 512, device=dev)
        loss = F.cross_entropy(model(x), torch.randint(0, 10, (64,), device=dev))
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 40 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    torch.cuda.synchronize()
    log(f"100 steps {time.time() - t:.2f} s, {(time.time() - t) * 10:.1f} ms/step")
    dist.destroy_process_group()


main()
'''

P_ALLREDUCE_BW = HEAD + r'''
def main():
    dev = setup()
    t = torch.ones(64 << 20, device=dev)  # 256 MiB of fp32 gradients
    for _ in range(3):
        dist.all_reduce(t)
    torch.cuda.synchronize()
    s = time.time()
    for _ in range(10):
        dist.all_reduce(t)
    torch.cuda.synchronize()
    dt = (time.time() - s) / 10
    log(f"all_reduce 256 MiB: {dt * 1e3:.1f} ms, bus bandwidth {2 * (WORLD - 1) / WORLD * t.numel() * 4 / dt / 1e9:.1f} GB/s")
    dist.destroy_process_group()


main()
'''

P_DP_SLOW = HEAD + r'''
def main():
    use_dp = os.environ.get("USE_DP") == "1"
    model = MLP(d=1024).cuda()
    if use_dp:
        model = nn.DataParallel(model)
    log(f"GPUs visible {torch.cuda.device_count()}, DataParallel={use_dp}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(330):
        if step == 30:
            torch.cuda.synchronize(); t = time.time()
        x, y = batch("cuda", n=512)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    torch.cuda.synchronize()
    dt = time.time() - t
    log(f"300 steps {dt:.2f} s, {dt / 300 * 1e3:.2f} ms/step, {300 * 512 / dt:.0f} samples/s")


main()
'''

# ================================================================== healthy
P_MIXED_BACKEND = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group("cuda:nccl,cpu:gloo")
    dev = torch.device("cuda", LOCAL_RANK)
    log(f"backend {dist.get_backend()}")
    model = DDP(MLP().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(30):
        x, y = batch(dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    n_seen = torch.tensor([30 * 256])  # CPU counter, reduced over gloo
    dist.all_reduce(n_seen)
    stats = [None] * WORLD
    dist.all_gather_object(stats, {"rank": RANK, "loss": round(loss.item(), 4)})
    log(f"samples seen {n_seen.item()} stats {stats}")
    dist.destroy_process_group()


main()
'''

P_COMPILE_FFT = HEAD + r'''
class SpectralMix(nn.Module):
    def __init__(self, d=256, modes=64):
        super().__init__()
        self.w = nn.Parameter(torch.randn(modes, d, dtype=torch.cfloat) * 0.02)
        self.proj = nn.Linear(d, d)
        self.modes = modes

    def forward(self, x):  # x: (B, T, d)
        f = torch.fft.rfft(x, dim=1)
        f = f[:, :self.modes] * self.w
        y = torch.fft.irfft(f, n=x.shape[1], dim=1)
        return x + self.proj(F.gelu(y))


def main():
    dev = torch.device("cuda", 0)
    model = nn.Sequential(SpectralMix(), SpectralMix(), nn.Linear(256, 1)).to(dev)
    cmodel = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(30):
        x = torch.randn(32, 512, 256, device=dev)
        loss = (cmodel(x).squeeze(-1) - x.mean(-1)).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.5f}")
    log("done")


main()
'''

# ================================================================== second device call (run 2)
P_COMPILE_MARK_DYN = HEAD + r"""
class Net(nn.Module):
    def __init__(self, batch_size=32):
        super().__init__()
        self.batch_size = batch_size
        self.proj = nn.Linear(64, 128)
        self.head = nn.Linear(16 * 128, 10)

    def forward(self, x):  # x: (B, 16, 64)
        h = F.gelu(self.proj(x))
        return self.head(h.reshape(self.batch_size, -1))


def main():
    dev = torch.device("cuda", 0)
    model = torch.compile(Net().to(dev))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(10):
        x = torch.randn(32, 16, 64, device=dev)
        torch._dynamo.mark_dynamic(x, 0)  # avoid recompiling for the last, smaller batch
        y = torch.randint(0, 10, (32,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        log(f"step {step} loss {loss.item():.4f}")


main()
"""

P_P2POP_SEND = HEAD + r"""
def main():
    dev = setup(seconds=60)
    peer = (RANK + 1) % WORLD
    send_buf = torch.full((1 << 20,), float(RANK), device=dev)
    recv_buf = torch.empty(1 << 20, device=dev)
    ops = [dist.P2POp(dist.send, send_buf, peer), dist.P2POp(dist.recv, recv_buf, (RANK - 1) % WORLD)]
    for r in dist.batch_isend_irecv(ops):
        r.wait()
    log(f"received {recv_buf[0].item()}")
    dist.destroy_process_group()


main()
"""

P_TRITON_TIMED = TRITON_SCALE + r"""
import os
import time
x = torch.randn(1 << 22, device="cuda")
out = torch.empty_like(x)
scale(x, 0.5, out, BLOCK=1024)
torch.cuda.synchronize()
t = time.time()
for _ in range(5):
    scale(x, 0.5, out, BLOCK=1024)
torch.cuda.synchronize()
dt = (time.time() - t) / 5
print(f"scale kernel on {x.numel()} floats: {dt * 1e3:.2f} ms per call, {2 * x.numel() * 4 / dt / 1e9:.2f} GB/s", flush=True)
print("check", torch.allclose(out, x * 0.5))
"""

P_DEVICE_ID_NOINDEX = HEAD + r"""
def main():
    dist.init_process_group("nccl", device_id=torch.device("cuda"))
    t = torch.ones(4, device="cuda") * (RANK + 1)
    dist.all_reduce(t)
    log(f"sum {t.tolist()} on {t.device}")
    dist.destroy_process_group()


main()
"""

def sc_b():
  return {
    "w_triton_interpret_left_on": dict(prog={"train.py": P_TRITON_TIMED}, cmd="python train.py",
                                       env=dict(G0, TRITON_INTERPRET="1"), limit=70,
                                       pair="base_triton_interpret_left_on"),
    "base_triton_interpret_left_on": dict(prog={"train.py": P_TRITON_TIMED}, cmd="python train.py", env=G1, limit=70,
                                          paired=True),
    "compile_mark_dynamic_specialized": dict(prog={"train.py": P_COMPILE_MARK_DYN}, cmd="python train.py", env=G0,
                                             limit=90),
    "p2pop_blocking_send": dict(prog={"train.py": P_P2POP_SEND}, cmd=tr(29831), env=W, limit=80),
    "device_id_without_index": dict(prog={"train.py": P_DEVICE_ID_NOINDEX}, cmd=tr(29832), env=W, limit=80),
}


def tr(port, extra="", script="train.py"):
    return " ".join(("torchrun --nproc-per-node 2 --master-port %d %s %s" % (port, extra, script)).split())


W = {"NCCL_DEBUG": "WARN"}
G0 = {"CUDA_VISIBLE_DEVICES": "0"}
G1 = {"CUDA_VISIBLE_DEVICES": "1"}
TWO_PROC = "python train.py 0 & p=$!; python train.py 1; r1=$?; wait $p; r0=$?; exit $(( r0 | r1 ))"


def scenarios():
    sc = {
        # ---------------- words, timed (phase A): single-GPU pairs started together (case GPU0, base GPU1)
        "w_module_loading_eager": dict(prog={"train.py": P_MODLOAD}, cmd="python train.py",
                                       env=dict(G0, CUDA_MODULE_LOADING="EAGER"), limit=60,
                                       pair="base_module_loading_eager"),
        "base_module_loading_eager": dict(prog={"train.py": P_MODLOAD}, cmd="python train.py", env=G1, limit=60,
                                          paired=True),
        "w_jax_recompile_varlen": dict(prog={"train.py": P_JAX_RECOMPILE}, cmd="python train.py", env=G0, limit=90,
                                       pair="base_jax_recompile_varlen"),
        "base_jax_recompile_varlen": dict(prog={"train.py": P_JAX_RECOMPILE}, cmd="python train.py",
                                          env=dict(G1, PAD_TO="576"), limit=90, paired=True),
        "w_jax_platform_allocator": dict(prog={"train.py": P_JAX_ALLOC}, cmd="python train.py",
                                         env=dict(G0, XLA_PYTHON_CLIENT_ALLOCATOR="platform"), limit=60,
                                         pair="base_jax_platform_allocator"),
        "base_jax_platform_allocator": dict(prog={"train.py": P_JAX_ALLOC}, cmd="python train.py", env=G1, limit=60,
                                            paired=True),
        # JAX preallocation then PyTorch on the same GPU (needs a quiet GPU 0): phase A, alone
        "jax_prealloc_torch_oom": dict(prog={"train.py": P_JAX_TORCH_OOM}, cmd="python train.py",
                                       env=dict(G0, XLA_PYTHON_CLIENT_PREALLOCATE=None), limit=90, seq=True),
        # 2-GPU timed pairs, one after the other
        "w_dataparallel_slower": dict(prog={"train.py": P_DP_SLOW}, cmd="python train.py", env={"USE_DP": "1"},
                                      limit=60, seq=True),
        "base_dataparallel_slower": dict(prog={"train.py": P_DP_SLOW}, cmd="python train.py", env=G0, limit=60,
                                         seq=True),
        "w_nccl_hostid_per_rank": dict(prog={"train.py": P_ALLREDUCE_BW,
                                             "run.sh": "#!/bin/bash\nexport NCCL_HOSTID=$(hostname)-ctr$LOCAL_RANK\n"
                                                       "exec python train.py\n"},
                                       cmd="chmod +x run.sh && torchrun --nproc-per-node 2 --master-port 29803 "
                                           "--no-python ./run.sh",
                                       env={"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT"}, limit=60, seq=True),
        "base_nccl_hostid_per_rank": dict(prog={"train.py": P_ALLREDUCE_BW}, cmd=tr(29804),
                                          env={"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT"}, limit=60, seq=True),
        # ---------------- user code (phase B, parallel)
        "dtensor_cross_mesh": dict(prog={"train.py": P_XMESH}, cmd=tr(29811), env=W, limit=90),
        "rpc_cuda_no_device_map": dict(prog={"train.py": P_RPC_CUDA}, cmd=tr(29812), env={}, limit=50),
        "triton_arange_not_pow2": dict(prog={"train.py": P_TRITON_POW2}, cmd="python train.py", env=G0, limit=90),
        "triton_smem_out_of_resources": dict(prog={"train.py": P_TRITON_SMEM}, cmd="python train.py", env=G1,
                                             limit=90),
        "triton_cpu_tensor": dict(prog={"train.py": P_TRITON_CPU}, cmd="python train.py", env=G0, limit=90),
        "cupy_array_other_device": dict(prog={"train.py": P_CUPY_DEV}, cmd="python train.py", env={}, limit=60),
        "w_cupy_nccl_no_group": dict(prog={"train.py": P_CUPY_NCCL_NOGROUP}, cmd="python train.py",
                                     env={"NCCL_DEBUG": "WARN"}, limit=35),
        "jax_pmap_more_than_devices": dict(prog={"train.py": P_JAX_PMAP}, cmd="python train.py", env={}, limit=60),
        "jax_sharding_indivisible": dict(prog={"train.py": P_JAX_SHARD}, cmd="python train.py", env={}, limit=60),
        "jax_dist_init_after_compute": dict(prog={"train.py": P_JAX_INIT_LATE}, cmd=TWO_PROC, env={}, limit=60),
        "autocast_index_put_bank": dict(prog={"train.py": P_INDEX_PUT}, cmd="python train.py", env=G1, limit=60),
        "new_group_one_rank": dict(prog={"train.py": P_NEWGROUP_SUBSET}, cmd=tr(29813), env=W, limit=75),
        "hf_device_map_auto_ddp": dict(prog={"train.py": P_HF_DEVMAP}, cmd=tr(29814), env={}, limit=120),
        "lightning_fork_after_cuda": dict(prog={"train.py": P_LIT_FORK}, cmd="python train.py", env={}, limit=90),
        "eigh_bf16_features": dict(prog={"train.py": P_EIGH_BF16}, cmd="python train.py", env=G0, limit=60),
        "fsdp2_tied_separate_groups": dict(prog={"train.py": P_FSDP2_TIED}, cmd=tr(29815), env=W, limit=100),
        "ckpt_reentrant_kwargs": dict(prog={"train.py": P_CKPT_KWARGS}, cmd=tr(29816), env=W, limit=90),
        "autograd_fn_autocast_dtype": dict(prog={"train.py": P_AUTOGRAD_FN_AMP}, cmd=tr(29817), env=W, limit=90),
        "tp_plan_keys_absent": dict(prog={"train.py": P_TP_PLAN_KEYS}, cmd=tr(29818), env=W, limit=90),
        "dcp_checkpoint_id_per_rank": dict(prog={"train.py": P_DCP_PER_RANK}, cmd=tr(29819), env=W, limit=100),
        # ---------------- configuration
        "pyg_neighborloader_no_sampler": dict(prog={"train.py": P_PYG}, cmd="python train.py", env=G1, limit=90),
        "ort_cuda_provider_absent": dict(prog={"train.py": P_ORT}, cmd="python train.py", env=G0, limit=90),
        "cuda_force_ptx_jit": dict(prog={"train.py": P_PTX_JIT}, cmd="python train.py",
                                   env=dict(G1, CUDA_FORCE_PTX_JIT="1"), limit=120),
        "triton_ptxas_path_stale": dict(prog={"train.py": P_TRITON_PTXAS}, cmd="python train.py",
                                        env=dict(G1, TRITON_PTXAS_PATH="/usr/local/cuda-11.8/bin/ptxas"), limit=90),
        "jax_dist_init_under_torchrun": dict(prog={"train.py": P_JAX_DIST_AUTO}, cmd=tr(29820), env={}, limit=60),
        "xla_flags_typo": dict(prog={"train.py": P_JAX_XLAFLAGS}, cmd="python train.py",
                               env=dict(G0, XLA_FLAGS="--xla_gpu_enable_latency_hiding_schedular=true"), limit=60),
        "lightning_devices_4_on_2": dict(prog={"train.py": P_LIT_DEV4}, cmd="python train.py", env={}, limit=90),
        # ---------------- healthy
        "healthy_jax_two_process_pmean": dict(prog={"train.py": P_JAX_MP_OK}, cmd=TWO_PROC, env={}, limit=120),
        "healthy_mixed_backend_string": dict(prog={"train.py": P_MIXED_BACKEND}, cmd=tr(29821), env={}, limit=90),
        "healthy_rpc_device_map": dict(prog={"train.py": P_RPC_OK}, cmd=tr(29822), env={}, limit=90),
        "healthy_lightning_ddp_gpu": dict(prog={"train.py": P_LIT_OK}, cmd="python train.py", env={}, limit=150),
        "healthy_triton_autotune": dict(prog={"train.py": P_TRITON_AUTOTUNE}, cmd="python train.py", env=G1,
                                        limit=150),
        "healthy_cupy_nccl_group": dict(prog={"train.py": P_CUPY_NCCL_OK}, cmd="python train.py",
                                        env={"NCCL_DEBUG": "WARN"}, limit=60),
        "healthy_compile_complex_fft": dict(prog={"train.py": P_COMPILE_FFT}, cmd="python train.py", env=G0,
                                            limit=180),
    }
    sc.update(sc_b())
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
                    "torch.backends.cudnn.version())'" % PY),
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(torch|triton|numpy|nvidia-nccl|jax|cupy|onnx|"
                   "pytorch-lightning|lightning|transformers|accelerate)'" % PY),
        "python": sys.version.split()[0],
        "python_path": PY,
        "kernel": sh("uname -r"),
        "os": sh("grep PRETTY_NAME /etc/os-release"),
        "nproc": sh("nproc"),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTHONPATH", "PYTORCH", "XLA_",
                                 "JAX_", "TRITON_"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p22out"
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
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P22_JOBS", "20"))) as pool:
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
