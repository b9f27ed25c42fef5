#!/usr/bin/env python3
"""P24 (eval-p24): plant multi-GPU training failures of kinds no earlier set planted, on 2x H100.

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
START_BY_S = float(os.environ.get("P24_START_BY_S", "240"))
END_BY_S = float(os.environ.get("P24_END_BY_S", "400"))

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


def setup(seconds=600):
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=seconds),
                            device_id=torch.device("cuda", LOCAL_RANK))
    return torch.device("cuda", LOCAL_RANK)
'''

GP_HEAD = r'''
import torch
import gpytorch

torch.manual_seed(0)
dev = torch.device("cuda")


class GP(gpytorch.models.ExactGP):
    def __init__(self, x, y, lik):
        super().__init__(x, y, lik)
        self.mean = gpytorch.means.ConstantMean()
        self.cov = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean(x), self.cov(x))
'''

P_GP_NOTPSD = GP_HEAD + r'''
print("gpytorch", gpytorch.__version__, "torch", torch.__version__)
t = torch.linspace(0, 1, 250, device=dev)
x = t.repeat(4).unsqueeze(-1)          # sensor grid, 4 passes over the same positions
y = torch.sin(6 * x).squeeze(-1)
lik = gpytorch.likelihoods.GaussianLikelihood(noise_constraint=gpytorch.constraints.GreaterThan(1e-8)).to(dev)
lik.noise = 1e-8
model = GP(x, y, lik).to(dev)
model.cov.outputscale = 1e4
model.cov.base_kernel.lengthscale = 2.0
mll = gpytorch.mlls.ExactMarginalLogLikelihood(lik, model)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
model.train(); lik.train()
print("train points", x.shape[0])
with gpytorch.settings.max_cholesky_size(5000):
    for i in range(40):
        opt.zero_grad()
        loss = -mll(model(x), y)
        loss.backward()
        opt.step()
        if i % 10 == 0:
            print(f"iter {i} loss {loss.item():.4f} lengthscale {model.cov.base_kernel.lengthscale.item():.3f}")
print("done")
'''

P_GP_TRAINMODE = GP_HEAD + r'''
x = torch.rand(300, 1, device=dev)
y = torch.sin(8 * x).squeeze(-1) + 0.05 * torch.randn(300, device=dev)
lik = gpytorch.likelihoods.GaussianLikelihood().to(dev)
model = GP(x, y, lik).to(dev)
mll = gpytorch.mlls.ExactMarginalLogLikelihood(lik, model)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
model.train(); lik.train()
for i in range(30):
    opt.zero_grad()
    loss = -mll(model(x), y)
    loss.backward()
    opt.step()
    if i % 10 == 0:
        print(f"iter {i} loss {loss.item():.4f}")
test_x = torch.linspace(0, 1, 100, device=dev).unsqueeze(-1)
with torch.no_grad():
    pred = lik(model(test_x))
print("mean", pred.mean[:5].tolist())
'''

P_GP_OK = GP_HEAD + r'''
print("gpytorch", gpytorch.__version__)
x = torch.rand(2000, 1, device=dev)
y = torch.sin(8 * x).squeeze(-1) + 0.05 * torch.randn(2000, device=dev)
lik = gpytorch.likelihoods.GaussianLikelihood().to(dev)
model = GP(x, y, lik).to(dev)
mll = gpytorch.mlls.ExactMarginalLogLikelihood(lik, model)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
model.train(); lik.train()
for i in range(50):
    opt.zero_grad()
    loss = -mll(model(x), y)
    loss.backward()
    opt.step()
    if i % 10 == 0:
        print(f"iter {i} loss {loss.item():.4f} noise {lik.noise.item():.5f}")
model.eval(); lik.eval()
test_x = torch.linspace(0, 1, 500, device=dev).unsqueeze(-1)
with torch.no_grad(), gpytorch.settings.fast_pred_var():
    pred = lik(model(test_x))
err = (pred.mean - torch.sin(8 * test_x).squeeze(-1)).abs().mean().item()
print(f"test mae {err:.4f}")
'''

P_BOTORCH_1D = r'''
import torch
from botorch.models import SingleTaskGP
from botorch.fit import fit_gpytorch_mll
from gpytorch.mlls import ExactMarginalLogLikelihood

dev = torch.device("cuda")
X = torch.rand(24, 3, device=dev, dtype=torch.double)
Y = torch.sin(X.sum(-1) * 3) + 0.01 * torch.randn(24, device=dev, dtype=torch.double)
print("X", tuple(X.shape), "Y", tuple(Y.shape))
gp = SingleTaskGP(X, Y)
mll = ExactMarginalLogLikelihood(gp.likelihood, gp)
fit_gpytorch_mll(mll)
print("fitted")
'''

P_BOTORCH_OK = r'''
import torch
from botorch.models import SingleTaskGP
from botorch.fit import fit_gpytorch_mll
from botorch.acquisition import LogExpectedImprovement
from botorch.optim import optimize_acqf
from gpytorch.mlls import ExactMarginalLogLikelihood

dev = torch.device("cuda")
torch.manual_seed(1)
X = torch.rand(24, 3, device=dev)
Y = (torch.sin(X.sum(-1) * 3) + 0.01 * torch.randn(24, device=dev)).unsqueeze(-1)
gp = SingleTaskGP(X, Y)
mll = ExactMarginalLogLikelihood(gp.likelihood, gp)
fit_gpytorch_mll(mll)
acq = LogExpectedImprovement(gp, best_f=Y.max())
bounds = torch.stack([torch.zeros(3, device=dev), torch.ones(3, device=dev)])
cand, val = optimize_acqf(acq, bounds=bounds, q=1, num_restarts=4, raw_samples=64)
print("candidate", [round(v, 4) for v in cand.squeeze(0).tolist()], "acq", round(val.item(), 4))
'''

P_ODE_ADJ_FUNC = r'''
import torch
import torch.nn as nn
from torchdiffeq import odeint_adjoint

dev = torch.device("cuda")
k = nn.Parameter(torch.tensor(0.7, device=dev))


def decay(t, y):
    return -k * y


t = torch.linspace(0, 5, 50, device=dev)
y0 = torch.ones(128, 4, device=dev)
target = torch.exp(-0.3 * t)[:, None, None] * y0
opt = torch.optim.Adam([k], lr=0.05)
for step in range(20):
    opt.zero_grad()
    ys = odeint_adjoint(decay, y0, t)
    loss = (ys - target).pow(2).mean()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f} k {k.item():.4f}")
'''

P_ODE_T_DUP = r'''
import torch
import torch.nn as nn
from torchdiffeq import odeint

dev = torch.device("cuda")
torch.manual_seed(0)


class Field(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 2))

    def forward(self, t, y):
        return self.net(y)


# observation times from the logger (seconds), rounded to 0.1 s
obs_t = torch.tensor([0.0, 0.1, 0.2, 0.3, 0.3, 0.4, 0.5, 0.6, 0.6, 0.7, 0.8, 0.9, 1.0], device=dev)
obs_y = torch.stack([torch.cos(obs_t * 3), torch.sin(obs_t * 3)], -1)
f = Field().to(dev)
opt = torch.optim.Adam(f.parameters(), lr=1e-2)
for it in range(30):
    opt.zero_grad()
    pred = odeint(f, obs_y[0], obs_t, method="dopri5")
    loss = (pred - obs_y).pow(2).mean()
    loss.backward()
    opt.step()
    if it % 10 == 0:
        print(f"it {it} loss {loss.item():.5f}")
'''

P_ODE_OK = r'''
import time
import torch
import torch.nn as nn
from torchdiffeq import odeint_adjoint

dev = torch.device("cuda")
torch.manual_seed(0)


class Field(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 2))

    def forward(self, t, y):
        return self.net(y)


t = torch.linspace(0, 2, 40, device=dev)
y_true = torch.stack([torch.cos(t * 3), torch.sin(t * 3)], -1)
f = Field().to(dev)
opt = torch.optim.Adam(f.parameters(), lr=1e-2)
t0 = time.time()
for it in range(60):
    opt.zero_grad()
    pred = odeint_adjoint(f, y_true[0], t, rtol=1e-5, atol=1e-6)
    loss = (pred - y_true).pow(2).mean()
    loss.backward()
    opt.step()
    if it % 10 == 0:
        print(f"it {it} loss {loss.item():.5f} nfe-time {time.time() - t0:.1f}s", flush=True)
print(f"final loss {loss.item():.5f}")
'''

P_SAFET_SHARD = HEAD + r'''
from safetensors.torch import save_file


def main():
    dev = setup(seconds=60)
    torch.manual_seed(0)
    full = nn.Linear(1024, 4096).to(dev)
    # tensor-parallel export: each rank keeps its slice of the input features of the projection
    shard_w = full.weight.detach().chunk(WORLD, dim=1)[RANK]
    state = {"proj.weight": shard_w, "proj.bias": full.bias.detach()}
    path = f"ckpt/model-tp{RANK:02d}.safetensors"
    os.makedirs("ckpt", exist_ok=True)
    log(f"saving {path} weight {tuple(shard_w.shape)}")
    save_file(state, path)
    dist.barrier()
    log("saved")
    dist.destroy_process_group()


main()
'''

P_VMAP_BN = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, vmap, grad

dev = torch.device("cuda")
model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)).to(dev)
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def sample_loss(p, b, x, y):
    out = functional_call(model, (p, b), (x.unsqueeze(0),))
    return F.cross_entropy(out, y.unsqueeze(0))


x = torch.randn(64, 3, 32, 32, device=dev)
y = torch.randint(0, 10, (64,), device=dev)
# per-sample gradients for DP-SGD clipping
per_sample = vmap(grad(sample_loss), in_dims=(None, None, 0, 0))(params, buffers, x, y)
norms = torch.stack([g.flatten(1).norm(dim=1) for g in per_sample.values()]).norm(dim=0)
print("per-sample grad norms", norms[:4].tolist())
'''

P_FUNC_GRAD_VEC = r'''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad

dev = torch.device("cuda")
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(dev)
params = {k: v.detach() for k, v in model.named_parameters()}
x = torch.randn(32, 64, device=dev)
y = torch.randint(0, 10, (32,), device=dev)


def loss_fn(p, x, y):
    return F.cross_entropy(functional_call(model, p, (x,)), y, reduction="none")


g = grad(loss_fn)(params, x, y)
print({k: tuple(v.shape) for k, v in g.items()})
'''

P_CUSTOM_OP_NOFAKE = r'''
import torch


@torch.library.custom_op("mylib::scale_bias_act", mutates_args=())
def scale_bias_act(x: torch.Tensor, scale: float, bias: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(x * scale + bias)


class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = torch.nn.Linear(d, d)
        self.bias = torch.nn.Parameter(torch.zeros(d))

    def forward(self, x):
        return scale_bias_act(self.lin(x), 0.5, self.bias)


dev = torch.device("cuda")
m = Block(1024).to(dev)
x = torch.randn(64, 1024, device=dev)
print("eager", m(x).sum().item())
cm = torch.compile(m)
print("compiled", cm(x).sum().item())
'''

P_CUSTOM_OP_OK = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


@torch.library.custom_op("mylib::scale_bias_act", mutates_args=())
def scale_bias_act(x: torch.Tensor, scale: float, bias: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.silu(x * scale + bias)


@scale_bias_act.register_fake
def _(x, scale, bias):
    return torch.empty_like(x)


def _backward(ctx, g):
    x, bias = ctx.saved_tensors
    z = x * ctx.scale + bias
    s = torch.sigmoid(z)
    dz = g * (s * (1 + z * (1 - s)))
    return dz * ctx.scale, None, dz.sum(0)


def _setup(ctx, inputs, output):
    x, scale, bias = inputs
    ctx.save_for_backward(x, bias)
    ctx.scale = scale


scale_bias_act.register_autograd(_backward, setup_context=_setup)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.bias = nn.Parameter(torch.zeros(d))
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        return self.head(scale_bias_act(self.lin(x), 0.5, self.bias))


def main():
    dev = setup()
    torch.manual_seed(0)
    model = DDP(Block(1024).to(dev), device_ids=[LOCAL_RANK])
    cm = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(30):
        x = torch.randn(64, 1024, device=dev)
        y = torch.randint(0, 10, (64,), device=dev)
        loss = F.cross_entropy(cm(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    log("done")
    dist.destroy_process_group()


main()
'''

P_ONNX_DATADEP = r'''
import torch
import torch.nn as nn


class GatedHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(256, 256)
        self.out = nn.Linear(256, 8)

    def forward(self, x):
        h = self.lin(x)
        if h.mean() > 0:
            h = torch.relu(h)
        else:
            h = torch.tanh(h)
        return self.out(h)


model = GatedHead().cuda().eval()
x = torch.randn(16, 256, device="cuda")
print("torch", torch.__version__)
torch.onnx.export(model, (x,), "gated_head.onnx", dynamo=True, input_names=["x"], output_names=["y"])
print("exported")
'''

P_ONNX_OK = r'''
import numpy as np
import onnxruntime as ort
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(256, 256), nn.GELU(), nn.LayerNorm(256), nn.Linear(256, 8))

    def forward(self, x):
        return self.net(x)


model = Head().cuda().eval()
x = torch.randn(16, 256, device="cuda")
batch = torch.export.Dim("batch")
prog = torch.onnx.export(model, (x,), "head.onnx", dynamo=True, input_names=["x"], output_names=["y"],
                         dynamic_shapes={"x": {0: batch}})
print("exported", type(prog).__name__)
sess = ort.InferenceSession("head.onnx", providers=["CPUExecutionProvider"])
xs = torch.randn(5, 256)
got = sess.run(None, {"x": xs.numpy()})[0]
ref = model(xs.cuda()).detach().cpu().numpy()
print("max abs diff", float(np.abs(got - ref).max()))
'''

P_TRITON_DOT_SMALL = r'''
import torch
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + pid * BM * BK + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + pid * BK * BN + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], c)


# 4096 tiny 8x8 matrices (per-head rotation blocks)
B, M = 4096, 8
a = torch.randn(B, M, M, device="cuda", dtype=torch.float16)
b = torch.randn(B, M, M, device="cuda", dtype=torch.float16)
c = torch.empty(B, M, M, device="cuda", dtype=torch.float32)
bmm_kernel[(B,)](a, b, c, BM=M, BN=M, BK=M)
print("max err", (c - (a.float() @ b.float())).abs().max().item())
'''

P_TRITON_NONCONST = r'''
import torch
import triton
import triton.language as tl


@triton.jit
def rms_kernel(x_ptr, out_ptr, n_cols, eps, BLOCK):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.0).to(tl.float32)
    r = tl.rsqrt(tl.sum(x * x, 0) / n_cols + eps)
    tl.store(out_ptr + row * n_cols + cols, x * r, mask=m)


x = torch.randn(512, 1000, device="cuda")
out = torch.empty_like(x)
rms_kernel[(x.shape[0],)](x, out, x.shape[1], 1e-6, triton.next_power_of_2(x.shape[1]))
ref = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
print("max err", (out - ref).abs().max().item())
'''

P_JAX_DONATE = r'''
import functools
import jax
import jax.numpy as jnp

print("jax", jax.__version__, jax.devices())
key = jax.random.PRNGKey(0)
params = {"w": jax.random.normal(key, (1024, 1024)), "b": jnp.zeros(1024)}


def loss(p, x):
    return jnp.mean((x @ p["w"] + p["b"]) ** 2)


@functools.partial(jax.jit, donate_argnums=(0,))
def sgd_step(p, x):
    g = jax.grad(loss)(p, x)
    return jax.tree.map(lambda a, b: a - 1e-3 * b, p, g)


x = jax.random.normal(key, (256, 1024))
new_params = sgd_step(params, x)
print("step done, loss", float(loss(new_params, x)))
drift = jnp.abs(new_params["w"] - params["w"]).max()
print("max update", float(drift))
'''

P_JAX_SHMAP = r'''
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
try:
    from jax import shard_map
except ImportError:
    from jax.experimental.shard_map import shard_map

devs = jax.devices()
print("jax", jax.__version__, devs)
mesh = Mesh(devs, ("data",))
AXIS = AXIS_NAME


def local_stats(x):
    s = jnp.sum(x, axis=0)
    return jax.lax.psum(s, AXIS)


f = jax.jit(shard_map(local_stats, mesh=mesh, in_specs=P("data"), out_specs=P()))
x = jnp.arange(len(devs) * 1024 * 8, dtype=jnp.float32).reshape(len(devs) * 1024, 8)
out = f(x)
print("global sums", out[:4].tolist(), "sharding", out.sharding)
print("check", bool(jnp.allclose(out, x.sum(0))))
'''

P_JAX_TRACER = r'''
import jax
import jax.numpy as jnp

print("jax", jax.__version__, jax.devices())
key = jax.random.PRNGKey(0)
w = jax.random.normal(key, (512, 1)) * 0.01
X = jax.random.normal(key, (4096, 512))
yv = X @ jnp.ones((512, 1))
loss_history = []


def mse(w, X, y):
    return jnp.mean((X @ w - y) ** 2)


@jax.jit
def train_step(w, X, y):
    l, g = jax.value_and_grad(mse)(w, X, y)
    loss_history.append(l)
    return w - 1e-3 * g


for i in range(5):
    w = train_step(w, X, yv)
print("losses", jnp.stack(loss_history))
'''

P_EMA_WN = HEAD + r'''
import copy
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.utils.weight_norm(nn.Linear(256, 512))
        self.fc2 = nn.utils.weight_norm(nn.Linear(512, 10))

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def main():
    dev = setup(seconds=60)
    model = DDP(Net().to(dev), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ema = None
    for step in range(20):
        x = torch.randn(128, 256, device=dev)
        y = torch.randint(0, 10, (128,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step == 9:
            log("starting EMA copy of the weights")
            ema = copy.deepcopy(model.module).eval()
        if ema is not None:
            with torch.no_grad():
                for pe, pm in zip(ema.parameters(), model.module.parameters()):
                    pe.lerp_(pm, 0.01)
        if step % 5 == 0:
            log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


main()
'''

P_SDPA_MASK = HEAD + r'''
from torch.nn.parallel import DistributedDataParallel as DDP


class Attn(nn.Module):
    def __init__(self, d=512, h=8):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, d)

    def forward(self, x, mask):
        B, L, D = x.shape
        q, k, v = self.qkv(x).view(B, L, 3, self.h, D // self.h).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.o(y.transpose(1, 2).reshape(B, L, D))


def main():
    dev = setup(seconds=60)
    model = DDP(Attn().to(dev, dtype=torch.bfloat16), device_ids=[LOCAL_RANK])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    L = 256
    lengths = torch.randint(128, L + 1, (8,), device=dev)
    pad = torch.arange(L, device=dev)[None, :] >= lengths[:, None]
    mask = torch.zeros(8, 1, L, L, device=dev).masked_fill(pad[:, None, None, :], float("-inf"))
    for step in range(10):
        x = torch.randn(8, L, 512, device=dev, dtype=torch.bfloat16)
        loss = model(x, mask).float().pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        log(f"step {step} loss {loss.item():.4f}")
    dist.destroy_process_group()


main()
'''

P_FLEX_BM = r'''
import torch
from torch.nn.attention.flex_attention import flex_attention, create_block_mask


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


MAX_LEN = 1024
block_mask = create_block_mask(causal, B=None, H=None, Q_LEN=MAX_LEN, KV_LEN=MAX_LEN, device="cuda")
print("block mask", block_mask.shape)
for seq in (512, 1024, 2048):
    q = torch.randn(2, 8, seq, 64, device="cuda", dtype=torch.bfloat16)
    out = flex_attention(q, q, q, block_mask=block_mask)
    print("seq", seq, "out", tuple(out.shape))
'''

# ---------------- configuration
P_TORCHAUDIO = r'''
import math
import struct
import wave

import torch
import torchaudio

print("torch", torch.__version__, "torchaudio", torchaudio.__version__)
sr = 16000
with wave.open("clip_0001.wav", "wb") as w:
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(sr)
    w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / sr))) for i in range(sr)))
wav, rate = torchaudio.load("clip_0001.wav")
mel = torchaudio.transforms.MelSpectrogram(sample_rate=rate, n_mels=80).cuda()(wav.cuda())
print("mel", tuple(mel.shape))
'''

P_JAX_DEVS = r'''
import jax
import jax.numpy as jnp

print("jax", jax.__version__)
devs = jax.devices()
print("devices", devs)
x = jnp.ones((4096, 4096))
print("matmul", float((x @ x).sum()))
'''

P_LOCAL_RANK_ARG = r'''
import argparse
import os

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, required=True)
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()
torch.cuda.set_device(args.local_rank)
dist.init_process_group("nccl")
t = torch.ones(4, device="cuda")
dist.all_reduce(t)
print("rank", dist.get_rank(), t.tolist())
dist.destroy_process_group()
'''

P_COMPILE_MM = r'''
import os
import torch
import torch.nn as nn

print({k: v for k, v in os.environ.items() if k.startswith("TORCHINDUCTOR")})
model = nn.Sequential(nn.Linear(2048, 8192), nn.GELU(), nn.Linear(8192, 2048)).cuda().half()
cm = torch.compile(model)
x = torch.randn(512, 2048, device="cuda", dtype=torch.half)
with torch.no_grad():
    y = cm(x)
print("out", tuple(y.shape), float(y.float().abs().mean()))
'''

P_ALLOC_CONF = r'''
import os
import torch

print("PYTORCH_CUDA_ALLOC_CONF =", os.environ.get("PYTORCH_CUDA_ALLOC_CONF"))
x = torch.randn(8192, 8192, device="cuda")
for i in range(5):
    y = x @ x
    del y
print("allocator backend", torch.cuda.memory.get_allocator_backend())
print("max allocated MiB", torch.cuda.max_memory_allocated() // 2**20)
'''

P_JAX_JIT_SMALL = r'''
import jax
import jax.numpy as jnp

print("jax", jax.__version__, jax.devices())


@jax.jit
def f(x):
    return jnp.tanh(x @ x.T).sum()


x = jax.random.normal(jax.random.PRNGKey(0), (2048, 2048))
print("value", float(f(x)))
'''

# ---------------- words (timed)
P_FLEX_TIMED = r'''
import os
import time
import torch
from torch.nn.attention.flex_attention import flex_attention, create_block_mask

COMPILED = os.environ.get("FLEX_COMPILED", "0") == "1"
attn = torch.compile(flex_attention) if COMPILED else flex_attention


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


B, H, L, D = 4, 16, 4096, 64
bm = create_block_mask(causal, B=None, H=None, Q_LEN=L, KV_LEN=L, device="cuda")
q, k, v = (torch.randn(B, H, L, D, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
for i in range(23):
    if i == 3:
        torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats(); t = time.time()
    out = attn(q, k, v, block_mask=bm)
    out.sum().backward()
torch.cuda.synchronize()
ms = (time.time() - t) / 20 * 1000
print(f"attention fwd+bwd B={B} H={H} L={L} D={D}: {ms:.2f} ms/iter, peak {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB")
'''

P_JAX_TRAIN_TIMED = r'''
import os
import time
import jax
import jax.numpy as jnp

print("jax", jax.__version__, jax.devices())
print("env:", {k: v for k, v in sorted(os.environ.items()) if k.startswith(("JAX_", "XLA_"))})
key = jax.random.PRNGKey(0)
k1, k2, k3 = jax.random.split(key, 3)
params = {"w1": jax.random.normal(k1, (784, 512)) * 0.05, "w2": jax.random.normal(k2, (512, 512)) * 0.05,
          "w3": jax.random.normal(k3, (512, 10)) * 0.05}


def loss(p, x, y):
    h = jax.nn.relu(x @ p["w1"])
    h = jax.nn.relu(h @ p["w2"])
    logits = h @ p["w3"]
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, -1))


@jax.jit
def step(p, x, y):
    l, g = jax.value_and_grad(loss)(p, x, y)
    return jax.tree.map(lambda a, b: a - 0.05 * b, p, g), l


x = jax.random.normal(key, (256, 784))
y = jax.nn.one_hot(jax.random.randint(key, (256,), 0, 10), 10)
params, l = step(params, x, y)
l.block_until_ready()
t = time.time()
for i in range(200):
    params, l = step(params, x, y)
l.block_until_ready()
print(f"200 steps: {(time.time() - t) / 200 * 1000:.2f} ms/step, loss {float(l):.4f}")
'''

P_SDPA_TIMED = r'''
import os
import time
import torch
import torch.nn.functional as F

if os.environ.get("ATTN_DEBUG") == "1":      # set while chasing NaNs last month
    torch.backends.cuda.enable_flash_sdp(False)
    torch.backends.cuda.enable_mem_efficient_sdp(False)
    torch.backends.cuda.enable_cudnn_sdp(False)
print("sdpa backends: flash", torch.backends.cuda.flash_sdp_enabled(), "mem_efficient",
      torch.backends.cuda.mem_efficient_sdp_enabled(), "cudnn", torch.backends.cuda.cudnn_sdp_enabled(),
      "math", torch.backends.cuda.math_sdp_enabled())
B, H, L, D = 8, 16, 2048, 64
q, k, v = (torch.randn(B, H, L, D, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
for i in range(23):
    if i == 3:
        torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats(); t = time.time()
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out.sum().backward()
torch.cuda.synchronize()
print(f"sdpa fwd+bwd: {(time.time() - t) / 20 * 1000:.2f} ms/iter, peak {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB")
'''

P_DET_TIMED = r'''
import os
import time
import torch

if os.environ.get("REPRO") == "1":
    torch.use_deterministic_algorithms(True)
print("torch", torch.__version__, "deterministic:", torch.are_deterministic_algorithms_enabled())
dev = torch.device("cuda")
# message passing: sum edge messages into destination nodes
N, E, D = 100000, 4000000, 128
dst = torch.randint(0, N, (E,), device=dev)
msg = torch.randn(E, D, device=dev)
for i in range(13):
    if i == 3:
        torch.cuda.synchronize(); t = time.time()
    agg = torch.zeros(N, D, device=dev).index_add_(0, dst, msg)
torch.cuda.synchronize()
print(f"aggregate {E} edges -> {N} nodes: {(time.time() - t) / 10 * 1000:.2f} ms/step, checksum {agg.sum().item():.1f}")
'''

P_NUMPYRO = r'''
import os
import time
import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS

CHAINS = int(os.environ.get("CHAINS", "2"))
print("numpyro", numpyro.__version__, "jax", jax.__version__, jax.devices())


def model(X, y=None):
    w = numpyro.sample("w", dist.Normal(0, 1).expand([X.shape[1]]).to_event(1))
    b = numpyro.sample("b", dist.Normal(0, 1))
    numpyro.sample("y", dist.Bernoulli(logits=X @ w + b), obs=y)


key = jax.random.PRNGKey(0)
X = jax.random.normal(key, (5000, 8))
true_w = jnp.arange(8) / 4.0 - 1.0
y = (jax.random.uniform(key, (5000,)) < jax.nn.sigmoid(X @ true_w)).astype(jnp.int32)
mcmc = MCMC(NUTS(model), num_warmup=250, num_samples=250, num_chains=CHAINS, chain_method="parallel",
            progress_bar=False)
t = time.time()
mcmc.run(jax.random.PRNGKey(1), X, y)
print(f"{CHAINS} chains x 500 iterations: {time.time() - t:.1f} s")
mcmc.print_summary(exclude_deterministic=True)
'''

P_JAX_X64 = r'''
import numpy as np
import jax
import jax.numpy as jnp

print("jax", jax.__version__, jax.devices())
rng = np.random.default_rng(0)
# GPS timestamps in seconds (epoch ~1.7e9) with sub-millisecond jitter
ts = 1.7e9 + np.cumsum(rng.uniform(0.0995, 0.1005, 100000))
ts_j = jnp.asarray(ts, dtype=jnp.float64)
dt_np = np.diff(ts)
dt_j = jnp.diff(ts_j)
print("numpy: mean dt %.6f s  std %.3e  min %.6f" % (dt_np.mean(), dt_np.std(), dt_np.min()))
print("jax  : mean dt %.6f s  std %.3e  min %.6f" % (float(dt_j.mean()), float(dt_j.std()), float(dt_j.min())))
print("dtype", ts_j.dtype)
'''


P_JAX_TRAIN2 = P_JAX_TRAIN_TIMED.replace('print("env:", {k: v for k, v in sorted(os.environ.items()) if k.startswith(("JAX_", "XLA_"))})\n', '')

P_JAX_LSTSQ = r'''
import numpy as np
import jax
import jax.numpy as jnp

print("jax", jax.__version__, jax.devices())
rng = np.random.default_rng(0)
n, d = 20000, 64
X = rng.normal(size=(n, d)).astype(np.float32)
X[:, 1:] = 0.9 * X[:, :1] + 0.1 * X[:, 1:]
true_w = np.linspace(-1, 1, d).astype(np.float32)
y = (X @ true_w + 0.01 * rng.normal(size=n)).astype(np.float32)
Xj, yj = jnp.asarray(X), jnp.asarray(y)
w_j = jnp.linalg.solve(Xj.T @ Xj, Xj.T @ yj)
w_np = np.linalg.solve(X.astype(np.float64).T @ X, X.astype(np.float64).T @ y)
print("numpy weights[:4]", np.round(w_np[:4], 4))
print("jax   weights[:4]", np.round(np.asarray(w_j[:4]), 4))
print("max |w_jax - w_numpy| = %.4g" % float(np.abs(np.asarray(w_j) - w_np).max()))
print("residual rmse numpy %.5f jax %.5f" % (np.sqrt(np.mean((X @ w_np - y) ** 2)),
                                           float(jnp.sqrt(jnp.mean((Xj @ w_j - yj) ** 2)))))
'''


def sc_b():
    return {
        "w_jax_platforms_cpu": dict(prog={"train.py": P_JAX_TRAIN2}, cmd=PY, env=dict(G0, JAX_PLATFORMS="cpu"),
                                    limit=90, pair="base_jax_platforms_cpu"),
        "base_jax_platforms_cpu": dict(prog={"train.py": P_JAX_TRAIN2}, cmd=PY, env=G1, limit=90, paired=True),
        "w_jax_matmul_precision_env": dict(prog={"train.py": P_JAX_LSTSQ}, cmd=PY,
                                           env=dict(G0, JAX_DEFAULT_MATMUL_PRECISION="bfloat16"), limit=90,
                                           pair="base_jax_matmul_precision_env"),
        "base_jax_matmul_precision_env": dict(prog={"train.py": P_JAX_LSTSQ}, cmd=PY, env=G1, limit=90,
                                              paired=True),
    }


def tr(port, extra="", script="train.py"):
    return " ".join(("torchrun --nproc-per-node 2 --master-port %d %s %s" % (port, extra, script)).split())


W = {"NCCL_DEBUG": "WARN"}
G0 = {"CUDA_VISIBLE_DEVICES": "0"}
G1 = {"CUDA_VISIBLE_DEVICES": "1"}
PY = "python train.py"


def scenarios():
    shmap_bad = P_JAX_SHMAP.replace("AXIS_NAME", '"batch"')
    shmap_ok = P_JAX_SHMAP.replace("AXIS_NAME", '"data"')
    return {
        # ---------------- words, timed (phase A): pairs started together (case GPU0, baseline GPU1)
        "w_flex_uncompiled": dict(prog={"train.py": P_FLEX_TIMED}, cmd=PY, env=dict(G0, FLEX_COMPILED="0"),
                                  limit=150, pair="base_flex_uncompiled"),
        "base_flex_uncompiled": dict(prog={"train.py": P_FLEX_TIMED}, cmd=PY, env=dict(G1, FLEX_COMPILED="1"),
                                     limit=150, paired=True),
        "w_jax_disable_jit": dict(prog={"train.py": P_JAX_TRAIN_TIMED}, cmd=PY, env=dict(G0, JAX_DISABLE_JIT="1"),
                                  limit=90, pair="base_jax_disable_jit"),
        "base_jax_disable_jit": dict(prog={"train.py": P_JAX_TRAIN_TIMED}, cmd=PY, env=G1, limit=90, paired=True),
        "w_sdpa_math_only": dict(prog={"train.py": P_SDPA_TIMED}, cmd=PY, env=dict(G0, ATTN_DEBUG="1"), limit=90,
                                 pair="base_sdpa_math_only"),
        "base_sdpa_math_only": dict(prog={"train.py": P_SDPA_TIMED}, cmd=PY, env=G1, limit=90, paired=True),
        "w_deterministic_index_add": dict(prog={"train.py": P_DET_TIMED}, cmd=PY, env=dict(G0, REPRO="1"),
                                          limit=90, pair="base_deterministic_index_add"),
        "base_deterministic_index_add": dict(prog={"train.py": P_DET_TIMED}, cmd=PY, env=G1, limit=90,
                                             paired=True),
        # 2-GPU timed, one after the other
        "w_numpyro_chains_sequential": dict(prog={"train.py": P_NUMPYRO}, cmd=PY, env={"CHAINS": "4"}, limit=150),
        "healthy_numpyro_two_chains": dict(prog={"train.py": P_NUMPYRO}, cmd=PY, env={"CHAINS": "2"}, limit=150),
        # ---------------- user code (phase B, parallel)
        "gpytorch_not_psd": dict(prog={"train.py": P_GP_NOTPSD}, cmd=PY, env=G0, limit=120),
        "gpytorch_train_mode_predict": dict(prog={"train.py": P_GP_TRAINMODE}, cmd=PY, env=G1, limit=90),
        "botorch_train_y_1d": dict(prog={"train.py": P_BOTORCH_1D}, cmd=PY, env=G0, limit=90),
        "torchdiffeq_adjoint_plain_function": dict(prog={"train.py": P_ODE_ADJ_FUNC}, cmd=PY, env=G1, limit=90),
        "torchdiffeq_duplicate_times": dict(prog={"train.py": P_ODE_T_DUP}, cmd=PY, env=G0, limit=90),
        "safetensors_tp_shard_noncontig": dict(prog={"train.py": P_SAFET_SHARD}, cmd=tr(29841), env=W, limit=90),
        "vmap_batchnorm_per_sample": dict(prog={"train.py": P_VMAP_BN}, cmd=PY, env=G1, limit=90),
        "func_grad_vector_loss": dict(prog={"train.py": P_FUNC_GRAD_VEC}, cmd=PY, env=G0, limit=90),
        "custom_op_no_fake_compile": dict(prog={"train.py": P_CUSTOM_OP_NOFAKE}, cmd=PY, env=G1, limit=150),
        "onnx_export_data_dependent_if": dict(prog={"train.py": P_ONNX_DATADEP}, cmd=PY, env=G0, limit=150),
        "triton_dot_tiny_blocks": dict(prog={"train.py": P_TRITON_DOT_SMALL}, cmd=PY, env=G1, limit=90),
        "triton_block_not_constexpr": dict(prog={"train.py": P_TRITON_NONCONST}, cmd=PY, env=G0, limit=90),
        "jax_donated_buffer_reused": dict(prog={"train.py": P_JAX_DONATE}, cmd=PY, env=G0, limit=90),
        "jax_shard_map_unbound_axis": dict(prog={"train.py": shmap_bad}, cmd=PY, env={}, limit=90),
        "jax_tracer_leak_history": dict(prog={"train.py": P_JAX_TRACER}, cmd=PY, env=G1, limit=90),
        "ema_deepcopy_weight_norm": dict(prog={"train.py": P_EMA_WN}, cmd=tr(29842), env=W, limit=90),
        "sdpa_float_mask_bf16": dict(prog={"train.py": P_SDPA_MASK}, cmd=tr(29843), env=W, limit=90),
        "flex_block_mask_too_short": dict(prog={"train.py": P_FLEX_BM}, cmd=PY, env=G1, limit=120),
        "w_jax_x64_truncated": dict(prog={"train.py": P_JAX_X64}, cmd=PY, env=G1, limit=90),
        # ---------------- configuration
        "torchaudio_load_no_torchcodec": dict(prog={"train.py": P_TORCHAUDIO}, cmd=PY, env=G0, limit=90),
        "jax_platforms_tpu": dict(prog={"train.py": P_JAX_DEVS}, cmd=PY, env=dict(G1, JAX_PLATFORMS="tpu"),
                                  limit=90),
        "torchrun_local_rank_required": dict(prog={"train.py": P_LOCAL_RANK_ARG}, cmd=tr(29844), env={},
                                             limit=90),
        "inductor_gemm_backends_cutlass": dict(prog={"train.py": P_COMPILE_MM}, cmd=PY,
                                               env=dict(G0, TORCHINDUCTOR_MAX_AUTOTUNE="1",
                                                        TORCHINDUCTOR_MAX_AUTOTUNE_GEMM_BACKENDS="CUTLASS"),
                                               limit=200),
        "alloc_async_expandable": dict(prog={"train.py": P_ALLOC_CONF}, cmd=PY,
                                       env=dict(G1, PYTORCH_CUDA_ALLOC_CONF="backend:cudaMallocAsync,"
                                                                            "expandable_segments:True"),
                                       limit=90),
        "xla_cuda_data_dir_wrong": dict(prog={"train.py": P_JAX_JIT_SMALL}, cmd=PY,
                                        env=dict(G1, XLA_FLAGS="--xla_gpu_cuda_data_dir=/usr/local/cuda-12.2"),
                                        limit=90),
        # ---------------- healthy
        "healthy_gpytorch_gpu": dict(prog={"train.py": P_GP_OK}, cmd=PY, env=G1, limit=150),
        "healthy_botorch_acqf_float32": dict(prog={"train.py": P_BOTORCH_OK}, cmd=PY, env=G0, limit=150),
        "healthy_torchdiffeq_adjoint": dict(prog={"train.py": P_ODE_OK}, cmd=PY, env=G1, limit=150),
        "healthy_onnx_export_ort": dict(prog={"train.py": P_ONNX_OK}, cmd=PY, env=G0, limit=150),
        "healthy_custom_op_ddp_compile": dict(prog={"train.py": P_CUSTOM_OP_OK}, cmd=tr(29845), env={},
                                              limit=200),
        "healthy_jax_shard_map_psum": dict(prog={"train.py": shmap_ok}, cmd=PY, env={}, limit=90),
    } | sc_b()


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
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(torch|triton|numpy|nvidia-nccl|jax|onnx|gpytorch|"
                   "botorch|numpyro|safetensors|linear-operator|nvidia-cutlass|beartype)'" % PY),
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
    out = os.environ.get("OUT") or "/tmp/p24out"
    mname = os.environ.get("P24_MANIFEST", "manifest.json")
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
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P24_JOBS", "40"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], jd(k), out) for k in par]
        for f in concurrent.futures.as_completed(futs):
            note(f.result())
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, mname), "w") as f:
        json.dump({"facts": facts(), "base_dir": base, "wall_s": round(time.time() - T0, 1),
                   "scenarios": results}, f, indent=1)
    subprocess.run("cd %s && tar czf %s *.log && rm -f *.log" % (out, os.environ.get("P24_TAR", "logs.tar.gz")), shell=True)
    print("done in %.0f s" % (time.time() - T0), flush=True)


if __name__ == "__main__":
    main()
