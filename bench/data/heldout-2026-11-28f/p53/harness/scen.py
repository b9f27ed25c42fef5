# eval-p53 scenarios: two-GPU (2x H200) planted failures + healthy runs
TR = "torchrun --standalone --nproc-per-node 2 train.py"
PY = "python train.py"
HDR = '''import os, sys, time, datetime, math, torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist
rank = int(os.environ.get("RANK", 0)); lr = int(os.environ.get("LOCAL_RANK", 0)); ws = int(os.environ.get("WORLD_SIZE", 1))
'''
INIT = '''torch.cuda.set_device(lr)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=25))
if rank == 0:
    print(f"world {ws} | torch {torch.__version__} | nccl {'.'.join(map(str, torch.cuda.nccl.version()))} | {torch.cuda.get_device_name()}", flush=True)
'''
DDPIMP = "from torch.nn.parallel import DistributedDataParallel as DDP\n"

F01 = HDR + DDPIMP + '''from torch.distributed.algorithms.join import Join
''' + INIT + '''torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).cuda(), device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=0.05)
# each rank reads its own shard files: 34 files split by rank -> 20 and 14 batches
shard_batches = [20, 14][rank]
print(f"[rank{rank}] shard has {shard_batches} batches", flush=True)
with Join([model], throw_on_early_termination=True):
    for step in range(shard_batches):
        x = torch.randn(64, 256, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
        loss = F.cross_entropy(model(x), y)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        if step % 5 == 0:
            print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
print(f"[rank{rank}] epoch done", flush=True)
dist.destroy_process_group()
'''

F02 = HDR + INIT + '''# fp8 gradient compression: quantize the flat gradient to e4m3 before the all-reduce (halves NCCL traffic vs bf16)
torch.manual_seed(rank)
flat = torch.randn(1 << 22, device="cuda") * 1e-3
scale = flat.abs().max() / 448.0
dist.all_reduce(scale, op=dist.ReduceOp.MAX)
g8 = (flat / scale).to(torch.float8_e4m3fn)
print(f"[rank{rank}] grad {flat.numel()/1e6:.1f}M elems -> {g8.dtype} {g8.numel()*g8.element_size()/2**20:.1f} MiB", flush=True)
dist.all_reduce(g8)
avg = g8.float() * scale / ws
print(f"[rank{rank}] reduced, mean|g| {avg.abs().mean().item():.3e}", flush=True)
dist.destroy_process_group()
'''

H03 = HDR + INIT + '''# fp8 all-gather of sharded weights (ZeRO-3 style): gather e4m3 shards + per-shard scales, dequantize locally
torch.manual_seed(0)
full = torch.randn(8192, 4096, device="cuda")
shard = full.chunk(ws)[rank].contiguous()
scale = (shard.abs().max() / 448.0).reshape(1)
s8 = (shard / scale).to(torch.float8_e4m3fn)
out8 = torch.empty((ws * s8.shape[0], s8.shape[1]), dtype=torch.float8_e4m3fn, device="cuda")
scales = torch.empty(ws, device="cuda")
t0 = time.time()
for it in range(20):
    dist.all_gather_into_tensor(out8, s8)
    dist.all_gather_into_tensor(scales, scale)
torch.cuda.synchronize()
ms = 1e3 * (time.time() - t0) / 20
deq = torch.cat([c.float() * scales[i] for i, c in enumerate(out8.chunk(ws))])
rel = ((deq - full).norm() / full.norm()).item()
print(f"[rank{rank}] gathered {tuple(out8.shape)} {out8.dtype} in {ms:.2f} ms/iter ({out8.numel()/2**20/ms*1e3/1024:.1f} GiB/s), rel err {rel:.4f}", flush=True)
dist.barrier()
dist.destroy_process_group()
'''

BENCH = HDR + INIT + '''x = torch.ones(64 * 2**20 // 4, device="cuda")
for _ in range(3):
    dist.all_reduce(x)
torch.cuda.synchronize(); x.fill_(1.0)
t0 = time.time()
for _ in range(20):
    dist.all_reduce(x)
torch.cuda.synchronize()
dt = (time.time() - t0) / 20
busbw = x.numel() * 4 * 2 * (ws - 1) / ws / dt / 1e9
if rank == 0:
    print(f"all_reduce 64 MiB: {dt*1e3:.3f} ms  busbw {busbw:.1f} GB/s  value {x[0].item():.0f}", flush=True)
dist.destroy_process_group()
'''

F05 = HDR + DDPIMP + INIT + '''torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 1)).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

def load_batch(step):
    g = torch.Generator().manual_seed(1000 * rank + step)
    x = torch.randn(256, 128, generator=g)
    y = x[:, :4].sum(1, keepdim=True)
    if rank == 1 and step == 6:
        x[17, 40] = float("nan")   # corrupt record in shard 1
    return x.cuda(non_blocking=True), y.cuda(non_blocking=True)

for step in range(12):
    x, y = load_batch(step)
    loss = F.mse_loss(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

F06 = HDR + DDPIMP + INIT + '''torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10)).cuda(), device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=0.05)

@torch.inference_mode()
def evaluate(model, n_batches=8):
    model.eval()
    stats = torch.zeros(3, device="cuda")  # loss_sum, correct, count
    for i in range(n_batches):
        x = torch.randn(128, 128, device="cuda"); y = torch.randint(0, 10, (128,), device="cuda")
        out = model(x)
        stats[0] += F.cross_entropy(out, y, reduction="sum"); stats[1] += (out.argmax(1) == y).sum(); stats[2] += y.numel()
    model.train()
    return stats

for epoch in range(2):
    for step in range(10):
        x = torch.randn(128, 128, device="cuda"); y = torch.randint(0, 10, (128,), device="cuda")
        loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    stats = evaluate(model)
    dist.all_reduce(stats)
    if rank == 0:
        print(f"epoch {epoch} val loss {stats[0]/stats[2]:.4f} acc {stats[1]/stats[2]:.3f}", flush=True)
dist.destroy_process_group()
'''

F07 = HDR + DDPIMP + '''dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
print(f"[rank{rank}] process group ready (device_id=cuda:{lr})", flush=True)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).to("cuda")
model = DDP(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(10):
    x = torch.randn(64, 256, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
    loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    if step % 3 == 0:
        print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

DPNET = '''import time, torch, torch.nn as nn, torch.nn.functional as F
class PosMLP(nn.Module):
    def __init__(self, seq=128, d=256):
        super().__init__()
        self.inp = nn.Linear(d, d)
        self.out = nn.Linear(d, 10)
        pos = torch.arange(seq).float()[:, None] / seq * torch.ones(1, d)
        %s
    def forward(self, x):            # x: (B, seq, d)
        h = F.gelu(self.inp(x + self.pos))
        return self.out(h.mean(1))
print(f"GPUs visible: {torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}", flush=True)
model = nn.DataParallel(PosMLP().cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
torch.manual_seed(0)
X = torch.randn(256, 128, 256); Y = torch.randint(0, 10, (256,))
t0 = time.time()
for step in range(30):
    out = model(X.cuda())
    loss = F.cross_entropy(out, Y.cuda())
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 10 == 0 or step == 29:
        print(f"step {step} loss {loss.item():.4f} ({1e3*(time.time()-t0)/(step+1):.1f} ms/step)", flush=True)
'''
F08 = DPNET.replace("%s", "self.pos = pos.cuda()  # (seq, d) positional table, fixed")
H04 = DPNET.replace("%s", 'self.register_buffer("pos", pos, persistent=False)  # (seq, d) positional table, fixed')

F09 = HDR + INIT + '''torch.manual_seed(rank)
correct = torch.tensor([int(torch.randint(800, 900, ()))], device="cuda")
total = torch.tensor([1000], device="cuda")
print(f"[rank{rank}] local correct {correct.item()}/{total.item()}", flush=True)
dist.all_reduce(correct, op=dist.ReduceOp.AVG)
dist.all_reduce(total, op=dist.ReduceOp.AVG)
if rank == 0:
    print(f"val acc {correct.item()/total.item():.4f}", flush=True)
dist.destroy_process_group()
'''

F10 = HDR + INIT + '''torch.manual_seed(rank)
# each rank evaluates one candidate lr; the last rank runs the reference config and its weights are shared
score = torch.rand(1, device="cuda")
print(f"[rank{rank}] score {score.item():.4f}", flush=True)
weights = torch.randn(1024, device="cuda")
ref_rank = ws
dist.broadcast(weights, src=ref_rank)
print(f"[rank{rank}] got reference weights, norm {weights.norm().item():.3f}", flush=True)
dist.destroy_process_group()
'''

F11 = HDR + DDPIMP + INIT + '''torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(1024, 1024), nn.GELU()) for _ in range(8)]).cuda()
# tiny buckets: start communicating as soon as any gradient is ready
model = DDP(model, device_ids=[lr], bucket_cap_mb=0)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
t0 = time.time()
for step in range(20):
    x = torch.randn(256, 1024, device="cuda")
    loss = model(x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    if step % 5 == 0 and rank == 0:
        torch.cuda.synchronize(); print(f"step {step} loss {loss.item():.5f} {1e3*(time.time()-t0)/(step+1):.1f} ms/step", flush=True)
dist.destroy_process_group()
'''

F13 = HDR + INIT + '''from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
mesh = init_device_mesh("cpu", (ws,), mesh_dim_names=("dp",))
torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(1024, 1024), nn.GELU()) for _ in range(4)]).cuda()
for blk in model:
    fully_shard(blk, mesh=mesh)
fully_shard(model, mesh=mesh)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    loss = model(torch.randn(64, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0: print(f"step {step} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''

F14 = HDR + INIT + '''from torch.distributed.fsdp import fully_shard, CPUOffloadPolicy
torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(2048, 2048), nn.GELU()) for _ in range(6)]).cuda()
for blk in model:
    fully_shard(blk, offload_policy=CPUOffloadPolicy())
fully_shard(model, offload_policy=CPUOffloadPolicy())
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
if rank == 0: print(f"params {sum(p.numel() for p in model.parameters())*ws/1e6:.1f}M sharded+offloaded, AdamW fused", flush=True)
for step in range(5):
    loss = model(torch.randn(32, 2048, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0: print(f"step {step} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''

TPNET = '''from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel, loss_parallel
from torch.distributed.tensor import Shard, Replicate
mesh = init_device_mesh("cuda", (ws,), mesh_dim_names=("tp",))
class LM(nn.Module):
    def __init__(s, V=32000, d=1024):
        super().__init__()
        s.emb = nn.Embedding(V, d); s.up = nn.Linear(d, 4 * d); s.down = nn.Linear(4 * d, d); s.head = nn.Linear(d, V, bias=False)
    def forward(s, idx):
        h = s.emb(idx); h = h + s.down(F.gelu(s.up(h))); return s.head(h)
torch.manual_seed(0)
model = LM().cuda()
'''
F15 = HDR + INIT + TPNET + '''model = parallelize_module(model, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel(),
                                         "head": ColwiseParallel(output_layouts=Replicate())})
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, foreach=False)
for step in range(10):
    torch.manual_seed(step)
    idx = torch.randint(0, 32000, (8, 128), device="cuda")
    logits = model(idx)
    with loss_parallel():
        loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), idx[:, 1:].flatten())
        loss.backward()
    opt.step(); opt.zero_grad()
    if rank == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''
H02 = HDR + INIT + TPNET + '''model = parallelize_module(model, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel(),
                                         "head": ColwiseParallel(use_local_output=False)})
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=False)
torch.manual_seed(0)
idx = torch.randint(0, 32000, (8, 128), device="cuda")
t0 = time.time()
for step in range(30):
    logits = model(idx)
    with loss_parallel():
        loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), idx[:, 1:].flatten())
        loss.backward()
    opt.step(); opt.zero_grad()
    if rank == 0 and (step % 10 == 0 or step == 29):
        torch.cuda.synchronize(); print(f"step {step} loss {loss.item():.4f} {1e3*(time.time()-t0)/(step+1):.1f} ms/step", flush=True)
if rank == 0: print(f"head weight local shard {tuple(model.head.weight.to_local().shape)} of {tuple(model.head.weight.shape)}", flush=True)
dist.destroy_process_group()
'''

F16 = HDR + INIT + '''from torch.distributed.fsdp import fully_shard
class TinyLM(nn.Module):
    def __init__(s, V=8000, d=512, L=4):
        super().__init__()
        s.emb = nn.Embedding(V, d)
        s.blocks = nn.ModuleList(nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True) for _ in range(L))
        s.head = nn.Linear(d, V, bias=False)
        s.head.weight = s.emb.weight          # weight tying
    def forward(s, idx):
        h = s.emb(idx)
        for b in s.blocks: h = b(h)
        return s.head(h)
torch.manual_seed(0)
model = TinyLM().cuda()
fully_shard(model.emb)
for b in model.blocks: fully_shard(b)
fully_shard(model.head)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(5):
    idx = torch.randint(0, 8000, (8, 64), device="cuda")
    loss = F.cross_entropy(model(idx)[:, :-1].flatten(0, 1), idx[:, 1:].flatten())
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

F17 = HDR + INIT + '''# manual ZeRO-2: reduce-scatter flat grads, each rank keeps its shard
torch.manual_seed(0)
numel = 10_000_003
flat_grad = torch.randn(numel, device="cuda")
shard = torch.empty(numel // ws, device="cuda")
print(f"[rank{rank}] flat grad {numel} elems, shard {shard.numel()}", flush=True)
dist.reduce_scatter_tensor(shard, flat_grad, op=dist.ReduceOp.AVG)
print(f"[rank{rank}] shard mean {shard.mean().item():.4e}", flush=True)
dist.destroy_process_group()
'''

F18 = HDR + INIT + '''from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import distribute_tensor, Shard, Replicate
mesh = init_device_mesh("cuda", (ws,), mesh_dim_names=("dp",))
mesh2d = init_device_mesh("cuda", (1, ws), mesh_dim_names=("pp", "tp"))
torch.manual_seed(0)
w = distribute_tensor(torch.randn(4096, 1024, device="cuda"), mesh, [Shard(0)])
b = distribute_tensor(torch.randn(4096, 1024, device="cuda"), mesh2d["tp"], [Shard(0)])
print(f"[rank{rank}] w local {tuple(w.to_local().shape)} on {w.device_mesh}, b on {b.device_mesh}", flush=True)
c = w + b
print(f"[rank{rank}] sum norm {c.full_tensor().norm().item():.3f}", flush=True)
dist.destroy_process_group()
'''

F19 = '''import torch, torch.nn as nn, torch.nn.functional as F
print(f"GPUs: {torch.cuda.device_count()}", flush=True)
net = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))
# small per-GPU batch: sync BN statistics across the GPUs
net = nn.SyncBatchNorm.convert_sync_batchnorm(net)
model = nn.DataParallel(net.cuda())
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(10):
    x = torch.randn(16, 3, 64, 64, device="cuda"); y = torch.randint(0, 10, (16,), device="cuda")
    loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
'''

H01 = HDR + DDPIMP + '''from torch.distributed.algorithms.join import Join
from torch.distributed.optim import ZeroRedundancyOptimizer
''' + INIT + '''torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).cuda(), device_ids=[lr])
opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-3)
shard_batches = [20, 14][rank]
print(f"[rank{rank}] shard has {shard_batches} batches", flush=True)
with Join([model, opt]):
    for step in range(shard_batches):
        x = torch.randn(64, 256, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
        loss = F.cross_entropy(model(x), y)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        if step % 5 == 0:
            print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
print(f"[rank{rank}] epoch done after {shard_batches} local steps", flush=True)
p = next(model.parameters()).detach().clone(); q = p.clone(); dist.broadcast(q, 0)
print(f"[rank{rank}] params equal to rank0: {torch.equal(p, q)}", flush=True)
dist.destroy_process_group()
'''

F21 = HDR + INIT + '''t = torch.full((4,), float(rank + 1), device="cuda")
dist.all_reduce(t)
print(f"[rank{rank}] on {torch.cuda.current_device()} sum {t.tolist()}", flush=True)
dist.destroy_process_group()
'''


def scenarios():
    def sc(prog, env=None, cmd=TR, limit=40):
        return {"prog": {"train.py": prog}, "env": dict(env or {}), "cmd": cmd, "limit": limit}
    return {
        "f01": sc(F01),
        "f02": sc(F02),
        "f03": sc(BENCH, {"NCCL_P2P_LEVEL": "NVLINK", "NCCL_DEBUG": "WARN"}),
        "f04": sc(BENCH, {"NCCL_SOCKET_FAMILY": "AF_INET6", "NCCL_DEBUG": "WARN"}),
        "f05": sc(F05, {"TORCH_NCCL_NAN_CHECK": "1"}),
        "f06": sc(F06),
        "f07": sc(F07),
        "f08": sc(F08, cmd=PY),
        "f09": sc(F09),
        "f10": sc(F10),
        "f11": sc(F11),
        "f12": sc(BENCH, {"NCCL_MIN_NCHANNELS": "32", "NCCL_MAX_NCHANNELS": "4", "NCCL_DEBUG": "WARN"}),
        "f13": sc(F13),
        "f14": sc(F14),
        "f15": sc(F15),
        "f16": sc(F16),
        "f17": sc(F17),
        "f18": sc(F18),
        "f19": sc(F19, cmd=PY),
        "f21": sc(F21, {"CUDA_VISIBLE_DEVICES": "0,0"}),
        "f22": sc(BENCH, {"NCCL_PROTO": "LL128", "NCCL_ALGO": "Tree", "NCCL_DEBUG": "WARN"}),
        "h01": sc(H01),
        "h02": sc(H02),
        "h03": sc(H03),
        "h04": sc(H04, cmd=PY),
    }
