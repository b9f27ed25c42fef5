#!/usr/bin/env python3
"""P26 (eval-p26): plant multi-GPU training failures of kinds no earlier set planted, on 2x H100.

Harness as bench/plant24_h100x2.py (run_one/facts/main): each scenario runs in a neutral job folder
(/tmp/job-XXXX/jobNN), under a wall-clock limit (own session, process group SIGKILLed at the limit);
stdout+stderr verbatim to $OUT/<name>.log, packed into $OUT/logs.tar.gz; $OUT/manifest.json holds command, env,
exit status, seconds and machine facts. NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NVSHMEM_DISABLE_NVLS=1 forced for every scenario; XLA_PYTHON_CLIENT_PREALLOCATE=false for every scenario.
Sources mostly new to the held-out sets: flax, optax, orbax, equinox, diffrax, lineax, e3nn, einops, numba-cuda,
h5py, torchmetrics, timm.
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
START_BY_S = float(os.environ.get("P26_START_BY_S", "260"))
END_BY_S = float(os.environ.get("P26_END_BY_S", "420"))

# ---------------------------------------------------------------- flax / optax / orbax / equinox / diffrax / lineax
P_NNX_DROPOUT = r'''
import jax
import jax.numpy as jnp
import optax
from flax import nnx

print("jax", jax.__version__, "devices", jax.devices())


class MLP(nnx.Module):
    def __init__(self, din, dh, dout, rngs: nnx.Rngs):
        self.l1 = nnx.Linear(din, dh, rngs=rngs)
        self.drop = nnx.Dropout(0.1)
        self.l2 = nnx.Linear(dh, dout, rngs=rngs)

    def __call__(self, x):
        return self.l2(self.drop(nnx.relu(self.l1(x))))


model = MLP(32, 256, 10, rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        logits = model(x)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


key = jax.random.PRNGKey(1)
x = jax.random.normal(key, (128, 32))
y = jax.random.randint(key, (128,), 0, 10)
for step in range(5):
    loss = train_step(model, optimizer, x, y)
    print("step", step, "loss", float(loss))
'''

P_NNX_HEALTHY = P_NNX_DROPOUT.replace("nnx.Dropout(0.1)", "nnx.Dropout(0.1, rngs=rngs)").replace(
    "for step in range(5):", """mesh = jax.sharding.Mesh(jax.devices(), ("data",))
shard = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("data"))
x = jax.device_put(x, shard)
y = jax.device_put(y, shard)
print("batch sharding", x.sharding)
for step in range(5):""")

P_LINEN_BN = r'''
import jax
import jax.numpy as jnp
import flax
import flax.linen as nn
import optax

print("flax", flax.__version__, "jax", jax.__version__)


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train: bool):
        x = nn.Dense(64)(x)
        x = nn.BatchNorm(use_running_average=not train, momentum=0.9)(x)
        x = nn.relu(x)
        return nn.Dense(1)(x)


model = Net()
x = jax.random.normal(jax.random.PRNGKey(0), (256, 16))
y = jnp.sum(x[:, :4], axis=1, keepdims=True)
variables = model.init(jax.random.PRNGKey(1), x, train=False)
params, batch_stats = variables["params"], variables["batch_stats"]
tx = optax.adam(1e-3)
opt_state = tx.init(params)


@jax.jit
def train_step(params, batch_stats, opt_state, x, y):
    def loss_fn(p):
        out = model.apply({"params": p, "batch_stats": batch_stats}, x, train=True)
        return jnp.mean((out - y) ** 2)
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


for epoch in range(3):
    params, opt_state, loss = train_step(params, batch_stats, opt_state, x, y)
    print("epoch", epoch, "loss", float(loss))
'''

P_OPTAX_NOPARAMS = r'''
import jax
import jax.numpy as jnp
import optax

print("optax", optax.__version__, "jax", jax.__version__, "devices", jax.devices())
mesh = jax.sharding.Mesh(jax.devices(), ("dp",))
dp = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("dp"))
rep = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())

params = jax.device_put({"w": jnp.zeros((64, 1)), "b": jnp.zeros((1,))}, rep)
X = jax.device_put(jax.random.normal(jax.random.PRNGKey(0), (4096, 64)), dp)
Y = jax.device_put(X @ jnp.linspace(-1, 1, 64)[:, None], dp)

schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-2, 10, 200)
tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-4))
opt_state = tx.init(params)


def loss_fn(p, x, y):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)


@jax.jit
def step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, loss


for i in range(3):
    params, opt_state, loss = step(params, opt_state, X, Y)
    print("step", i, "loss", float(loss))
'''

P_OPTAX_SIGN = r'''
import os
import jax
import jax.numpy as jnp
import optax

NEGATE = os.environ.get("NEGATE", "0") == "1"
print("optax", optax.__version__, "jax", jax.__version__)
key = jax.random.PRNGKey(0)
X = jax.random.normal(key, (2048, 32))
true_w = jnp.linspace(-1, 1, 32)[:, None]
Y = X @ true_w + 0.01 * jax.random.normal(jax.random.PRNGKey(1), (2048, 1))
params = {"w": jnp.zeros((32, 1))}
tx = optax.adam(1e-2)
opt_state = tx.init(params)


def loss_fn(p):
    return jnp.mean((X @ p["w"] - Y) ** 2)


@jax.jit
def step(params, opt_state):
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    if NEGATE:
        updates = jax.tree_util.tree_map(lambda u: -u, updates)
    return optax.apply_updates(params, updates), opt_state, loss


for i in range(301):
    params, opt_state, loss = step(params, opt_state)
    if i % 50 == 0:
        print(f"step {i:4d} loss {float(loss):.5f}")
'''

P_EQX_JIT = r'''
import equinox as eqx
import jax
import jax.numpy as jnp
import optax

print("equinox", eqx.__version__, "jax", jax.__version__)
key = jax.random.PRNGKey(0)
model = eqx.nn.MLP(in_size=8, out_size=1, width_size=64, depth=2, key=key)
opt = optax.adam(1e-3)
opt_state = opt.init(eqx.filter(model, eqx.is_array))
x = jax.random.normal(key, (128, 8))
y = jnp.sin(x[:, :1])


@jax.jit
def train_step(model, opt_state, x, y):
    def loss_fn(m):
        return jnp.mean((jax.vmap(m)(x) - y) ** 2)
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model)
    updates, opt_state = opt.update(grads, opt_state)
    return eqx.apply_updates(model, updates), opt_state, loss


for i in range(3):
    model, opt_state, loss = train_step(model, opt_state, x, y)
    print(i, float(loss))
'''

P_EQX_HEALTHY = P_EQX_JIT.replace("@jax.jit", "@eqx.filter_jit")

P_ORBAX_EXISTS = r'''
import os
import jax
import jax.numpy as jnp
import orbax.checkpoint as ocp

print("jax", jax.__version__)
ckpt_dir = os.path.abspath("checkpoints/latest")
checkpointer = ocp.StandardCheckpointer()
state = {"params": {"w": jnp.ones((512, 512)), "b": jnp.zeros((512,))}, "step": jnp.array(0)}
for epoch in range(3):
    state["params"]["w"] = state["params"]["w"] * 0.99
    state["step"] = state["step"] + 100
    print("epoch", epoch, "saving to", ckpt_dir, flush=True)
    checkpointer.save(ckpt_dir, state)
    checkpointer.wait_until_finished()
print("done")
'''

P_ORBAX_HEALTHY = r'''
import os
import jax
import jax.numpy as jnp
import orbax.checkpoint as ocp

print("jax", jax.__version__)
ckpt_dir = os.path.abspath("checkpoints")
options = ocp.CheckpointManagerOptions(max_to_keep=2, save_interval_steps=1)
mngr = ocp.CheckpointManager(ckpt_dir, options=options)
state = {"params": {"w": jnp.ones((512, 512)), "b": jnp.zeros((512,))}, "step": jnp.array(0)}
for epoch in range(3):
    state["params"]["w"] = state["params"]["w"] * 0.99
    state["step"] = state["step"] + 100
    mngr.save(epoch, args=ocp.args.StandardSave(state))
mngr.wait_until_finished()
print("steps on disk", mngr.all_steps())
restored = mngr.restore(mngr.latest_step(), args=ocp.args.StandardRestore(state))
print("restored step", int(restored["step"]), "w[0,0]", float(restored["params"]["w"][0, 0]))
mngr.close()
'''

P_DIFFRAX = r'''
import os
import jax
import jax.numpy as jnp
import diffrax

print("diffrax", diffrax.__version__, "jax", jax.__version__)
SOLVER = os.environ.get("SOLVER", "Tsit5")


def robertson(t, y, args):
    y1, y2, y3 = y
    return jnp.stack([-0.04 * y1 + 1e4 * y2 * y3,
                      0.04 * y1 - 1e4 * y2 * y3 - 3e7 * y2 ** 2,
                      3e7 * y2 ** 2])


solver = getattr(diffrax, SOLVER)()
ts = jnp.array([1.0, 10.0, 100.0, 1000.0])
sol = diffrax.diffeqsolve(diffrax.ODETerm(robertson), solver, t0=0.0, t1=1000.0, dt0=1e-4,
                          y0=jnp.array([1.0, 0.0, 0.0]),
                          stepsize_controller=diffrax.PIDController(rtol=1e-4, atol=1e-7),
                          saveat=diffrax.SaveAt(ts=ts))
print("steps", int(sol.stats["num_steps"]))
print(sol.ys)
'''

P_LINEAX = r'''
import jax
import jax.numpy as jnp
import lineax as lx

print("jax", jax.__version__)
# normal equations of a design matrix with a duplicated feature column
key = jax.random.PRNGKey(0)
feat = jax.random.normal(key, (1000, 3))
X = jnp.concatenate([feat, feat[:, :1]], axis=1)
A = X.T @ X
b = X.T @ (feat @ jnp.array([1.0, -2.0, 0.5]))
op = lx.MatrixLinearOperator(A, lx.positive_semidefinite_tag)
sol = lx.linear_solve(op, b, solver=lx.Cholesky())
print("coef", sol.value)
'''

# ---------------------------------------------------------------- torch-side libraries
P_E3NN = r'''
import torch
import e3nn
from e3nn import o3

print("e3nn", e3nn.__version__, "torch", torch.__version__)
dev = torch.device("cuda")
irreps_in = o3.Irreps("16x0e + 8x1o")
irreps_out = o3.Irreps("32x0e + 4x1o")
lin = o3.Linear(irreps_in, irreps_out).to(dev)
n_atoms = 500
scalars = torch.randn(n_atoms, 16, device=dev)
vectors = torch.randn(n_atoms, 8, 3, device=dev)
node_feats = torch.cat([scalars, vectors.reshape(n_atoms, -1)[:, :8]], dim=-1)
out = lin(node_feats)
print(out.shape)
'''

P_EINOPS = r'''
import torch
import torch.nn as nn
from einops import rearrange

print("torch", torch.__version__)
dev = torch.device("cuda")


class PatchEmbed(nn.Module):
    def __init__(self, patch=16, dim=768):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(patch * patch * 3, dim)

    def forward(self, img):
        p = self.patch
        x = rearrange(img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=p, p2=p)
        return self.proj(x)


model = PatchEmbed().to(dev)
batch = torch.randn(32, 3, 250, 250, device=dev)   # dataset images resized to 250x250
tokens = model(batch)
print(tokens.shape)
'''

P_NUMBA_TPB = r'''
import numpy as np
import numba
from numba import cuda

print("numba", numba.__version__)


@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


n = 1 << 22
x = cuda.to_device(np.random.rand(n).astype(np.float32))
y = cuda.to_device(np.random.rand(n).astype(np.float32))
out = cuda.device_array_like(x)
threads = 2048
blocks = (n + threads - 1) // threads
saxpy[blocks, threads](out, np.float32(2.0), x, y)
cuda.synchronize()
print(out.copy_to_host()[:4])
'''

P_NUMBA_TIMED = r'''
import time
import numpy as np
import numba
from numba import cuda

print("numba", numba.__version__)


@cuda.jit
def smooth(out, x):
    i = cuda.grid(1)
    if 0 < i < x.size - 1:
        out[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1]


n = 1 << 13
x = cuda.to_device(np.random.rand(n).astype(np.float32))
out = cuda.device_array_like(x)
threads = 256
blocks = (n + threads - 1) // threads
smooth[blocks, threads](out, x)
cuda.synchronize()
t = time.time()
iters = 5
for _ in range(iters):
    smooth[blocks, threads](out, x)
    x, out = out, x
cuda.synchronize()
print("smoothing pass: %.3f ms" % ((time.time() - t) / iters * 1e3))
print("checksum", float(x.copy_to_host().sum()))
'''

P_NUMBA_HEALTHY = r'''
import numpy as np
import numba
import torch
from numba import cuda

print("numba", numba.__version__, "torch", torch.__version__)


@cuda.jit
def clip_inplace(a, lo, hi):
    i = cuda.grid(1)
    if i < a.size:
        v = a[i]
        a[i] = lo if v < lo else (hi if v > hi else v)


t = torch.randn(4096, device="cuda")
arr = cuda.as_cuda_array(t)
clip_inplace[1, 128](arr, -1.0, 1.0)
clip_inplace[32, 128](arr, -1.0, 1.0)
torch.cuda.synchronize()
print("min", t.min().item(), "max", t.max().item())
'''

P_NUMBA_DRIVER = r'''
import numpy as np
import numba
from numba import cuda

print("numba", numba.__version__)
a = cuda.to_device(np.arange(16, dtype=np.float32))
print(a.copy_to_host())
'''

P_H5_SPAWN = r'''
import h5py
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class H5Frames(Dataset):
    def __init__(self, path):
        self.f = h5py.File(path, "r")
        self.x = self.f["frames"]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i])


if __name__ == "__main__":
    print("h5py", h5py.__version__, "torch", torch.__version__)
    with h5py.File("frames.h5", "w") as f:
        f.create_dataset("frames", data=np.random.rand(2048, 128).astype("f4"), chunks=(64, 128))
    loader = DataLoader(H5Frames("frames.h5"), batch_size=64, num_workers=4,
                        multiprocessing_context="spawn", persistent_workers=True)
    total = 0.0
    for batch in loader:
        total += batch.cuda(non_blocking=True).sum().item()
    print("sum", total)
'''

P_TM_DEVICE = r'''
import torch
import torchmetrics
from torchmetrics.classification import MulticlassAccuracy, MulticlassF1Score

print("torchmetrics", torchmetrics.__version__, "torch", torch.__version__)
dev = torch.device("cuda")
model = torch.nn.Linear(64, 10).to(dev)
metrics = torchmetrics.MetricCollection({"acc": MulticlassAccuracy(num_classes=10),
                                         "f1": MulticlassF1Score(num_classes=10)})
for step in range(3):
    x = torch.randn(256, 64, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)
    with torch.no_grad():
        preds = model(x).argmax(-1)
    metrics.update(preds, y)
print(metrics.compute())
'''

DIST_HEAD = r'''
import datetime
import os
import time
import torch
import torch.distributed as dist

RANK = int(os.environ.get("RANK", "0"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))


def log(msg):
    print(f"[rank{RANK}] {time.strftime('%H:%M:%S')} {msg}", flush=True)


torch.cuda.set_device(LOCAL_RANK)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=int(os.environ.get("PG_TIMEOUT", "600"))),
                        device_id=torch.device("cuda", LOCAL_RANK))
dev = torch.device("cuda", LOCAL_RANK)
'''

P_TM_RANK0 = DIST_HEAD + r'''
import torchmetrics
from torch.nn.parallel import DistributedDataParallel as DDP
from torchmetrics.classification import MulticlassAccuracy

model = DDP(torch.nn.Linear(64, 10).to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
val_acc = MulticlassAccuracy(num_classes=10).to(dev)
for epoch in range(2):
    for step in range(20):
        x = torch.randn(128, 64, device=dev)
        y = torch.randint(0, 10, (128,), device=dev)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        val_acc.update(model(x).argmax(-1), y)
    if RANK == 0:
        acc = val_acc.compute()
        log(f"epoch {epoch} val_acc {acc.item():.4f}")
    val_acc.reset()
    log(f"epoch {epoch} done")
dist.barrier()
dist.destroy_process_group()
'''

P_TM_HEALTHY = P_TM_RANK0.replace('''    if RANK == 0:
        acc = val_acc.compute()
        log(f"epoch {epoch} val_acc {acc.item():.4f}")''', '''    acc = val_acc.compute()
    if RANK == 0:
        log(f"epoch {epoch} val_acc {acc.item():.4f}")''')

P_TM_SYNC_TIMED = DIST_HEAD + r'''
import torchmetrics
from torch.nn.parallel import DistributedDataParallel as DDP
from torchmetrics.classification import MulticlassAccuracy, MulticlassAUROC

SYNC = os.environ.get("SYNC_ON_STEP", "0") == "1"
model = DDP(torch.nn.Linear(256, 100).to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
acc = MulticlassAccuracy(num_classes=100, dist_sync_on_step=SYNC).to(dev)
auroc = MulticlassAUROC(num_classes=100, thresholds=200, dist_sync_on_step=SYNC).to(dev)


def run(n):
    for step in range(n):
        x = torch.randn(512, 256, device=dev)
        y = torch.randint(0, 100, (512,), device=dev)
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        a = acc(logits.detach(), y)
        u = auroc(logits.detach().softmax(-1), y)
    return a, u


run(5)
torch.cuda.synchronize()
t = time.time()
a, u = run(100)
torch.cuda.synchronize()
ms = (time.time() - t) / 100 * 1e3
log(f"train step {ms:.2f} ms  batch acc {a.item():.3f} auroc {u.item():.3f}")
log(f"epoch acc {acc.compute().item():.4f}")
dist.destroy_process_group()
'''

P_TIMM_DDP = DIST_HEAD + r'''
import timm
from torch.nn.parallel import DistributedDataParallel as DDP

if RANK == 0:
    log(f"timm {timm.__version__} torch {torch.__version__}")
model = timm.create_model("resnet18", pretrained=False, num_classes=10)
model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model).to(dev).to(memory_format=torch.channels_last)
model = DDP(model, device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler_ctx = torch.autocast("cuda", dtype=torch.bfloat16)
for step in range(10):
    x = torch.randn(32, 3, 128, 128, device=dev).to(memory_format=torch.channels_last)
    y = torch.randint(0, 10, (32,), device=dev)
    with scaler_ctx:
        loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 3 == 0:
        log(f"step {step} loss {loss.item():.4f}")
dist.destroy_process_group()
'''

P_PIN_THREADS = r'''
import torch
from torch.utils.data import DataLoader, TensorDataset

print("torch", torch.__version__)
ds = TensorDataset(torch.randn(4096, 1024), torch.randint(0, 10, (4096,)))
loader = DataLoader(ds, batch_size=256, num_workers=2, pin_memory=True)
model = torch.nn.Linear(1024, 10).cuda()
for i, (x, y) in enumerate(loader):
    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
    loss = torch.nn.functional.cross_entropy(model(x), y)
print("last loss", loss.item())
'''

P_JAX_VISIBLE = r'''
import jax
import jax.numpy as jnp

print("jax", jax.__version__)
print("devices", jax.devices())
x = jnp.ones((1024, 1024))
print(float((x @ x).sum()))
'''

P_ALLREDUCE = DIST_HEAD + r'''
t = torch.ones(64 << 20, device=dev) * (RANK + 1)
for i in range(5):
    dist.all_reduce(t)
torch.cuda.synchronize()
log(f"all_reduce ok, t[0]={t[0].item():.0f}")
dist.destroy_process_group()
'''

# ---------------------------------------------------------------- run 2 additions
P_H5_TIMED = r"""
import os
import time
import h5py
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

GZIP = os.environ.get("H5_GZIP", "0") == "1"


class H5Frames(Dataset):
    def __init__(self, path):
        self.path = path
        self.f = None
        with h5py.File(path, "r") as f:
            self.n = len(f["frames"])

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.f is None:
            self.f = h5py.File(self.path, "r")
        return torch.from_numpy(self.f["frames"][i])


if __name__ == "__main__":
    print("h5py", h5py.__version__, "torch", torch.__version__)
    kw = dict(chunks=(2048, 256), compression="gzip", compression_opts=9) if GZIP else {}
    with h5py.File("frames.h5", "w") as f:
        f.create_dataset("frames", data=np.random.rand(8192, 256).astype("f4"), **kw)
    print("frames.h5", os.path.getsize("frames.h5") // (1 << 20), "MiB")
    loader = DataLoader(H5Frames("frames.h5"), batch_size=128, shuffle=True, num_workers=4,
                        multiprocessing_context="spawn", persistent_workers=True)
    model = torch.nn.Linear(256, 10).cuda()
    for epoch in range(2):
        t = time.time()
        for x in loader:
            loss = model(x.cuda(non_blocking=True)).pow(2).mean()
        torch.cuda.synchronize()
        print(f"epoch {epoch}: {len(loader)} batches in {time.time() - t:.2f} s", flush=True)
"""

P_DIFFRAX_GRAD = r"""
import jax
import jax.numpy as jnp
import diffrax
import optax

print("diffrax", diffrax.__version__, "jax", jax.__version__)
ts = jnp.linspace(0.0, 5.0, 50)
true_k = 0.7
data = jnp.exp(-true_k * ts)


def simulate(k):
    sol = diffrax.diffeqsolve(diffrax.ODETerm(lambda t, y, k: -k * y), diffrax.Tsit5(), t0=0.0, t1=5.0,
                              dt0=0.01, y0=jnp.array(1.0), args=k, saveat=diffrax.SaveAt(ts=ts),
                              stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-8),
                              max_steps=None)
    return sol.ys


@jax.jit
def loss(k):
    return jnp.mean((simulate(k) - data) ** 2)


k = jnp.array(0.2)
for i in range(3):
    l, g = jax.value_and_grad(loss)(k)
    k = k - 0.5 * g
    print(i, float(l), float(k))
"""

P_OPTX = r"""
import jax
import jax.numpy as jnp
import optimistix as optx

print("jax", jax.__version__)


def residual(x, args):
    # steady state of a reaction network: production - degradation
    a, b = args
    return jnp.array([a - x[0] * x[1] ** 2, x[0] * x[1] ** 2 - b * x[1] + 1.0 + jnp.exp(-x[1])])


solver = optx.Newton(rtol=1e-8, atol=1e-8)
sol = optx.root_find(residual, solver, jnp.array([1.0, 1.0]), args=(0.1, 0.5), max_steps=64)
print(sol.value)
"""

P_JAX_CFG = r"""
import numpy as np
import jax
import jax.numpy as jnp
import optax

print("jax", jax.__version__, "devices", jax.devices())
rng = np.random.default_rng(0)
X = rng.normal(size=(1024, 32)).astype(np.float32)
Y = (X @ np.linspace(-1, 1, 32).astype(np.float32)).astype(np.float32)
params = {"w": jnp.zeros((32,)), "b": jnp.zeros(())}
tx = optax.sgd(0.05)
opt_state = tx.init(params)


def loss_fn(p, x, y):
    pred = x @ p["w"] + p["b"]
    return jnp.mean((pred - y) ** 2)


@jax.jit
def step(p, s, x, y):
    l, g = jax.value_and_grad(loss_fn)(p, x, y)
    u, s = tx.update(g, s, p)
    return optax.apply_updates(p, u), s, l


for epoch in range(3):
    for i in range(0, 1024, 256):
        xb, yb = X[i:i + 256], Y[i:i + 256]
        params, opt_state, l = step(params, opt_state, xb, yb)
    print("epoch", epoch, "loss", float(l))
"""

P_JAX_RANKPROMO = r"""
import jax
import jax.numpy as jnp
import optax

print("jax", jax.__version__)
key = jax.random.PRNGKey(0)
x = jax.random.normal(key, (512, 16))
y = jax.random.normal(key, (512, 1))
params = {"w": jnp.zeros((16, 1)), "b": jnp.zeros((1,))}
tx = optax.adam(1e-2)
state = tx.init(params)


@jax.jit
def step(p, s):
    def loss_fn(p):
        pred = x @ p["w"] + p["b"]
        return jnp.mean((pred - y) ** 2) + 1e-3 * jnp.sum(p["w"] ** 2)
    l, g = jax.value_and_grad(loss_fn)(p)
    u, s = tx.update(g, s, p)
    return optax.apply_updates(p, u), s, l


for i in range(3):
    params, state, l = step(params, state)
    print(i, float(l))
"""

P_JAX_MASKED_LOG = r"""
import jax
import jax.numpy as jnp

print("jax", jax.__version__)
key = jax.random.PRNGKey(0)
logits = jax.random.normal(key, (64, 128, 1000))
mask = jax.random.bernoulli(key, 0.8, (64, 128))
labels = jax.random.randint(key, (64, 128), 0, 1000)


@jax.jit
def masked_nll(logits, labels, mask):
    logp = jax.nn.log_softmax(logits)
    nll = -jnp.take_along_axis(logp, labels[..., None], -1)[..., 0]
    per_seq = jnp.sum(nll * mask, -1) / jnp.sum(mask, -1)
    # padded-out sequences give 0/0; they are dropped below
    return jnp.mean(jnp.where(jnp.isfinite(per_seq), per_seq, 0.0))


mask = mask.at[:4].set(False)
print("loss", float(masked_nll(logits, labels, mask)))
"""


def tr(port, script="train.py"):
    return "torchrun --nproc-per-node 2 --master-port %d %s" % (port, script)


W = {"NCCL_DEBUG": "WARN"}
G0 = {"CUDA_VISIBLE_DEVICES": "0"}
G1 = {"CUDA_VISIBLE_DEVICES": "1"}
PY = "python train.py"


def scenarios2():
    return {
        "w_h5_gzip_random": dict(prog={"train.py": P_H5_TIMED}, cmd=PY, env=dict(G0, H5_GZIP="1"), limit=100,
                                 pair="base_h5_gzip_random"),
        "base_h5_gzip_random": dict(prog={"train.py": P_H5_TIMED}, cmd=PY, env=G1, limit=100, paired=True),
        "w_eqx_on_error_nan": dict(prog={"train.py": P_DIFFRAX}, cmd=PY,
                                   env=dict(G0, SOLVER="Tsit5", EQX_ON_ERROR="nan"), limit=90,
                                   pair="base_eqx_on_error_nan"),
        "base_eqx_on_error_nan": dict(prog={"train.py": P_DIFFRAX}, cmd=PY, env=dict(G1, SOLVER="Kvaerno5"),
                                      limit=90, paired=True),
        "diffrax_grad_max_steps_none": dict(prog={"train.py": P_DIFFRAX_GRAD}, cmd=PY, env=G0, limit=90),
        "optimistix_newton_no_root": dict(prog={"train.py": P_OPTX}, cmd=PY, env=G1, limit=90),
        "jax_transfer_guard_env": dict(prog={"train.py": P_JAX_CFG}, cmd=PY,
                                       env=dict(G0, JAX_TRANSFER_GUARD="disallow"), limit=90),
        "jax_rank_promotion_env": dict(prog={"train.py": P_JAX_RANKPROMO}, cmd=PY,
                                       env=dict(G1, JAX_NUMPY_RANK_PROMOTION="raise"), limit=90),
        "jax_debug_nans_env": dict(prog={"train.py": P_JAX_MASKED_LOG}, cmd=PY,
                                   env=dict(G0, JAX_DEBUG_NANS="1"), limit=90),
        "eqx_on_error_breakpoint_batch": dict(prog={"train.py": P_DIFFRAX}, cmd=PY + " < /dev/null",
                                              env=dict(G1, SOLVER="Tsit5", EQX_ON_ERROR="breakpoint"), limit=60),
        "healthy_h5_lazy_spawn": dict(prog={"train.py": P_H5_TIMED}, cmd=PY, env={}, limit=100),
    }


def scenarios():
    if os.environ.get("P26_SET") == "2":
        return scenarios2()
    return {
        # ---------------- words, timed pairs (case GPU0, baseline GPU1, started together)
        "w_numba_cudasim": dict(prog={"smooth.py": P_NUMBA_TIMED}, cmd="python smooth.py",
                                env=dict(G0, NUMBA_ENABLE_CUDASIM="1"), limit=120, pair="base_numba_cudasim"),
        "base_numba_cudasim": dict(prog={"smooth.py": P_NUMBA_TIMED}, cmd="python smooth.py", env=G1, limit=120,
                                   paired=True),
        "w_optax_negated_updates": dict(prog={"train.py": P_OPTAX_SIGN}, cmd=PY, env=dict(G0, NEGATE="1"),
                                        limit=90, pair="base_optax_negated_updates"),
        "base_optax_negated_updates": dict(prog={"train.py": P_OPTAX_SIGN}, cmd=PY, env=G1, limit=90,
                                           paired=True),
        # 2-GPU timed, one after the other
        "w_tm_sync_on_step": dict(prog={"train.py": P_TM_SYNC_TIMED}, cmd=tr(29611),
                                  env=dict(W, SYNC_ON_STEP="1"), limit=150, seq=True),
        "base_tm_sync_on_step": dict(prog={"train.py": P_TM_SYNC_TIMED}, cmd=tr(29612), env=W, limit=150,
                                     seq=True),
        # ---------------- user code (parallel)
        "nnx_dropout_no_rngs": dict(prog={"train.py": P_NNX_DROPOUT}, cmd=PY, env=G0, limit=120),
        "linen_bn_immutable": dict(prog={"train.py": P_LINEN_BN}, cmd=PY, env=G1, limit=120),
        "optax_adamw_no_params": dict(prog={"train.py": P_OPTAX_NOPARAMS}, cmd=PY, env={}, limit=120),
        "eqx_plain_jit_module": dict(prog={"train.py": P_EQX_JIT}, cmd=PY, env=G0, limit=120),
        "orbax_save_same_dir": dict(prog={"train.py": P_ORBAX_EXISTS}, cmd=PY, env=G1, limit=120),
        "diffrax_stiff_max_steps": dict(prog={"train.py": P_DIFFRAX}, cmd=PY, env=dict(G0, SOLVER="Tsit5"),
                                        limit=150),
        "lineax_cholesky_singular": dict(prog={"train.py": P_LINEAX}, cmd=PY, env=G1, limit=120),
        "e3nn_irreps_dim": dict(prog={"train.py": P_E3NN}, cmd=PY, env=G0, limit=120),
        "einops_patch_indivisible": dict(prog={"train.py": P_EINOPS}, cmd=PY, env=G1, limit=120),
        "numba_tpb_2048": dict(prog={"kernels.py": P_NUMBA_TPB}, cmd="python kernels.py", env=G0, limit=120),
        "h5py_spawn_pickle": dict(prog={"train.py": P_H5_SPAWN}, cmd=PY, env=G1, limit=120),
        "tm_metric_on_cpu": dict(prog={"train.py": P_TM_DEVICE}, cmd=PY, env=G0, limit=120),
        "tm_compute_rank0_only": dict(prog={"train.py": P_TM_RANK0}, cmd=tr(29621),
                                      env=dict(W, PG_TIMEOUT="30"), limit=150),
        # ---------------- configuration
        "numba_driver_path_bad": dict(prog={"kernels.py": P_NUMBA_DRIVER}, cmd="python kernels.py",
                                      env=dict(G1, NUMBA_CUDA_DRIVER="/usr/local/cuda/lib64/libcuda.so"),
                                      limit=90),
        "jax_cuda_visible_bad": dict(prog={"train.py": P_JAX_VISIBLE}, cmd=PY,
                                     env={"JAX_CUDA_VISIBLE_DEVICES": "2,3"}, limit=90),
        "alloc_pinned_threads": dict(prog={"train.py": P_PIN_THREADS}, cmd=PY,
                                     env=dict(G0, PYTORCH_CUDA_ALLOC_CONF="pinned_use_cuda_host_register:True,"
                                              "pinned_num_register_threads:6"), limit=90),
        "nccl_tuner_plugin_missing": dict(prog={"train.py": P_ALLREDUCE}, cmd=tr(29641),
                                          env=dict(W, NCCL_TUNER_PLUGIN="libnccl-tuner-ib-sharp.so"), limit=90),
        # ---------------- healthy
        "healthy_nnx_sharded": dict(prog={"train.py": P_NNX_HEALTHY}, cmd=PY, env={}, limit=120),
        "healthy_diffrax_kvaerno": dict(prog={"train.py": P_DIFFRAX}, cmd=PY, env=dict(G0, SOLVER="Kvaerno5"),
                                        limit=150),
        "healthy_eqx_filter_jit": dict(prog={"train.py": P_EQX_HEALTHY}, cmd=PY, env=G1, limit=120),
        "healthy_orbax_manager": dict(prog={"train.py": P_ORBAX_HEALTHY}, cmd=PY, env=G0, limit=120),
        "healthy_numba_torch_interop": dict(prog={"kernels.py": P_NUMBA_HEALTHY}, cmd="python kernels.py",
                                            env=G1, limit=120),
        "healthy_tm_ddp": dict(prog={"train.py": P_TM_HEALTHY}, cmd=tr(29631), env=W, limit=120),
        "healthy_timm_ddp_syncbn": dict(prog={"train.py": P_TIMM_DDP}, cmd=tr(29632), env=W, limit=150),
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
                   "equinox|diffrax|lineax|e3nn|einops|numba|h5py|torchmetrics|timm)'" % PYEXE),
        "python": sys.version.split()[0],
        "python_path": PYEXE,
        "kernel": sh("uname -r"),
        "os": sh("grep PRETTY_NAME /etc/os-release"),
        "nproc": sh("nproc"),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTHONPATH", "PYTORCH", "XLA_",
                                 "JAX_", "TRITON_", "NUMBA_"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p26out"
    mname = os.environ.get("P26_MANIFEST", "manifest.json")
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
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P26_JOBS", "40"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in par]
        for f in concurrent.futures.as_completed(futs):
            note(f.result())
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, mname), "w") as f:
        json.dump({"facts": facts(), "base_dir": base, "wall_s": round(time.time() - T0, 1),
                   "scenarios": results}, f, indent=1)
    subprocess.run("cd %s && tar czf %s *.log && rm -f *.log" % (out, os.environ.get("P26_TAR", "logs.tar.gz")),
                   shell=True)
    print("done in %.0f s" % (time.time() - T0), flush=True)


if __name__ == "__main__":
    main()
