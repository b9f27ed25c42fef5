# eval-p40 scenarios. Each writes train.py (and maybe more files) into a neutral job folder.
PRE = '''import os, sys, time, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
'''
INIT = '''dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
rank = dist.get_rank(); ws = dist.get_world_size()
'''
LAZY = '''dist.init_process_group("nccl")
rank = dist.get_rank(); ws = dist.get_world_size()
'''
MLP = '''import torch.nn as nn
def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(), nn.Linear(4096, 1024))
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

# u01: x = dist.all_reduce(x) -> None
P_AR_NONE = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(20):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 10 == 9:
        avg_loss = loss.detach().clone()
        avg_loss = dist.all_reduce(avg_loss, op=dist.ReduceOp.AVG)
        if rank == 0:
            print(f"step {step} loss {avg_loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# u02: L2-SP regulariser against a snapshot taken before tensor parallelism
P_DT_MIX = PRE + INIT + '''import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel
mesh = init_device_mesh("cuda", (ws,), mesh_dim_names=("tp",))
torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
pretrained = {n: p.detach().clone() for n, p in mlp.named_parameters()}   # for the L2-SP penalty
parallelize_module(mlp, mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
opt = torch.optim.AdamW(mlp.parameters(), lr=1e-4)
for step in range(5):
    x = torch.randn(32, 1024, device="cuda")
    loss = mlp(x).pow(2).mean()
    l2sp = sum((p - pretrained[n]).pow(2).sum() for n, p in mlp.named_parameters())
    (loss + 1e-3 * l2sp).backward(); opt.step(); opt.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# u03: all_gather_object of CUDA tensors
P_AGO_CUDA = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
head = torch.nn.Linear(1024, 10).cuda()
model.eval()
torch.manual_seed(rank)
with torch.no_grad():
    x = torch.randn(256, 1024, device="cuda")
    preds = head(model(x)).argmax(-1)
    labels = torch.randint(0, 10, (256,), device="cuda")
gathered = [None] * ws
dist.all_gather_object(gathered, {"preds": preds, "labels": labels})
all_preds = torch.cat([g["preds"] for g in gathered])
all_labels = torch.cat([g["labels"] for g in gathered])
acc = (all_preds == all_labels).float().mean().item()
if rank == 0:
    print(f"val acc {acc:.4f} on {all_preds.numel()} samples", flush=True)
dist.destroy_process_group()
'''

# u04: destroy_process_group inside evaluate()
P_DESTROY_EARLY = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
def evaluate():
    model.eval()
    with torch.no_grad():
        err = model(torch.randn(128, 1024, device="cuda")).pow(2).mean()
    dist.all_reduce(err, op=dist.ReduceOp.AVG)
    model.train()
    dist.destroy_process_group()
    return err.item()
for epoch in range(3):
    for step in range(10):
        loss = model(torch.randn(64, 1024, device="cuda")).pow(2).mean()
        loss.backward(); opt.step(); opt.zero_grad()
    val = evaluate()
    print(f"rank {rank} epoch {epoch} train {loss.item():.4f} val {val:.4f}", flush=True)
'''

# u05: send/recv element count mismatch
P_P2P_COUNT = PRE + '''from datetime import timedelta
dist.init_process_group("nccl", device_id=torch.device("cuda", lr), timeout=timedelta(seconds=8))
rank = dist.get_rank(); ws = dist.get_world_size()
# two-stage pipeline: stage 0 sends activations [micro_bs, seq, hidden] to stage 1
micro_bs, seq, hidden = 4, 512, 1024
if rank == 0:
    act = torch.randn(micro_bs, seq, hidden, device="cuda")
    dist.send(act, dst=1)
    print("stage 0 sent", tuple(act.shape), flush=True)
else:
    buf = torch.empty(micro_bs, seq // 2, hidden, device="cuda")   # receiver shape from an old config
    dist.recv(buf, src=0)
    print("stage 1 received", tuple(buf.shape), flush=True)
dist.barrier()
torch.cuda.synchronize()
print(f"rank {rank} done", flush=True)
dist.destroy_process_group()
'''

# u06: GPU filled by a dataset cache before the (lazy) NCCL communicator is created
P_FILL_OOM = PRE + LAZY + '''# keep the whole training set resident on the GPU: size the cache from the free memory
free, total = torch.cuda.mem_get_info()
cache = torch.empty(free - (96 << 20), dtype=torch.uint8, device="cuda")
print(f"rank {rank} cached {cache.numel()/2**30:.1f} GiB of {total/2**30:.1f} GiB", flush=True)
g = torch.ones(1024 * 1024, device="cuda")
dist.all_reduce(g)
print(f"rank {rank} all_reduce ok {g[0].item()}", flush=True)
dist.destroy_process_group()
'''

# u07: first collective issued inside CUDA graph capture (lazy NCCL init)
P_GRAPH_LAZY = PRE + LAZY + '''static = torch.ones(1 << 20, device="cuda")
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    static.mul_(2)
    dist.all_reduce(static)
for i in range(5):
    static.fill_(1.0); g.replay()
torch.cuda.synchronize()
print(f"rank {rank} graph replay value {static[0].item()}", flush=True)
dist.destroy_process_group()
'''

# u08: expandable segments + CUDA IPC through torch.multiprocessing
P_EXP_IPC = '''import torch, torch.multiprocessing as mp
def consumer(q, done):
    for _ in range(3):
        batch = q.get()
        print("consumer got batch", tuple(batch.shape), float(batch.sum()), flush=True)
    done.set()
if __name__ == "__main__":
    mp.set_start_method("spawn")
    q, done = mp.Queue(), mp.Event()
    p = mp.Process(target=consumer, args=(q, done)); p.start()
    batches = []
    for i in range(3):
        b = torch.full((256, 1024), float(i), device="cuda")   # producer prepares batches on the GPU
        batches.append(b); q.put(b)
    done.wait(); p.join()
    print("producer exit code", p.exitcode, flush=True)
'''

# u09: model.half() after DDP wrap
P_HALF_AFTER = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
model = model.half()   # save memory
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(10):
    x = torch.randn(64, 1024, device="cuda", dtype=torch.half)
    loss = model(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0 and step % 5 == 4:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# u10: MAX all_reduce on complex spectra
P_COMPLEX_MAX = PRE + INIT + '''# spectral layer: track the largest Fourier coefficient across ranks for normalisation
torch.manual_seed(rank)
sig = torch.randn(16, 4096, device="cuda")
spec = torch.fft.rfft(sig, dim=-1)
peak = spec.flatten()[spec.abs().flatten().argmax()].clone()
dist.all_reduce(peak, op=dist.ReduceOp.MAX)
print(f"rank {rank} global peak {peak.item()}", flush=True)
dist.destroy_process_group()
'''

# u11: manual gradient all-reduce over parameters that got no gradient
P_GRAD_NONE = PRE + INIT + '''import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 512))
        self.cls = nn.Linear(512, 10)
        self.aux = nn.Linear(512, 10)      # auxiliary head, only used from epoch 2
    def forward(self, x, use_aux=False):
        h = self.body(x)
        return (self.cls(h), self.aux(h)) if use_aux else (self.cls(h), None)
torch.manual_seed(0)
model = Net().cuda()
for p in model.parameters():
    dist.broadcast(p.data, 0)
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
for step in range(5):
    x = torch.randn(64, 512, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
    out, _ = model(x)
    loss = nn.functional.cross_entropy(out, y)
    loss.backward()
    for p in model.parameters():            # average gradients by hand
        dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
        p.grad /= ws
    opt.step(); opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# u12: work.wait(timeout=...) shorter than the peer's delay
P_WAIT_TIMEOUT = PRE + INIT + '''from datetime import timedelta
x = torch.ones(1 << 20, device="cuda")
if rank == 1:
    print("rank 1 loading its shard index ...", flush=True)
    time.sleep(10)
work = dist.all_reduce(x, async_op=True)
work.wait(timeout=timedelta(seconds=3))
torch.cuda.synchronize()
print(f"rank {rank} value {x[0].item()}", flush=True)
dist.destroy_process_group()
'''

# u13: barrier(device_ids=int)
P_BARRIER_INT = PRE + INIT + '''os.makedirs("ckpt", exist_ok=True)
if rank == 0:
    torch.save({"w": torch.randn(1024, 1024)}, "ckpt/init.pt")
dist.barrier(device_ids=lr)
sd = torch.load("ckpt/init.pt", map_location=f"cuda:{lr}")
print(f"rank {rank} loaded {sd['w'].shape}", flush=True)
dist.destroy_process_group()
'''

# u14: AVG on int64 counts (exploratory)
P_AVG_INT = PRE + INIT + '''tokens = torch.tensor([12345 + 1000 * rank], device="cuda", dtype=torch.int64)
dist.all_reduce(tokens, op=dist.ReduceOp.AVG)
print(f"rank {rank} mean tokens per rank {tokens.item()}", flush=True)
dist.destroy_process_group()
'''

# u15: every rank creates its TCPStore with is_master=True
P_STORE_MASTER = '''import os, torch, torch.distributed as dist
from datetime import timedelta
rank = int(os.environ["RANK"]); ws = int(os.environ["WORLD_SIZE"]); lr = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(lr)
store = dist.TCPStore("127.0.0.1", 29641, ws, is_master=True, timeout=timedelta(seconds=10))
dist.init_process_group("nccl", store=store, rank=rank, world_size=ws, device_id=torch.device("cuda", lr))
x = torch.ones(4, device="cuda"); dist.all_reduce(x)
print(f"rank {rank} all_reduce {x.tolist()}", flush=True)
dist.destroy_process_group()
'''

# u16: FSDP2 on the blocks only, root left unsharded, then clip_grad_norm_
P_FSDP2_ROOT = PRE + INIT + '''import torch.nn as nn
from torch.distributed.fsdp import fully_shard
class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d); self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(self, x):
        return x + self.ff(self.ln(x))
class Net(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.embed = nn.Linear(256, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(4)])
        self.head = nn.Linear(d, 10)
    def forward(self, x):
        h = self.embed(x)
        for b in self.blocks:
            h = b(h)
        return self.head(h)
torch.manual_seed(0)
model = Net().cuda()
for b in model.blocks:
    fully_shard(b)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(5):
    x = torch.randn(32, 256, device="cuda"); y = torch.randint(0, 10, (32,), device="cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step(); opt.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f} grad_norm {gn.item():.3f}", flush=True)
dist.destroy_process_group()
'''

# c01: backend "mpi"
P_MPI = '''import os, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
backend = os.environ.get("DIST_BACKEND", "mpi")   # cluster default
dist.init_process_group(backend)
rank = dist.get_rank()
x = torch.ones(4, device="cuda"); dist.all_reduce(x)
print(f"rank {rank} {x.tolist()}", flush=True)
'''

# l01: Lightning strategy="dp"
P_LIT_DP = '''import torch, torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, TensorDataset
class LitNet(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10))
    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.cross_entropy(self.net(x), y)
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=1e-2)
if __name__ == "__main__":
    ds = TensorDataset(torch.randn(2048, 256), torch.randint(0, 10, (2048,)))
    trainer = L.Trainer(accelerator="gpu", devices=2, strategy="dp", max_epochs=1,
                        enable_progress_bar=False, enable_checkpointing=False, logger=False)
    trainer.fit(LitNet(), DataLoader(ds, batch_size=64))
'''

# ---- healthy
P_H_NOSYNC = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
from contextlib import nullcontext
model = DDP(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
accum = 4
for step in range(40):
    x = torch.randn(32, 1024, device="cuda")
    ctx = model.no_sync() if (step + 1) % accum else nullcontext()
    with ctx:
        loss = model(x).pow(2).mean() / accum
        loss.backward()
    if (step + 1) % accum == 0:
        opt.step(); opt.zero_grad(set_to_none=True)
        if rank == 0 and (step + 1) % 20 == 0:
            print(f"update {(step + 1) // accum} loss {loss.item() * accum:.4f}", flush=True)
w = model.module[0].weight.detach().clone(); dist.broadcast(w, 0)
print(f"rank {rank} weights in sync: {torch.equal(w, model.module[0].weight.detach())}", flush=True)
dist.destroy_process_group()
'''

P_H_RING = PRE + INIT + '''# ring exchange of KV blocks (ring attention style) with batch_isend_irecv
torch.manual_seed(rank)
blk = torch.full((8, 1024, 128), float(rank), device="cuda")
recv = torch.empty_like(blk)
seen = [int(blk[0, 0, 0].item())]
for hop in range(ws - 1):
    ops = [dist.P2POp(dist.isend, blk, (rank + 1) % ws), dist.P2POp(dist.irecv, recv, (rank - 1) % ws)]
    for r in dist.batch_isend_irecv(ops):
        r.wait()
    blk, recv = recv, blk
    seen.append(int(blk[0, 0, 0].item()))
print(f"rank {rank} saw blocks from ranks {seen}", flush=True)
dist.destroy_process_group()
'''

P_H_GRAPH = PRE + INIT + '''static = torch.ones(1 << 20, device="cuda")
s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):           # warm up the communicator outside capture
        dist.all_reduce(static)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    static.mul_(2)
    dist.all_reduce(static)
for i in range(10):
    static.fill_(1.0); g.replay()
torch.cuda.synchronize()
print(f"rank {rank} graph replay value {static[0].item()} (expected {2.0 * ws})", flush=True)
dist.destroy_process_group()
'''

P_H_CKPT_STATIC = PRE + INIT + '''import torch.nn as nn
from torch.utils.checkpoint import checkpoint
from torch.nn.parallel import DistributedDataParallel as DDP
class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ff = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(self, x):
        return x + checkpoint(self.ff, x, use_reentrant=False)
torch.manual_seed(0)
model = DDP(nn.Sequential(*[Block(1024) for _ in range(6)]).cuda(), device_ids=[lr], static_graph=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(20):
    loss = model(torch.randn(16, 128, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0 and step % 10 == 9:
        print(f"step {step} loss {loss.item():.4f} max_mem {torch.cuda.max_memory_allocated()/2**30:.2f} GiB", flush=True)
dist.destroy_process_group()
'''

P_H_DCP_ASYNC = '''import os, torch, torch.nn as nn, torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.fsdp import fully_shard
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
dist.init_process_group("cpu:gloo,cuda:nccl", device_id=torch.device("cuda", lr))
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512)).cuda()
for m in model:
    if isinstance(m, nn.Linear):
        fully_shard(m)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(3):
    model(torch.randn(8, 512, device="cuda")).pow(2).mean().backward(); opt.step(); opt.zero_grad()
msd, osd = get_state_dict(model, opt)
fut = dcp.async_save({"model": msd, "optim": osd}, checkpoint_id="ckpt/step3")
for step in range(3, 6):   # keep training while the checkpoint is written
    model(torch.randn(8, 512, device="cuda")).pow(2).mean().backward(); opt.step(); opt.zero_grad()
fut.result()
msd, osd = get_state_dict(model, opt)
dcp.load({"model": msd, "optim": osd}, checkpoint_id="ckpt/step3")
set_state_dict(model, opt, model_state_dict=msd, optim_state_dict=osd)
if rank == 0:
    print("async checkpoint saved at step 3 and restored; files:", sorted(os.listdir("ckpt/step3")), flush=True)
dist.destroy_process_group()
'''

# u17: broadcast_object_list given a dict
P_BOL_DICT = PRE + '''from datetime import timedelta
dist.init_process_group("nccl", device_id=torch.device("cuda", lr), timeout=timedelta(seconds=8))
rank = dist.get_rank(); ws = dist.get_world_size()
if rank == 0:
    cfg = {"lr": 3e-4, "batch_size": 64, "warmup": 500}   # tuned on rank 0
else:
    cfg = {}
dist.broadcast_object_list(cfg, src=0)
print(f"rank {rank} cfg {cfg}", flush=True)
dist.destroy_process_group()
'''

# u18: sync debug mode "error" left on from a profiling session
P_SYNC_ERR = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
torch.cuda.set_sync_debug_mode("error")   # find hidden host syncs
model = DDP(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(20):
    loss = model(torch.randn(64, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 10 == 9 and rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

TR = "torchrun --standalone --nproc-per-node 2 train.py"
L = 25


def scenarios():
    S = {}
    def add(name, prog, cmd=TR, env=None, limit=L, **kw):
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=env or {},
                       limit=limit, **kw)
    add("u01", P_AR_NONE)
    add("u02", P_DT_MIX)
    add("u03", P_AGO_CUDA)
    add("u04", P_DESTROY_EARLY)
    add("u05", P_P2P_COUNT)
    add("u06", P_FILL_OOM, seq=True)
    add("u07", P_GRAPH_LAZY)
    add("u08", P_EXP_IPC, cmd="python train.py", env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
    add("u09", P_HALF_AFTER)
    add("u10", P_COMPLEX_MAX)
    add("u11", P_GRAD_NONE)
    add("u12", P_WAIT_TIMEOUT)
    add("u13", P_BARRIER_INT)
    add("u14", P_AVG_INT)
    add("u15", P_STORE_MASTER)
    add("u16", P_FSDP2_ROOT)
    add("u17", P_BOL_DICT)
    add("u18", P_SYNC_ERR)
    add("c01", P_MPI)
    add("c02", BENCH, env={"NCCL_DEBUG": "WARN", "NCCL_NET": "Sockets"})
    add("c03", BENCH, env={"CUDA_VISIBLE_DEVICES": "0 1"})
    add("c04", BENCH, env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,backend:cudaMallocAsync"})
    add("c05", BENCH, env={"NCCL_DEBUG": "WARN", "NCCL_NTHREADS": "100"})
    add("c06", BENCH, env={"NCCL_DEBUG": "WARN", "NCCL_IB_DISABLE": "yes"})
    add("l01", P_LIT_DP, cmd="python train.py")
    add("h01", P_H_NOSYNC, cmd="torchrun --standalone --nproc-per-node gpu train.py")
    add("h02", P_H_RING)
    add("h03", P_H_GRAPH)
    add("h04", BENCH, env={"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,ENV", "NCCL_CUMEM_ENABLE": "0"})
    add("h05", P_H_CKPT_STATIC, env={"TORCH_DISTRIBUTED_DEBUG": "INFO"})
    add("h06", P_H_DCP_ASYNC)
    return S
