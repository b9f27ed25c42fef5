# eval-p42 scenarios. Each writes train.py (and maybe more files) into a neutral job folder.
PRE = '''import os, sys, time, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
'''
INIT = '''dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
rank = dist.get_rank(); ws = dist.get_world_size()
'''
MLP = '''import torch.nn as nn
def make_model(h=4096):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(1024, h), nn.GELU(), nn.Linear(h, h), nn.GELU(), nn.Linear(h, 1024))
'''
DDP_HEAD = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
'''
BENCH = PRE + INIT + '''x = torch.ones(64 * 1024 * 1024, device="cuda")  # 256 MiB
for _ in range(5):
    dist.all_reduce(x)
torch.cuda.synchronize(); t = time.time()
for _ in range(20):
    dist.all_reduce(x)
torch.cuda.synchronize(); dt = (time.time() - t) / 20
if rank == 0:
    print(f"all_reduce 256 MiB: {dt*1e3:.2f} ms, busbw {x.numel()*4*2*(ws-1)/ws/dt/1e9:.1f} GB/s", flush=True)
dist.destroy_process_group()
'''

# u01: DDP + torch.autograd.grad instead of backward (reducer hooks never fire)
U01 = DDP_HEAD + '''model = DDP(make_model().cuda(), device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
params = [p for p in model.parameters() if p.requires_grad]
for step in range(5):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    grads = torch.autograd.grad(loss, params)
    for p, g in zip(params, grads):
        p.grad = g
    opt.step(); opt.zero_grad(set_to_none=True)
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# u02: two backward calls per forward under DDP
U02 = DDP_HEAD + '''class TwoHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = make_model()
        self.cls = nn.Linear(1024, 10)
        self.reg = nn.Linear(1024, 1)
    def forward(self, x):
        h = self.body(x)
        return self.cls(h), self.reg(h)
model = DDP(TwoHead().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(5):
    x = torch.randn(64, 1024, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda"); t = torch.randn(64, 1, device="cuda")
    logits, pred = model(x)
    cls_loss = nn.functional.cross_entropy(logits, y)
    reg_loss = nn.functional.mse_loss(pred, t)
    cls_loss.backward(retain_graph=True)
    reg_loss.backward()
    opt.step(); opt.zero_grad(set_to_none=True)
    print(f"rank {rank} step {step} cls {cls_loss.item():.4f} reg {reg_loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# u03: DTensor op without a sharding strategy (svd of a sharded matrix)
U03 = PRE + INIT + '''from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import distribute_tensor, Shard
mesh = init_device_mesh("cuda", (ws,), mesh_dim_names=("tp",))
torch.manual_seed(0)
W = torch.randn(4096, 1024, device="cuda")
Wd = distribute_tensor(W, mesh, [Shard(0)])
print(f"rank {rank} local shard {tuple(Wd.to_local().shape)}", flush=True)
# spectral norm of the sharded weight for logging
s = torch.linalg.svdvals(Wd)
print(f"rank {rank} top singular value {s[0].item():.3f}", flush=True)
dist.destroy_process_group()
'''

# u04: dcp.load into a model whose shapes differ from the checkpoint
U04 = DDP_HEAD + '''import torch.distributed.checkpoint as dcp
ck = os.path.join(os.getcwd(), "ckpt", "step_100")
model = make_model(4096).cuda()
dcp.save({"model": model.state_dict()}, checkpoint_id=ck)
if rank == 0:
    print("saved", ck, flush=True)
dist.barrier()
# resume: the config now says hidden=2048
model2 = make_model(int(os.environ.get("HIDDEN", "2048"))).cuda()
sd = {"model": model2.state_dict()}
dcp.load(sd, checkpoint_id=ck)
model2.load_state_dict(sd["model"])
print(f"rank {rank} resumed", flush=True)
dist.destroy_process_group()
'''

# u05: all_reduce on float8 tensors
U05 = PRE + INIT + '''torch.manual_seed(rank)
g = torch.randn(1 << 20, device="cuda")
scale = g.abs().max() / 448.0
g8 = (g / scale).to(torch.float8_e4m3fn)
print(f"rank {rank} compressed grad {g8.dtype} {g8.numel()} elems", flush=True)
dist.all_reduce(g8)
g_sum = g8.float() * scale
print(f"rank {rank} reduced norm {g_sum.norm().item():.3f}", flush=True)
dist.destroy_process_group()
'''

# u06: GPU memory reserved before NCCL creates its communicator
U06 = '''import os, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
free, total = torch.cuda.mem_get_info()
# preallocate a big arena for the replay buffer / activation pool, leave 64 MiB
arena = torch.empty(free - (64 << 20), dtype=torch.uint8, device="cuda")
print(f"rank {lr} reserved {arena.numel()/2**30:.1f} GiB of {total/2**30:.1f} GiB", flush=True)
dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
x = torch.ones(1024, device="cuda")
dist.all_reduce(x)
print(f"rank {dist.get_rank()} sum {x[0].item()}", flush=True)
dist.destroy_process_group()
'''

# u07: batch_isend_irecv with ops on two different groups
U07 = PRE + '''dist.init_process_group("cuda:nccl,cpu:gloo", device_id=torch.device("cuda", lr))
rank = dist.get_rank(); ws = dist.get_world_size()
meta_group = dist.new_group(backend="gloo")
peer = (rank + 1) % ws; prev = (rank - 1) % ws
act = torch.randn(256, 1024, device="cuda"); recv_act = torch.empty_like(act)
shape = torch.tensor(act.shape); recv_shape = torch.empty_like(shape)
ops = [dist.P2POp(dist.isend, shape, peer, group=meta_group),
       dist.P2POp(dist.irecv, recv_shape, prev, group=meta_group),
       dist.P2POp(dist.isend, act, peer), dist.P2POp(dist.irecv, recv_act, prev)]
for w in dist.batch_isend_irecv(ops):
    w.wait()
print(f"rank {rank} got {recv_shape.tolist()}", flush=True)
dist.destroy_process_group()
'''

# u08: batch_isend_irecv given the Work objects of isend/irecv
U08 = PRE + INIT + '''peer = (rank + 1) % ws; prev = (rank - 1) % ws
act = torch.randn(256, 1024, device="cuda"); recv_act = torch.empty_like(act)
ops = [dist.isend(act, peer), dist.irecv(recv_act, prev)]
reqs = dist.batch_isend_irecv(ops)
for r in reqs:
    r.wait()
print(f"rank {rank} received {recv_act.sum().item():.2f}", flush=True)
dist.destroy_process_group()
'''

# u09: scatter with a scatter_list of the wrong length on src
U09 = PRE + INIT + '''n_shards = int(os.environ.get("N_SHARDS", "4"))
out = torch.empty(1000, device="cuda")
if rank == 0:
    data = torch.arange(n_shards * 1000, dtype=torch.float32, device="cuda")
    chunks = list(data.chunk(n_shards))
    dist.scatter(out, scatter_list=chunks, src=0)
else:
    dist.scatter(out, src=0)
print(f"rank {rank} shard starts at {out[0].item()}", flush=True)
dist.destroy_process_group()
'''

# u10: ring send without modulo: last rank sends to rank == world_size
U10 = PRE + INIT + '''x = torch.full((1024,), float(rank), device="cuda")
buf = torch.empty_like(x)
# pass activations to the next stage
if rank > 0:
    dist.recv(buf, src=rank - 1)
dist.send(x, dst=rank + 1)
print(f"rank {rank} done", flush=True)
dist.destroy_process_group()
'''

# u11: gloo backend with CUDA tensors in all_to_all_single
U11 = PRE + '''dist.init_process_group("gloo")
rank = dist.get_rank(); ws = dist.get_world_size()
tokens = torch.randn(ws * 128, 512, device="cuda")
out = torch.empty_like(tokens)
dist.all_to_all_single(out, tokens)
print(f"rank {rank} dispatched {out.shape[0]} tokens", flush=True)
dist.destroy_process_group()
'''

# u12: backend string with ';' instead of ','
U12 = PRE + '''dist.init_process_group(backend=os.environ.get("DIST_BACKEND", "cpu:gloo;cuda:nccl"))
rank = dist.get_rank(); ws = dist.get_world_size()
x = torch.ones(4, device="cuda"); dist.all_reduce(x)
print(f"rank {rank} {x.tolist()}", flush=True)
dist.destroy_process_group()
'''

# u13: set_device(local_rank + 1) (1-based GPU numbering)
U13 = '''import os, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"])
gpu = lr + 1  # GPUs are numbered 1..N on the cluster status page
torch.cuda.set_device(gpu)
dist.init_process_group("nccl", device_id=torch.device("cuda", gpu))
x = torch.ones(4, device="cuda"); dist.all_reduce(x)
print(f"rank {dist.get_rank()} on cuda:{gpu} {x.tolist()}", flush=True)
dist.destroy_process_group()
'''

# u14: all_to_all with an input list longer than world size
U14 = PRE + INIT + '''n_experts = 4
tokens = torch.randn(n_experts * 64, 256, device="cuda")
inp = list(tokens.chunk(n_experts))
out = [torch.empty_like(t) for t in inp]
dist.all_to_all(out, inp)
print(f"rank {rank} ok", flush=True)
dist.destroy_process_group()
'''

# u15: torch.save of an FSDP2 state_dict, then torch.load in a single-process eval
U15_TRAIN = PRE + INIT + MLP + '''from torch.distributed.fsdp import fully_shard
model = make_model(2048).cuda()
for m in model:
    if isinstance(m, nn.Linear):
        fully_shard(m)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(3):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
if rank == 0:
    torch.save(model.state_dict(), "final.pt")
    print("saved final.pt", flush=True)
dist.destroy_process_group()
'''
U15_EVAL = MLP + '''import torch
model = make_model(2048).cuda()
sd = torch.load("final.pt", map_location="cuda:0", weights_only=False)
model.load_state_dict(sd)
print("eval loss", model(torch.randn(32, 1024, device="cuda")).pow(2).mean().item())
'''

# u16: dcp.save given the module itself
U16 = DDP_HEAD + '''import torch.distributed.checkpoint as dcp
model = DDP(make_model(1024).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(3):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
dcp.save(model, checkpoint_id=os.path.join(os.getcwd(), "ckpt"))
print(f"rank {rank} saved", flush=True)
dist.destroy_process_group()
'''

TBLOCK = '''import torch.nn as nn
class Block(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.ln = nn.LayerNorm(d); self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(self, x):
        return x + self.ff(self.ln(x))
class Net(nn.Module):
    def __init__(self, n=6):
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(n)]); self.head = nn.Linear(1024, 10)
    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(x)
'''
FSDP1_LOOP = '''opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(10):
    x = torch.randn(32, 1024, device="cuda"); y = torch.randint(0, 10, (32,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 5 == 4 and rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''
# u17: transformer_auto_wrap_policy passed without functools.partial
U17 = PRE + INIT + TBLOCK + '''from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
model = FSDP(Net(), auto_wrap_policy=transformer_auto_wrap_policy, device_id=lr)
''' + FSDP1_LOOP
# h06: the same, correctly partial'd
H06 = PRE + INIT + TBLOCK + '''import functools
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})
model = FSDP(Net(), auto_wrap_policy=policy, device_id=lr,
             mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.float32))
if rank == 0:
    print(model, flush=True)
''' + FSDP1_LOOP
# u18: FSDP1 mixed_precision given a dtype
U18 = PRE + INIT + TBLOCK + '''import functools
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})
model = FSDP(Net(), auto_wrap_policy=policy, device_id=lr, mixed_precision=torch.bfloat16)
''' + FSDP1_LOOP
# u19: HYBRID_SHARD with a single process group
U19 = PRE + INIT + TBLOCK + '''import functools
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, ShardingStrategy
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})
pg = dist.new_group(list(range(ws)))
model = FSDP(Net(), auto_wrap_policy=policy, device_id=lr, sharding_strategy=ShardingStrategy.HYBRID_SHARD,
             process_group=pg)
''' + FSDP1_LOOP

# healthy
H01 = DDP_HEAD + '''from torch.utils.checkpoint import checkpoint
class CkptNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)) for _ in range(4)])
    def forward(self, x):
        for b in self.blocks:
            x = x + checkpoint(b, x, use_reentrant=False)
        return x
model = DDP(CkptNet().cuda(), device_ids=[lr], static_graph=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(20):
    x = torch.randn(64, 1024, device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 5 == 4 and rank == 0:
        print(f"step {step} loss {loss.item():.4f} mem {torch.cuda.max_memory_allocated()/2**20:.0f} MiB", flush=True)
dist.destroy_process_group()
'''
H02 = DDP_HEAD + '''import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
model = DDP(make_model(1024).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
def train(n):
    for _ in range(n):
        loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
        loss.backward(); opt.step(); opt.zero_grad()
    return loss.item()
print(f"rank {rank} loss {train(5):.5f}", flush=True)
ck = os.path.join(os.getcwd(), "ckpt", "step5")
msd, osd = get_state_dict(model, opt)
dcp.save({"model": msd, "optim": osd}, checkpoint_id=ck)
ref = {k: v.detach().clone() for k, v in model.module.state_dict().items()}
train(3)
msd, osd = get_state_dict(model, opt)
state = {"model": msd, "optim": osd}
dcp.load(state, checkpoint_id=ck)
set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
same = all(torch.equal(ref[k], v) for k, v in model.module.state_dict().items())
print(f"rank {rank} restored step5 weights: {same}", flush=True)
dist.destroy_process_group()
'''
H04 = PRE + INIT + '''from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel
import torch.nn as nn
mesh = init_device_mesh("cuda", (ws,), mesh_dim_names=("tp",))
torch.manual_seed(0)
ref = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 512)).cuda()
tp = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 512)).cuda()
tp.load_state_dict(ref.state_dict())
tp = parallelize_module(tp, mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
x = torch.randn(16, 512, device="cuda")
dist.broadcast(x, 0)
err = (tp(x) - ref(x)).abs().max().item()
print(f"rank {rank} TP output max abs err {err:.2e} (local weight {tuple(tp[0].weight.to_local().shape)})", flush=True)
dist.destroy_process_group()
'''
H05 = DDP_HEAD + '''class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))
    def forward(self, x):
        return self.conv(x)
model = nn.SyncBatchNorm.convert_sync_batchnorm(Net()).cuda()
model = DDP(model, device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
t0 = time.time()
for step in range(30):
    x = torch.randn(64, 3, 32, 32, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 10 == 9 and rank == 0:
        print(f"step {step} loss {loss.item():.4f} {64*ws*10/(time.time()-t0):.0f} img/s", flush=True); t0 = time.time()
dist.destroy_process_group()
'''

TR = "torchrun --standalone --nproc-per-node 2 train.py"
NV = {"NCCL_DEBUG": "INFO"}


def scenarios():
    S = {}
    def add(name, prog, cmd=TR, env=None, limit=25, **kw):
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=env or {},
                       limit=limit, **kw)
    add("u01", U01)
    add("u02", U02)
    add("u03", U03)
    add("u04", U04)
    add("u05", U05)
    add("u06", U06, seq=True)
    add("u07", U07)
    add("u08", U08)
    add("u09", U09)
    add("u10", U10)
    add("u11", U11)
    add("u12", U12)
    add("u13", U13)
    add("u14", U14)
    add("u15", {"train.py": U15_TRAIN, "evaluate.py": U15_EVAL}, cmd=TR + " && python evaluate.py")
    add("u16", U16)
    add("u17", U17)
    add("u18", U18)
    add("u19", U19)
    add("c01", BENCH, env=dict(NV, NCCL_MAX_NCHANNELS="0"))
    add("c02", BENCH, env={"NCCL_DEBUG": "WARN", "NCCL_P2P_NET_CHUNKSIZE": "100000"})
    add("h01", H01)
    add("h02", H02)
    add("h03", BENCH, env={"TORCH_NCCL_TRACE_BUFFER_SIZE": "2000", "TORCH_CPP_LOG_LEVEL": "INFO",
                           "NCCL_DEBUG": "WARN"})
    add("h04", H04)
    add("h05", H05)
    add("h06", H06)
    return S
