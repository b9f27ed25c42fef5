#!/usr/bin/env python3
"""P30 planting harness (eval-p30). run_one/facts/main adapted from bench/plant28_h100x2.py."""
import concurrent.futures, json, os, signal, subprocess, sys, tempfile, time
PYEXE = sys.executable
BIN = os.path.dirname(PYEXE)
T0 = time.time()
START_BY_S = float(os.environ.get("P30_START_BY_S", "300"))
END_BY_S = float(os.environ.get("P30_END_BY_S", "420"))
HDR = r'''
import datetime
import os
import time
import torch
import torch.distributed as dist
'''

P_SUBGROUPS = HDR + r'''
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
# one sub-group per node of 4 GPUs for the hierarchical all-reduce
node_group, all_groups = dist.new_subgroups(group_size=4)
x = torch.ones(4, device="cuda")
dist.all_reduce(x, group=node_group)
print("rank", dist.get_rank(), x.tolist())
dist.destroy_process_group()
'''

P_SCATTER_OBJ = HDR + r'''
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank = dist.get_rank()
shards = [{"files": ["a.bin", "b.bin"]}, {"files": ["c.bin"]}] if rank == 0 else None
my_shard = []
dist.scatter_object_list(my_shard, shards, src=0)
print("rank", rank, "got", my_shard, flush=True)
dist.destroy_process_group()
'''

P_HASHSTORE = HDR + r'''
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
store = dist.HashStore()
dist.init_process_group("nccl", store=store, rank=int(os.environ["RANK"]),
                        world_size=int(os.environ["WORLD_SIZE"]), timeout=datetime.timedelta(seconds=20),
                        device_id=torch.device("cuda", local))
t = torch.ones(1, device="cuda")
dist.all_reduce(t)
print("sum", t.item())
dist.destroy_process_group()
'''

P_SCALER_HALF = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(), torch.nn.Linear(512, 10)).cuda().half()
model = DDP(model, device_ids=[local])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
for step in range(5):
    x = torch.randn(64, 256, device="cuda", dtype=torch.half)
    y = torch.randint(0, 10, (64,), device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
    if dist.get_rank() == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_AUTOCAST64 = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
model = DDP(torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 4096)).cuda(),
            device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
amp_dtype = getattr(torch, os.environ.get("AMP_DTYPE", "float64"))
torch.cuda.synchronize(); t0 = time.time()
for step in range(30):
    x = torch.randn(1024, 4096, device="cuda")
    with torch.autocast("cuda", dtype=amp_dtype):
        out = model(x)
        loss = out.float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
torch.cuda.synchronize()
if dist.get_rank() == 0:
    print(f"autocast dtype={amp_dtype} out dtype={out.dtype} 30 steps {time.time()-t0:.2f}s loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''

P_LOSS_PARALLEL = HDR + r'''
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Shard, Replicate, distribute_tensor
from torch.distributed.tensor.parallel import loss_parallel
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (2,))
torch.manual_seed(0)
logits = torch.randn(8, 32000, device="cuda", requires_grad=True)
labels = torch.randint(0, 32000, (8,), device="cuda")
dlogits = distribute_tensor(logits, mesh, [Shard(1)])
with loss_parallel():
    loss = F.cross_entropy(dlogits, labels, reduction="mean")
loss.backward()
print("rank", dist.get_rank(), "loss", loss.full_tensor().item(), flush=True)
dist.destroy_process_group()
'''

P_SEND_SELF = HDR + r'''
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank, world = dist.get_rank(), dist.get_world_size()
# pipeline: pass activations to the next stage (ring)
nxt = (rank + 1) % world
prv = (rank - 1) % world
act = torch.full((4, 16), float(rank), device="cuda")
if rank % 2 == 0:
    dist.send(act, dst=nxt if world > 2 else rank)
    buf = torch.empty_like(act); dist.recv(buf, src=prv)
else:
    buf = torch.empty_like(act); dist.recv(buf, src=prv)
    dist.send(act, dst=nxt)
print("rank", rank, "received", buf[0, 0].item(), flush=True)
dist.destroy_process_group()
'''

P_DIST_OPTIM = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.optim import DistributedOptimizer
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
model = DDP(torch.nn.Linear(128, 10).cuda(), device_ids=[local])
opt = DistributedOptimizer(torch.optim.Adam, model.parameters(), lr=1e-3)
for step in range(3):
    loss = model(torch.randn(32, 128, device="cuda")).sum()
    loss.backward()
    opt.step()
print("done", flush=True)
dist.destroy_process_group()
'''

P_AUTOCAST_DEV = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
device = f"cuda:{local}"
model = DDP(torch.nn.Linear(512, 512).to(device), device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    x = torch.randn(32, 512, device=device)
    with torch.autocast(device_type=device, dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
print("rank", dist.get_rank(), "ok", flush=True)
dist.destroy_process_group()
'''

P_FROM_LOCAL = HDR + r'''
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Shard
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
mesh = init_device_mesh("cuda", (2,))
rank = dist.get_rank()
# 5 validation embeddings split over 2 ranks: rank 0 has 3, rank 1 has 2
n = 3 if rank == 0 else 2
local_emb = torch.arange(n * 4, dtype=torch.float32, device="cuda").reshape(n, 4) + 100 * rank
d = DTensor.from_local(local_emb, mesh, [Shard(0)], run_check=False)
full = d.full_tensor()
print("rank", rank, "global shape", tuple(d.shape), "gathered", tuple(full.shape), flush=True)
print("rank", rank, "row sums", full.sum(1).tolist(), flush=True)
dist.destroy_process_group()
'''

P_PREMUL = HDR + r'''
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
g = torch.randn(1000, device="cuda")
# average gradients in one call: multiply by 1/world before summing
dist.all_reduce(g, op=dist.ReduceOp.PREMUL_SUM)
print("rank", dist.get_rank(), g[:3].tolist(), flush=True)
dist.destroy_process_group()
'''

P_DDP_HALF_AFTER = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
model = DDP(torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 8)).cuda(),
            device_ids=[local])
model = model.to(torch.bfloat16)   # save memory: train in bf16
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    x = torch.randn(32, 256, device="cuda", dtype=torch.bfloat16)
    loss = model(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if dist.get_rank() == 0:
        print("step", step, "loss", loss.item(), flush=True)
dist.destroy_process_group()
'''

P_JAX_DEVICES = r'''
import jax, jax.numpy as jnp
devs = jax.devices()
print("devices:", devs, flush=True)
params = jax.device_put(jnp.ones((1024, 1024)), devs[0])
batch = jax.device_put(jnp.ones((256, 1024)), devs[1])

@jax.jit
def forward(p, x):
    return jnp.tanh(x @ p).mean()

print(forward(params, batch))
'''

P_JAX_MESH = r'''
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
print("devices:", jax.devices(), flush=True)
mesh = jax.make_mesh((4,), ("data",))
x = jax.device_put(jnp.zeros((64, 128)), NamedSharding(mesh, P("data")))
print(x.sharding)
'''

P_JAX_PMAP = r'''
import jax, jax.numpy as jnp
print("local devices:", jax.local_device_count(), flush=True)
per_device_batch = jnp.ones((4, 32, 128))   # [devices, batch, features] prepared for a 4-GPU box
step = jax.pmap(lambda x: jax.lax.pmean((x ** 2).mean(), "i"), axis_name="i")
print(step(per_device_batch))
'''

P_JAX_AXIS = r'''
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
import numpy as np
mesh = Mesh(np.array(jax.devices()), ("batch",))
params = jax.device_put(jnp.ones((128, 128)), NamedSharding(mesh, P()))
x = jax.device_put(jnp.ones((64, 128)), NamedSharding(mesh, P("data", None)))
print((x @ params).sum())
'''

P_JAX_TORCH = r'''
import jax, jax.numpy as jnp
import torch
# jax is only used for the data augmentation
key = jax.random.PRNGKey(0)
noise = jax.random.normal(key, (1024, 1024))
print("jax noise ready on", noise.devices(), flush=True)
model = torch.nn.Linear(8192, 8192).cuda()
acts = []
for i in range(60):
    acts.append(torch.randn(32768, 8192, device="cuda"))
    print("allocated batch", i, f"{torch.cuda.memory_allocated()/2**30:.1f} GiB", flush=True)
print("ok")
'''

P_TRITON_DEV = r'''
import torch, triton, triton.language as tl

@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)

def scale(x):
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out

# second model replica lives on GPU 1; current device stays 0
x = torch.randn(1 << 20, device="cuda:1")
y = scale(x)
torch.cuda.synchronize(1)
print("max err", (y - 2 * x).abs().max().item())
'''

P_FSDP2_OPT = HDR + r'''
from torch.distributed.fsdp import fully_shard
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)).cuda()
early = os.environ.get("OPT_FIRST") == "1"
if early:
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for layer in model:
    if isinstance(layer, torch.nn.Linear):
        fully_shard(layer)
fully_shard(model)
if not early:
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
g = torch.Generator(device="cuda").manual_seed(1 + dist.get_rank())
w_true = torch.randn(64, 1, device="cuda", generator=torch.Generator(device="cuda").manual_seed(7))
for step in range(60):
    x = torch.randn(128, 64, device="cuda", generator=g)
    loss = torch.nn.functional.mse_loss(model(x), x @ w_true)
    loss.backward(); opt.step(); opt.zero_grad()
    if dist.get_rank() == 0 and step % 10 == 0:
        print(f"step {step:3d} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_CONTRASTIVE = HDR + r'''
import torch.nn.functional as F
import torch.distributed.nn.functional as dnnf
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
enc = torch.nn.Linear(128, 64).cuda()

for p in enc.parameters():
    dist.broadcast(p.data, 0)
opt = torch.optim.SGD(enc.parameters(), lr=0.5)
use_autograd = os.environ.get("GATHER") == "autograd"
g = torch.Generator(device="cuda").manual_seed(100)
for step in range(6):
    xa_all = torch.randn(world * 32, 128, device="cuda", generator=g)
    xb_all = xa_all + 0.1 * torch.randn(world * 32, 128, device="cuda", generator=g)
    xa = xa_all[rank * 32:(rank + 1) * 32]; xb = xb_all[rank * 32:(rank + 1) * 32]
    za = F.normalize(enc(xa), dim=1); zb = F.normalize(enc(xb), dim=1)
    if use_autograd:
        zb_all = torch.cat(dnnf.all_gather(zb), 0)
    else:
        parts = [torch.empty_like(zb) for _ in range(world)]
        dist.all_gather(parts, zb)
        parts[rank] = zb
        zb_all = torch.cat(parts, 0)
    logits = za @ zb_all.t() / 0.1
    loss = F.cross_entropy(logits, torch.arange(32, device="cuda") + rank * 32)
    opt.zero_grad(); loss.backward()
    for p in enc.parameters():
        dist.all_reduce(p.grad); p.grad /= world
    gn = torch.sqrt(sum((p.grad ** 2).sum() for p in enc.parameters()))
    opt.step()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f} grad_norm {gn.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_FULL_SD_RANK0 = HDR + r'''
from torch.distributed.fsdp import fully_shard
from torch.distributed.checkpoint.state_dict import get_model_state_dict, StateDictOptions
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local), timeout=datetime.timedelta(seconds=40))
model = torch.nn.Sequential(*[torch.nn.Linear(512, 512) for _ in range(4)]).cuda()
for layer in model:
    fully_shard(layer)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    model(torch.randn(16, 512, device="cuda")).sum().backward(); opt.step(); opt.zero_grad()
print(f"rank {dist.get_rank()} epoch done", flush=True)
if dist.get_rank() == 0:
    print("saving checkpoint ...", flush=True)
    sd = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    torch.save(sd, "model.pt")
    print("saved", flush=True)
dist.barrier()
print(f"rank {dist.get_rank()} finished", flush=True)
dist.destroy_process_group()
'''

P_DDP_OK = HDR + r'''
from torch.nn.parallel import DistributedDataParallel as DDP
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
model = DDP(torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)).cuda(),
            device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(40):
    x = torch.randn(64, 256, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad()
    if dist.get_rank() == 0 and step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_ALLREDUCE_OK = HDR + r'''
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
t = torch.ones(64 << 20, device="cuda")
for _ in range(3):
    dist.all_reduce(t)
torch.cuda.synchronize()
t0 = time.time()
for _ in range(10):
    dist.all_reduce(t)
torch.cuda.synchronize()
dt = (time.time() - t0) / 10
if dist.get_rank() == 0:
    print(f"all_reduce 256 MiB: {dt*1e3:.2f} ms, busbw {2*(1/2)*t.numel()*4/dt/1e9:.1f} GB/s", flush=True)
dist.destroy_process_group()
'''

P_FSDP2_COMPILE_OK = HDR + r'''
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
class Block(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.ln = torch.nn.LayerNorm(512); s.ff = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.GELU(), torch.nn.Linear(2048, 512))
    def forward(s, x):
        return x + s.ff(s.ln(x))
model = torch.nn.Sequential(*[Block() for _ in range(4)]).cuda()
mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
for b in model:
    fully_shard(b, mp_policy=mp)
fully_shard(model, mp_policy=mp)
model = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(12):
    x = torch.randn(8, 128, 512, device="cuda")
    loss = model(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if dist.get_rank() == 0 and step % 4 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_JAX_OK = r'''
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()), ("data",))
print("devices:", jax.devices(), flush=True)
key = jax.random.PRNGKey(0)
w = jax.device_put(jax.random.normal(key, (256, 10)) * 0.01, NamedSharding(mesh, P()))
def loss_fn(w, x, y):
    logits = x @ w
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1))
@jax.jit
def step(w, x, y):
    l, g = jax.value_and_grad(loss_fn)(w, x, y)
    return w - 0.1 * g, l
for i in range(30):
    kx, ky, key = jax.random.split(key, 3)
    x = jax.device_put(jax.random.normal(kx, (512, 256)), NamedSharding(mesh, P("data")))
    y = jax.device_put(jax.random.randint(ky, (512,), 0, 10), NamedSharding(mesh, P("data")))
    w, l = step(w, x, y)
    if i % 10 == 0:
        print(f"step {i} loss {float(l):.4f}", flush=True)
print("final sharding", x.sharding)
'''

P_TRITON_OK = r'''
import os, torch, torch.distributed as dist, triton, triton.language as tl

@triton.jit
def fused_bias_relu(x_ptr, b_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m)
    b = tl.load(b_ptr + cols, mask=m)
    tl.store(out_ptr + row * n_cols + cols, tl.maximum(x + b, 0.0), mask=m)

local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
x = torch.randn(4096, 1000, device="cuda"); b = torch.randn(1000, device="cuda")
out = torch.empty_like(x)
fused_bias_relu[(x.shape[0],)](x, b, out, x.shape[1], BLOCK=1024)
err = (out - torch.relu(x + b)).abs().max()
dist.all_reduce(err, op=dist.ReduceOp.MAX)
if dist.get_rank() == 0:
    print("max abs err over ranks", err.item(), flush=True)
dist.destroy_process_group()
'''

P_DETAIL_OK = P_DDP_OK

P_COMPILE_SMALL = r'''
import time, torch
t0 = time.time()
class Net(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.layers = torch.nn.ModuleList([torch.nn.Sequential(torch.nn.LayerNorm(256), torch.nn.Linear(256, 1024),
                                        torch.nn.GELU(), torch.nn.Linear(1024, 256)) for _ in range(6)])
    def forward(s, x):
        for l in s.layers:
            x = x + l(x)
        return x
model = torch.compile(Net().cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    loss = model(torch.randn(32, 64, 256, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if step == 0:
        torch.cuda.synchronize(); print(f"first step (compile) {time.time()-t0:.1f} s", flush=True)
torch.cuda.synchronize()
print(f"20 steps total {time.time()-t0:.1f} s, loss {loss.item():.4f}", flush=True)
'''


def tr(port, script="train.py", pre=""):
    return "%storchrun --nproc-per-node 2 --master-port %d %s" % (pre, port, script)


W = {"NCCL_DEBUG": "WARN"}
PY = "python train.py"


def scenarios():
    S = {}
    def add(name, prog, cmd, env=None, limit=90, **kw):
        S[name] = dict(prog={"train.py": prog}, cmd=cmd, env=dict(env or {}), limit=limit, **kw)
    p = iter(range(29811, 29990))
    # user code
    add("u01", P_SUBGROUPS, tr(next(p)), W)
    add("u02", P_SCATTER_OBJ, tr(next(p)), W)
    add("u03", P_HASHSTORE, tr(next(p)), W, limit=75)
    add("u04", P_SCALER_HALF, tr(next(p)), W)
    add("u05", P_AUTOCAST64, tr(next(p)), W)
    add("u06", P_LOSS_PARALLEL, tr(next(p)), W)
    add("u07", P_SEND_SELF, tr(next(p)), W)
    add("u08", P_DIST_OPTIM, tr(next(p)), W)
    add("u09", P_AUTOCAST_DEV, tr(next(p)), W)
    add("u10", P_FROM_LOCAL, tr(next(p)), W)
    add("u11", P_PREMUL, tr(next(p)), W)
    add("u12", P_DDP_HALF_AFTER, tr(next(p)), W)
    add("u13", P_JAX_DEVICES, PY)
    add("u14", P_JAX_MESH, PY)
    add("u15", P_JAX_PMAP, PY)
    add("u16", P_JAX_AXIS, PY)
    add("u17", P_TRITON_DEV, PY)
    # configuration
    add("c01", P_DDP_OK, tr(next(p)), dict(W, CUDA_VISIBLE_DEVICES="-1"))
    add("c02", P_DDP_OK, tr(next(p)), dict(W, CUDA_VISIBLE_DEVICES="0 1"))
    add("c03", P_JAX_OK, PY, dict(CUDA_VISIBLE_DEVICES=""))
    add("c04", P_COMPILE_SMALL, PY, dict(CUDA_VISIBLE_DEVICES="0", TORCHINDUCTOR_CACHE_DIR="/etc/hostname"))
    add("c05", P_COMPILE_SMALL, PY, dict(CUDA_VISIBLE_DEVICES="1", TORCH_COMPILE_DEBUG="1"), limit=120)
    # words
    add("w01", P_FSDP2_OPT, tr(next(p)), dict(W, OPT_FIRST="1"))
    add("b01", P_FSDP2_OPT, tr(next(p)), W)
    add("w02", P_CONTRASTIVE, tr(next(p)), W)
    add("b02", P_CONTRASTIVE, tr(next(p)), dict(W, GATHER="autograd"))
    add("w03", P_FULL_SD_RANK0, tr(next(p)), W, limit=100)
    add("w04", P_COMPILE_SMALL,
        "export TORCHINDUCTOR_CACHE_DIR=$PWD/ic TRITON_CACHE_DIR=$PWD/tc; python train.py; echo '--- second launch'; python train.py",
        dict(CUDA_VISIBLE_DEVICES="0", TORCHINDUCTOR_FORCE_DISABLE_CACHES="1"), limit=200, pair="b04")
    add("b04", P_COMPILE_SMALL,
        "export TORCHINDUCTOR_CACHE_DIR=$PWD/ic TRITON_CACHE_DIR=$PWD/tc; python train.py; echo '--- second launch'; python train.py",
        dict(CUDA_VISIBLE_DEVICES="1"), limit=200, paired=True)
    add("b05", P_AUTOCAST64, tr(next(p)), dict(W, AMP_DTYPE="bfloat16"))
    # healthy
    add("h01", P_DDP_OK, tr(next(p)), dict(TORCH_CPP_LOG_LEVEL="INFO", TORCH_DISTRIBUTED_DEBUG="INFO"))
    add("h02", P_ALLREDUCE_OK, tr(next(p)), dict(NCCL_DEBUG="INFO"))
    add("h03", P_FSDP2_COMPILE_OK, tr(next(p)), W, limit=150)
    add("h04", P_JAX_OK, PY)
    add("h05", P_TRITON_OK, tr(next(p)), W)
    add("h06", P_DDP_OK, "python -m torch.distributed.run --standalone --nproc-per-node gpu train.py", {})
    return S
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
    out = os.environ.get("OUT") or "/tmp/p30out"
    mname = os.environ.get("P30_MANIFEST", "manifest.json")
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
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P30_JOBS", "40"))) as pool:
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
    subprocess.run("cd %s && tar czf %s *.log && rm -f *.log" % (out, os.environ.get("P30_TAR", "logs.tar.gz")),
                   shell=True)
    print("done in %.0f s" % (time.time() - T0), flush=True)


if __name__ == "__main__":
    main()
