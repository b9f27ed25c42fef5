# eval-p47 scenarios
PRE = '''import os, sys, time, datetime, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
'''
INIT = '''dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
rank = dist.get_rank(); ws = dist.get_world_size()
'''
INITT = '''dist.init_process_group("nccl", device_id=torch.device("cuda", lr), timeout=datetime.timedelta(seconds=8))
rank = dist.get_rank(); ws = dist.get_world_size()
'''
MLP = '''import torch.nn as nn
def make_model(h=2048):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(1024, h), nn.GELU(), nn.Linear(h, h), nn.GELU(), nn.Linear(h, 1024))
'''
BENCH = PRE + INIT + '''x = torch.ones(16 * 1024 * 1024, device="cuda")
for _ in range(5):
    dist.all_reduce(x)
torch.cuda.synchronize(); t = time.time()
for _ in range(20):
    dist.all_reduce(x)
torch.cuda.synchronize(); dt = (time.time() - t) / 20
if rank == 0:
    print(f"all_reduce 64 MiB: {dt*1e3:.2f} ms, busbw {x.numel()*4*2*(ws-1)/ws/dt/1e9:.1f} GB/s", flush=True)
dist.destroy_process_group()
'''
# q02: memory fraction capped too low
Q02 = PRE + INIT + MLP + '''torch.cuda.set_per_process_memory_fraction(0.005)  # leave room for the other jobs on this node
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model(4096).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters())
for step in range(3):
    loss = model(torch.randn(256, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''
# q03: reentrant activation checkpointing + DDP(find_unused_parameters=True)
Q03 = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.checkpoint import checkpoint
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(512, 512), nn.GELU()) for _ in range(4)])
        self.head = nn.Linear(512, 10)
    def forward(self, x):
        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=True)
        return self.head(x)
model = DDP(Net().cuda(), device_ids=[lr], find_unused_parameters=True)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    x = torch.randn(32, 512, device="cuda", requires_grad=True)
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''
# q04: both ranks send first -> deadlock
Q04 = PRE + INITT + '''buf_out = torch.full((1 << 20,), float(rank), device="cuda")
buf_in = torch.empty_like(buf_out)
peer = 1 - rank
for step in range(3):
    # exchange halo with the neighbour
    dist.send(buf_out, dst=peer)
    dist.recv(buf_in, src=peer)
    print(f"rank {rank} step {step} got {buf_in[0].item()}", flush=True)
dist.destroy_process_group()
'''
# q05: barrier before set_device, no device_id
Q05 = '''import os, torch, torch.distributed as dist
dist.init_process_group("nccl")
rank = dist.get_rank()
dist.barrier()  # wait until every rank is up
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
x = torch.ones(1024, device="cuda")
dist.all_reduce(x)
print(f"rank {rank} ok {x[0].item()}", flush=True)
dist.destroy_process_group()
'''
# q06: timeout too low vs. slow rank-0 preprocessing
Q06 = PRE + INITT + '''if rank == 0:
    print("rank 0: building tokenizer cache ...", flush=True)
    time.sleep(15)  # preprocessing only on rank 0
x = torch.ones(1024, device="cuda")
dist.all_reduce(x)
print(f"rank {rank} sum {x[0].item()}", flush=True)
dist.destroy_process_group()
'''
# q07: uneven inputs, no Join
Q07 = PRE + INITT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model(512).cuda(), device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
nbatches = 4 if rank == 0 else 6  # shard sizes differ
for step in range(nbatches):
    loss = model(torch.randn(16, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
print(f"rank {rank} finished epoch", flush=True)
dist.barrier()
dist.destroy_process_group()
'''
H02 = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.algorithms.join import Join
model = DDP(make_model(512).cuda(), device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
nbatches = 4 if rank == 0 else 6
with Join([model]):
    for step in range(nbatches):
        loss = model(torch.randn(16, 1024, device="cuda")).pow(2).mean()
        loss.backward(); opt.step(); opt.zero_grad()
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
print(f"rank {rank} finished epoch", flush=True)
dist.barrier()
dist.destroy_process_group()
'''
# q08: fp16 gradients summed in all_reduce overflow
Q08 = PRE + INIT + '''g = torch.full((1 << 20,), 40000.0, device="cuda", dtype=torch.float16)  # fp16 grads before averaging
dist.all_reduce(g)  # sum, then divide
g /= ws
print(f"rank {rank} mean grad {g[0].item()} finite={torch.isfinite(g).all().item()}", flush=True)
dist.destroy_process_group()
'''
# q09: static_graph=True but the set of used params changes
Q09 = PRE + INIT + '''import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(256, 256); self.b = nn.Linear(256, 256); self.head = nn.Linear(256, 1)
    def forward(self, x, step):
        x = self.a(x)
        if step % 2 == 1:
            x = self.b(x)  # extra block every other step
        return self.head(x)
model = DDP(Net().cuda(), device_ids=[lr], static_graph=True)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(4):
    loss = model(torch.randn(8, 256, device="cuda"), step).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''
# q10: new groups created in different order on each rank
Q10 = PRE + INITT + '''if rank == 0:
    g_a = dist.new_group([0, 1]); g_b = dist.new_group([0, 1], backend="gloo")
else:
    g_b = dist.new_group([0, 1], backend="gloo"); g_a = dist.new_group([0, 1])
x = torch.ones(1024, device="cuda")
dist.all_reduce(x, group=g_a)
y = torch.ones(4)
dist.all_reduce(y, group=g_b)
print(f"rank {rank} {x[0].item()} {y[0].item()}", flush=True)
dist.destroy_process_group()
'''
# q11: async handle never waited, result read too early
Q11 = PRE + INIT + '''x = torch.full((64 << 20,), float(rank + 1), device="cuda")
bad = 0
for it in range(20):
    x.fill_(rank + 1)
    work = dist.all_reduce(x, async_op=True)
    s = x[-1].item()  # read the reduced value
    if s != 3.0: bad += 1
    work.wait()
print(f"rank {rank} iterations with wrong sum: {bad}/20", flush=True)
dist.destroy_process_group()
'''
# q12: broadcast_object_list with mismatched list lengths
Q12 = PRE + INITT + '''cfg = [{"lr": 3e-4, "run": "exp7"}] if rank == 0 else [None, None]
dist.broadcast_object_list(cfg, src=0)
print(f"rank {rank} cfg {cfg}", flush=True)
dist.destroy_process_group()
'''
H03 = PRE + INIT + '''cfg = [{"lr": 3e-4, "run": "exp7"}] if rank == 0 else [None]
dist.broadcast_object_list(cfg, src=0)
print(f"rank {rank} cfg {cfg}", flush=True)
dist.destroy_process_group()
'''
# h04: healthy bf16 autocast DDP
H04 = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model(2048).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
t0 = time.time()
for step in range(20):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(torch.randn(64, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if rank == 0 and step % 5 == 4:
        torch.cuda.synchronize()
        print(f"step {step+1} loss {loss.item():.5f} {(time.time()-t0)/5*1e3:.1f} ms/step mem {torch.cuda.max_memory_allocated()/2**20:.0f} MiB", flush=True); t0 = time.time()
dist.destroy_process_group()
'''
TR = "torchrun --standalone --nproc-per-node 2 train.py"
NV = {"NCCL_DEBUG": "INFO"}
NW = {"NCCL_DEBUG": "WARN"}

def scenarios():
    S = {}
    def add(name, prog, cmd=TR, env=None, limit=40, **kw):
        e = {"NCCL_NVLS_ENABLE": "0"}; e.update(env or {})
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=e, limit=limit, **kw)
    add("q01", BENCH, env=dict(NV, NCCL_SOCKET_IFNAME="ib0"))
    add("q02", Q02)
    add("q03", Q03)
    add("q04", Q04)
    add("q05", Q05)
    add("q06", Q06)
    add("q07", Q07)
    add("q08", Q08)
    add("q09", Q09)
    add("q10", Q10)
    add("q11", Q11)
    add("q12", Q12)
    add("q13", BENCH, env=dict(NW, NCCL_ALGO="NVLS"))
    add("q14", BENCH, env=dict(NV, NCCL_IB_HCA="mlx5_0", NCCL_NET="IB"))
    add("q15", BENCH, env=dict(NV, NCCL_SHM_DISABLE="1", NCCL_P2P_DISABLE="1"))
    add("h01", BENCH, env=dict(NV, NCCL_SOCKET_IFNAME="lo"))
    add("h02", H02)
    add("h03", H03)
    add("h04", H04)
    return S
