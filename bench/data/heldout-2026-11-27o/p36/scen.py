# eval-p36 scenarios. Each writes train.py (and maybe more files) into a neutral job folder.
PRE = '''import os, sys, time, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
'''
INIT = '''dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
rank = dist.get_rank(); ws = dist.get_world_size()
'''
MLP = '''import torch.nn as nn
def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(), nn.Linear(4096, 1024))
'''

P_EV = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
start, end = torch.cuda.Event(), torch.cuda.Event()
for step in range(20):
    x = torch.randn(64, 1024, device="cuda")
    start.record()
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    end.record()
    if step % 10 == 9:
        torch.cuda.synchronize()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f} step_time {start.elapsed_time(end):.2f} ms", flush=True)
dist.destroy_process_group()
'''

P_SPLIT = PRE + '''dist.init_process_group("nccl")
rank = dist.get_rank()
tp_group = dist.split_group(split_ranks=[[0], [1]])
t = torch.ones(4, device="cuda") * (rank + 1)
dist.all_reduce(t, group=tp_group)
print(f"rank {rank} tp all_reduce -> {t.tolist()}", flush=True)
dist.destroy_process_group()
'''

P_SAMPLER = PRE + INIT + MLP + '''import argparse
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
ap = argparse.ArgumentParser()
ap.add_argument("--world-size", type=int, default=1)
ap.add_argument("--batch-size", type=int, default=32)
ap.add_argument("--epochs", type=int, default=2)
args = ap.parse_args()
ds = TensorDataset(torch.randn(2048, 1024), torch.randn(2048, 1024))
sampler = DistributedSampler(ds, num_replicas=args.world_size, rank=rank, shuffle=True)
dl = DataLoader(ds, batch_size=args.batch_size, sampler=sampler)
model = torch.nn.parallel.DistributedDataParallel(make_model().cuda(), device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for ep in range(args.epochs):
    sampler.set_epoch(ep)
    for x, y in dl:
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0:
        print(f"epoch {ep} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_EXPAND = PRE + INIT + '''# per-rank token counts, later averaged
vocab = 32000
local_count = torch.tensor([float(1000 + rank)], device="cuda")
counts = local_count.expand(vocab)
dist.all_reduce(counts, op=dist.ReduceOp.SUM)
print(f"rank {rank} total {counts[0].item()}", flush=True)
dist.destroy_process_group()
'''

P_AGDTYPE = PRE + INIT + '''enc = torch.nn.Linear(512, 256).cuda().to(torch.bfloat16)
x = torch.randn(8, 512, device="cuda")
with torch.autocast("cuda", dtype=torch.bfloat16):
    emb = torch.nn.functional.normalize(enc(x.bfloat16()).float(), dim=-1)
gathered = [torch.empty(8, 256, device="cuda", dtype=enc.weight.dtype) for _ in range(ws)]
dist.all_gather(gathered, emb)
sim = torch.cat(gathered) @ emb.T
print(f"rank {rank} sim {tuple(sim.shape)}", flush=True)
dist.destroy_process_group()
'''

P_AUTOCAST32 = PRE + INIT + MLP + '''model = torch.nn.parallel.DistributedDataParallel(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(os.environ.get("AMP", "fp32"), torch.float32)
for step in range(30):
    x = torch.randn(256, 1024, device="cuda")
    with torch.autocast(device_type="cuda", dtype=amp_dtype):
        loss = model(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 10 == 9 and rank == 0:
        print(f"step {step} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''

P_ACC_GATHER = '''import torch
from accelerate import Accelerator
acc = Accelerator()
# validation: last batch is smaller on one process
n = 5 if acc.process_index == 0 else 3
preds = torch.arange(n, device=acc.device) + 10 * acc.process_index
labels = torch.zeros(n, device=acc.device, dtype=torch.long)
all_preds = acc.gather(preds)
acc.print("gathered", all_preds.tolist())
acc.end_training()
'''

P_ACC_OK = '''import torch, torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
acc = Accelerator(mixed_precision="bf16")
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 4))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
ds = TensorDataset(torch.randn(1003, 64), torch.randint(0, 4, (1003,)))
dl = DataLoader(ds, batch_size=32, shuffle=True)
vl = DataLoader(ds, batch_size=64)
model, opt, dl, vl = acc.prepare(model, opt, dl, vl)
for ep in range(2):
    model.train()
    for x, y in dl:
        loss = nn.functional.cross_entropy(model(x), y)
        acc.backward(loss); opt.step(); opt.zero_grad()
    model.eval(); correct = 0; total = 0
    with torch.no_grad():
        for x, y in vl:
            p, t = acc.gather_for_metrics((model(x).argmax(-1), y))
            correct += (p == t).sum().item(); total += t.numel()
    acc.print(f"epoch {ep} loss {loss.item():.4f} val_acc {correct/total:.4f} n={total}")
acc.end_training()
'''

P_JAX_SHARD = '''import numpy as np, jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
print("devices:", jax.devices(), flush=True)
mesh = jax.make_mesh((len(jax.devices()),), ("data",))
data_sharding = NamedSharding(mesh, P("data"))
repl = NamedSharding(mesh, P())
w = jax.device_put(jnp.zeros((128, 10)), repl)
@jax.jit
def step(w, x, y):
    def loss_fn(w):
        return jnp.mean((x @ w - y) ** 2)
    l, g = jax.value_and_grad(loss_fn)(w)
    return w - 0.1 * g, l
N = int(__import__("os").environ.get("N_EXAMPLES", "1000"))
BS = int(__import__("os").environ.get("GLOBAL_BATCH", "250"))
X = np.random.rand(N, 128).astype(np.float32); Y = np.random.rand(N, 10).astype(np.float32)
for ep in range(2):
    for i in range(0, N, BS):
        x = jax.device_put(X[i:i + BS], data_sharding)
        y = jax.device_put(Y[i:i + BS], data_sharding)
        w, l = step(w, x, y)
    print(f"epoch {ep} loss {float(l):.5f}", flush=True)
'''

P_DT_SHARD = PRE + INIT + '''from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import distribute_tensor, Shard, Replicate
mesh = init_device_mesh("cuda", (ws,), mesh_dim_names=("tp",))
w_qkv = torch.randn(3 * 1024, 1024, device="cuda")
placements = [Shard(2)]  # shard heads
dw = distribute_tensor(w_qkv, mesh, placements)
print(f"rank {rank} local {tuple(dw.to_local().shape)}", flush=True)
dist.destroy_process_group()
'''

P_SCALER = PRE + INIT + MLP + '''model = torch.nn.parallel.DistributedDataParallel(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch.amp.GradScaler("cuda")
for step in range(10):
    x = torch.randn(64, 1024, device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x).float().pow(2).mean()
    loss.backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale()}", flush=True)
dist.destroy_process_group()
'''

P_FSDP2_CLIP = PRE + INIT + MLP + '''from torch.distributed.fsdp import fully_shard
model = make_model().cuda()
for m in model:
    if isinstance(m, nn.Linear):
        fully_shard(m)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(5):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward()
    gn = model.clip_grad_norm_(1.0)
    opt.step(); opt.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f} grad_norm {gn:.3f}", flush=True)
dist.destroy_process_group()
'''

P_MESH2D = PRE + INIT + '''from torch.distributed.device_mesh import init_device_mesh
mesh = init_device_mesh("cuda", (1, ws), mesh_dim_names=("dp", "tp"))
tp_rank = mesh.get_local_rank()
print(f"rank {rank} tp_rank {tp_rank}", flush=True)
dist.destroy_process_group()
'''

P_ALLOC = PRE + INIT + MLP + '''model = torch.nn.parallel.DistributedDataParallel(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(20):
    x = torch.randn(256, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
if rank == 0:
    print(f"done loss {loss.item():.4f} max_alloc {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB", flush=True)
dist.destroy_process_group()
'''

P_FSDP2_DCP = PRE + INIT + MLP + '''import warnings, tempfile
from torch.distributed.fsdp import fully_shard, MixedPrecisionPolicy
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
model = make_model().cuda()
for m in model:
    if isinstance(m, nn.Linear):
        fully_shard(m, mp_policy=mp)
fully_shard(model, mp_policy=mp)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(20):
    x = torch.randn(128, 1024, device="cuda")
    loss = model(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 5 == 4 and rank == 0:
        print(f"step {step} loss {loss.item():.5f}", flush=True)
ckpt = os.path.join(os.getcwd(), "ckpt", "step20")
msd, osd = get_state_dict(model, opt)
dcp.save({"model": msd, "optim": osd}, checkpoint_id=ckpt)
sd = {"model": msd, "optim": osd}
dcp.load(sd, checkpoint_id=ckpt)
set_state_dict(model, opt, model_state_dict=sd["model"], optim_state_dict=sd["optim"])
if rank == 0:
    print("checkpoint saved and reloaded:", ckpt, flush=True)
dist.destroy_process_group()
'''

P_TP = PRE + INIT + '''import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel
class FFN(nn.Module):
    def __init__(self):
        super().__init__(); self.w1 = nn.Linear(1024, 4096); self.w2 = nn.Linear(4096, 1024)
    def forward(self, x):
        return self.w2(torch.nn.functional.silu(self.w1(x)))
torch.manual_seed(0)
mesh = init_device_mesh("cuda", (ws,), mesh_dim_names=("tp",))
model = parallelize_module(FFN().cuda(), mesh, {"w1": ColwiseParallel(), "w2": RowwiseParallel()})
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
for step in range(20):
    torch.manual_seed(step)
    x = torch.randn(32, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 5 == 4 and rank == 0:
        print(f"step {step} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''

P_BW = PRE + INIT + '''op = os.environ.get("BENCH_OP", "all_reduce")
size_mb = 256
n = size_mb * 2**20 // 4
x = torch.ones(n, device="cuda")
def run_once():
    if op == "all_reduce":
        dist.all_reduce(x)
    else:
        peer = 1 - rank
        ops = [dist.P2POp(dist.isend, x, peer), dist.P2POp(dist.irecv, y, peer)]
        for r in dist.batch_isend_irecv(ops):
            r.wait()
y = torch.empty_like(x)
for _ in range(5):
    run_once()
torch.cuda.synchronize(); dist.barrier()
iters = 40
t0 = time.time()
for _ in range(iters):
    run_once()
torch.cuda.synchronize()
dt = (time.time() - t0) / iters
if rank == 0:
    algbw = size_mb * 2**20 / dt / 1e9
    busbw = algbw * (2 * (ws - 1) / ws if op == "all_reduce" else 1)
    print(f"{op} {size_mb} MiB x{iters}: {dt * 1e3:.2f} ms/iter, algbw {algbw:.1f} GB/s, busbw {busbw:.1f} GB/s", flush=True)
dist.destroy_process_group()
'''

P_COMPILE = PRE + INIT + '''import torch.nn as nn
class Block(nn.Module):
    def __init__(self, d=1024):
        super().__init__(); self.ln = nn.LayerNorm(d); self.fc1 = nn.Linear(d, 4 * d); self.fc2 = nn.Linear(4 * d, d)
    def forward(self, x):
        h = self.fc1(self.ln(x))
        h = torch.nn.functional.gelu(h, approximate="tanh") * torch.sigmoid(h)
        return x + self.fc2(h)
torch.manual_seed(0)
model = nn.Sequential(*[Block() for _ in range(6)]).cuda()
model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[lr])
model = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
x = torch.randn(16, 512, 1024, device="cuda")
for step in range(60):
    if step == 20:
        torch.cuda.synchronize(); t0 = time.time()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
if rank == 0:
    print(f"loss {loss.item():.4f}  step time {(time.time() - t0) / 40 * 1e3:.1f} ms (avg of 40 steps after 20 warm-up)", flush=True)
dist.destroy_process_group()
'''


def tr(port, script="train.py", pre="", extra=""):
    return "%storchrun --nproc-per-node 2 --master-port %d %s%s" % (pre, port, extra, script)


W = {"NCCL_DEBUG": "WARN"}


def scenarios():
    S = {}

    def add(name, prog, cmd, env=None, limit=90, files=None, **kw):
        f = {"train.py": prog}
        f.update(files or {})
        S[name] = dict(prog=f, cmd=cmd, env=dict(env or {}), limit=limit, **kw)
    p = iter(range(32611, 32790))
    # user code
    add("u01", P_EV, tr(next(p)), W)
    add("u02", P_SPLIT, tr(next(p)), W)
    add("u03", P_SAMPLER, tr(next(p)), W)
    add("u04", P_EXPAND, tr(next(p)), W)
    add("u05", P_AGDTYPE, tr(next(p)), W)
    add("u06", P_AUTOCAST32, tr(next(p)), W)
    add("u07", P_ACC_GATHER, "accelerate launch --num_processes 2 --multi_gpu --main_process_port %d train.py" % next(p), {}, limit=75)
    add("u09", P_JAX_SHARD, "python train.py", {"GLOBAL_BATCH": "125"}, limit=90)
    add("u10", P_DT_SHARD, tr(next(p)), W)
    add("u11", P_SCALER, tr(next(p)), W)
    add("u12", P_FSDP2_CLIP, tr(next(p)), W)
    add("u13", P_MESH2D, tr(next(p)), W)
    # configuration
    add("c01", P_ALLOC, tr(next(p)), dict(W, CUDA_VISIBLE_DEVICES="0, 1"))
    add("c02", P_ALLOC, tr(next(p)), dict(W, CUDA_VISIBLE_DEVICES="1,1"))
    add("c03", P_ALLOC, "torchrun --nproc-per-node 2 --rdzv-backend static --rdzv-endpoint 127.0.0.1:%d train.py" % next(p), W)
    add("c04", P_ALLOC, tr(next(p)), dict(W, PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:16"))
    add("c05", P_JAX_SHARD, "python train.py", {"JAX_PLATFORMS": "cpu"}, limit=90)
    # healthy
    add("h01", P_FSDP2_DCP, tr(next(p)), W, limit=120)
    add("h02", P_TP, tr(next(p)), W)
    add("h03", P_ACC_OK, "accelerate launch --num_processes 2 --main_process_port %d train.py" % next(p), {}, limit=120)
    add("h04", P_JAX_SHARD, "python train.py", {}, limit=90)
    add("h05", P_BW, tr(next(p)), {"NCCL_DEBUG": "INFO", "NCCL_RUNTIME_CONNECT": "0"}, seq=True, limit=60)
    # timed, one at a time after the parallel phase
    add("t00", P_BW, tr(next(p)), W, seq=True, limit=60)
    add("t01", P_BW, tr(next(p)), dict(W, NCCL_P2P_NVL_CHUNKSIZE="4096"), seq=True, limit=60)
    add("t02", P_BW, tr(next(p)), dict(W, NCCL_CTA_POLICY="1"), seq=True, limit=60)
    add("t03", P_BW, tr(next(p)), dict(W, NCCL_P2P_DIRECT_DISABLE="1"), seq=True, limit=60)
    add("t10", P_BW, tr(next(p)), dict(W, BENCH_OP="sendrecv"), seq=True, limit=60)
    add("t11", P_BW, tr(next(p)), dict(W, BENCH_OP="sendrecv", NCCL_MAX_P2P_NCHANNELS="1"), seq=True, limit=60)
    add("t20", P_COMPILE, tr(next(p)), W, seq=True, limit=150)
    add("t21", P_COMPILE, tr(next(p)), dict(W, TORCHDYNAMO_DISABLE="1"), seq=True, limit=90)
    return S
