# eval-p38 scenarios. Each writes train.py (and maybe more files) into a neutral job folder.
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
DDP_TRAIN = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(30):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 10 == 9 and rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
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

P_SCATTER = PRE + INIT + '''import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
# graph classification: each rank holds 8 graphs of a 16-graph batch; graph ids are global
torch.manual_seed(rank)
graphs_per_rank = 8
sizes = torch.randint(10, 30, (graphs_per_rank,))
graph_id = torch.repeat_interleave(torch.arange(graphs_per_rank) + rank * graphs_per_rank, sizes).cuda()
x = torch.randn(int(sizes.sum()), 64, device="cuda")
y = torch.randint(0, 2, (graphs_per_rank,), device="cuda")
enc = DDP(nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128)).cuda(), device_ids=[lr])
head = nn.Linear(128, 2).cuda()
opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()), lr=1e-3)
for step in range(5):
    h = enc(x)
    pooled = torch.zeros(graphs_per_rank, 128, device="cuda")
    pooled = pooled.scatter_add(0, graph_id.unsqueeze(-1).expand(-1, 128), h)
    loss = nn.functional.cross_entropy(head(pooled), y)
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_VOCABPAR = PRE + INIT + '''import torch.nn.functional as F
# vocab-parallel embedding: each rank owns a contiguous slice of the vocabulary
vocab, dim = 32000, 512
per = vocab // ws
lo, hi = rank * per, (rank + 1) * per
weight = torch.nn.Parameter(torch.randn(per, dim, device="cuda") * 0.02)
torch.manual_seed(0)
ids = torch.randint(0, vocab, (8, 256), device="cuda")
for step in range(3):
    mask = (ids < lo) | (ids >= hi)
    local_ids = ids.clone()
    local_ids[mask] = 0
    out = F.embedding(local_ids, weight)
    out[mask] = 0.0
    dist.all_reduce(out)
    loss = out.float().pow(2).mean()
    loss.backward()
    print(f"rank {rank} step {step} loss {loss.item():.6f}", flush=True)
dist.destroy_process_group()
'''

P_CUPY = PRE + INIT + '''import cupy as cp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
# normalise the cached features on the GPU with cupy, then train on them with torch
N, D = 1_800_000, 4096
with cp.cuda.Device(lr):
    feats = cp.random.standard_normal((N, D), dtype=cp.float32)
    mean = feats.mean(axis=0); std = feats.std(axis=0) + 1e-6
    feats -= mean; feats /= std
    data = torch.from_dlpack(feats).clone()
    del feats, mean, std
print(f"rank {rank} features {tuple(data.shape)} {data.dtype}, torch allocated {torch.cuda.memory_allocated()/2**30:.1f} GiB", flush=True)
model = DDP(nn.Sequential(nn.Linear(D, 8192), nn.GELU(), nn.Linear(8192, 16)).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
bs = 262144
for step in range(5):
    idx = torch.randint(0, N, (bs,), device="cuda")
    loss = model(data[idx]).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_MP = '''import torch, torch.nn as nn
# two-stage model parallel on one node: stage 1 on cuda:0, stage 2 on cuda:1
class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ff = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(self, x):
        return self.ff(x)
class TwoStage(nn.Module):
    def __init__(self, d=2048, n=4):
        super().__init__()
        self.stage1 = nn.Sequential(*[Block(d) for _ in range(n)]).to("cuda:0")
        self.stage2 = nn.Sequential(*[Block(d) for _ in range(n)]).to("cuda:1")
        self.head = nn.Linear(d, 10).to("cuda:1")
    def forward(self, x):
        h = self.stage1(x.to("cuda:0"))
        z = self.stage2(h.to("cuda:1"))
        return self.head(z + h)
model = TwoStage()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(10):
    x = torch.randn(32, 2048)
    y = torch.randint(0, 10, (32,), device="cuda:1")
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
'''

P_CEW = PRE + INIT + '''import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
torch.manual_seed(0)
labels = torch.cat([torch.zeros(9000, dtype=torch.long), torch.randint(1, 5, (1000,))])
feats = torch.randn(10000, 256)
counts = torch.bincount(labels, minlength=5).float()
class_weights = counts.sum() / (len(counts) * counts)
print(f"rank {rank} class weights {class_weights.tolist()}", flush=True)
model = DDP(nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 5)).cuda(), device_ids=[lr])
criterion = nn.CrossEntropyLoss(weight=class_weights)
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
for step in range(20):
    idx = torch.randint(0, 10000, (128,))
    x, y = feats[idx].cuda(), labels[idx].cuda()
    loss = criterion(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 10 == 9 and rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_AVG = PRE + '''dist.init_process_group("cpu:gloo,cuda:nccl", device_id=torch.device("cuda", lr))
rank = dist.get_rank(); ws = dist.get_world_size()
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(nn.Linear(128, 10).cuda(), device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
tot_loss, tot_correct, n = 0.0, 0, 0
for step in range(20):
    x = torch.randn(64, 128, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
    out = model(x); loss = nn.functional.cross_entropy(out, y)
    loss.backward(); opt.step(); opt.zero_grad()
    tot_loss += loss.item() * 64; tot_correct += (out.argmax(1) == y).sum().item(); n += 64
# epoch metrics are kept on the CPU
stats = torch.tensor([tot_loss / n, tot_correct / n])
dist.all_reduce(stats, op=dist.ReduceOp.AVG)
if rank == 0:
    print(f"epoch loss {stats[0]:.4f} acc {stats[1]:.4f}", flush=True)
dist.destroy_process_group()
'''

P_INT16 = PRE + INIT + '''# token frequency statistics for the tokenizer report; int16 keeps the 32k-entry table small
vocab = 32000
torch.manual_seed(rank)
tokens = torch.randint(0, vocab, (4096 * 16,), device="cuda")
counts = torch.bincount(tokens, minlength=vocab).to(torch.int16)
dist.all_reduce(counts)
if rank == 0:
    print(f"total tokens {int(counts.sum())}, unseen {(counts == 0).sum().item()}", flush=True)
dist.destroy_process_group()
'''

P_LIGHTNING_FORK = '''import torch, torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, TensorDataset
print(f"found {torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}", flush=True)
class LitMLP(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self.log("train_loss", loss)
        return loss
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
ds = TensorDataset(torch.randn(512, 32), torch.randn(512, 1))
trainer = L.Trainer(accelerator="gpu", devices=2, strategy="ddp_fork", max_epochs=1, enable_progress_bar=False)
trainer.fit(LitMLP(), DataLoader(ds, batch_size=32))
'''

P_EVAL_TIMEOUT = PRE + '''from datetime import timedelta
dist.init_process_group("nccl", device_id=torch.device("cuda", lr), timeout=timedelta(seconds=20))
rank = dist.get_rank(); ws = dist.get_world_size()
''' + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
def evaluate(m):
    m.eval(); t = time.time(); n = 0
    with torch.no_grad():
        a = torch.randn(8192, 8192, device="cuda")
        while time.time() - t < 45:
            a = torch.tanh(a @ a); n += 1
            torch.cuda.synchronize()
    m.train()
    return n
for step in range(6):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
    if step == 2 and rank == 0:
        print(f"rank 0: running validation (batches={evaluate(model.module)})", flush=True)
dist.destroy_process_group()
'''

P_VOCAB_BCAST = PRE + INIT + '''import random
# each rank builds the vocabulary from its own data shard, rank 0 initialises the embedding and broadcasts it
random.seed(1234 + rank)
words = ["w%d" % random.randint(0, 5000) for _ in range(3000)]
vocab = sorted(set(words))
print(f"rank {rank} vocab size {len(vocab)}", flush=True)
emb = torch.empty(len(vocab), 256, device="cuda")
if rank == 0:
    torch.nn.init.normal_(emb, std=0.02)
dist.broadcast(emb, src=0)
print(f"rank {rank} embedding ready {tuple(emb.shape)}", flush=True)
dist.destroy_process_group()
'''

P_ACC_REDUCE = '''import torch, torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
acc = Accelerator()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
ds = TensorDataset(torch.randn(600, 20), torch.randint(0, 3, (600,)))
dl = DataLoader(ds, batch_size=50)
model, opt, dl = acc.prepare(model, opt, dl)
for x, y in dl:
    loss = nn.functional.cross_entropy(model(x), y)
    acc.backward(loss); opt.step(); opt.zero_grad()
model.eval()
correct = torch.tensor(0, device=acc.device)
with torch.no_grad():
    for x, y in dl:
        correct += (model(x).argmax(-1) == y).sum()
correct = acc.reduce(correct, reduction="mean")
acc.print(f"mean correct per process: {correct.item()}")
acc.end_training()
'''

# ---------------- healthy
P_H_COMPRESS = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
model = DDP(make_model().cuda(), device_ids=[lr])
model.register_comm_hook(state=None, hook=default_hooks.bf16_compress_hook)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
torch.manual_seed(1)
x = torch.randn(512, 1024, device="cuda"); y = torch.randn(512, 1024, device="cuda")
for step in range(40):
    loss = (model(x) - y).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 10 == 9 and rank == 0:
        print(f"step {step} loss {loss.item():.5f}", flush=True)
w = model.module[0].weight.detach().clone(); ref = w.clone(); dist.broadcast(ref, 0)
print(f"rank {rank} weights in sync: {torch.equal(w, ref)}", flush=True)
dist.destroy_process_group()
'''

P_H_A2A = PRE + INIT + '''# MoE token dispatch: uneven number of tokens per expert rank
torch.manual_seed(rank)
tokens = torch.randn(1000 + 37 * rank, 512, device="cuda")
dest = torch.randint(0, ws, (tokens.shape[0],), device="cuda")
order = torch.argsort(dest)
send = tokens[order]
send_counts = torch.bincount(dest, minlength=ws)
recv_counts = torch.empty_like(send_counts)
dist.all_to_all_single(recv_counts, send_counts)
recv = torch.empty(int(recv_counts.sum()), 512, device="cuda")
dist.all_to_all_single(recv, send, output_split_sizes=recv_counts.tolist(), input_split_sizes=send_counts.tolist())
out = recv * 2.0  # expert
back = torch.empty_like(send)
dist.all_to_all_single(back, out, output_split_sizes=send_counts.tolist(), input_split_sizes=recv_counts.tolist())
res = torch.empty_like(tokens); res[order] = back
print(f"rank {rank} sent {send_counts.tolist()} received {recv_counts.tolist()} roundtrip ok: {torch.allclose(res, tokens * 2.0)}", flush=True)
dist.destroy_process_group()
'''

P_H_LFSDP = '''import torch, torch.nn as nn
import lightning as L
from torch.utils.data import DataLoader, TensorDataset
class LitNet(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 10))
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss, prog_bar=False, sync_dist=True)
        return loss
    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)
if __name__ == "__main__":
    L.seed_everything(0)
    ds = TensorDataset(torch.randn(4096, 256), torch.randint(0, 10, (4096,)))
    trainer = L.Trainer(accelerator="gpu", devices=2, strategy="fsdp", precision="bf16-mixed", max_epochs=2,
                        enable_progress_bar=False, enable_checkpointing=False, logger=False)
    trainer.fit(LitNet(), DataLoader(ds, batch_size=64, num_workers=2))
    if trainer.global_rank == 0:
        print("final train_loss", float(trainer.callback_metrics["train_loss"]))
'''

P_H_ZERO1 = PRE + INIT + MLP + '''# hand-written ZeRO-1 style step: reduce-scatter grads, update a shard, all-gather params
model = make_model().cuda()
params = [p for p in model.parameters()]
flat = torch.cat([p.detach().reshape(-1) for p in params])
pad = (-flat.numel()) % ws
flat = torch.cat([flat, flat.new_zeros(pad)])
shard = flat.numel() // ws
master = flat[rank * shard:(rank + 1) * shard].clone()
m = torch.zeros_like(master)
torch.manual_seed(100 + rank)
for step in range(20):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    grads = torch.autograd.grad(loss, params)
    g = torch.cat([gg.reshape(-1) for gg in grads] + [flat.new_zeros(pad)])
    gs = torch.empty(shard, device="cuda")
    dist.reduce_scatter_tensor(gs, g, op=dist.ReduceOp.AVG)
    m.mul_(0.9).add_(gs); master.add_(m, alpha=-1e-3)
    full = torch.empty(shard * ws, device="cuda")
    dist.all_gather_into_tensor(full, master)
    off = 0
    with torch.no_grad():
        for p in params:
            p.copy_(full[off:off + p.numel()].view_as(p)); off += p.numel()
    if step % 10 == 9 and rank == 0:
        print(f"step {step} loss {loss.item():.5f}", flush=True)
chk = params[0].detach().clone(); dist.broadcast(chk, 0)
print(f"rank {rank} params identical: {torch.equal(chk, params[0].detach())}", flush=True)
dist.destroy_process_group()
'''

TR = "torchrun --standalone --nproc-per-node 2 train.py"
NV = {"NCCL_DEBUG": "INFO"}


def scenarios():
    S = {}
    def add(name, prog, cmd=TR, env=None, limit=120, **kw):
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=env or {},
                       limit=limit, **kw)
    # user code
    add("u01", P_SCATTER)
    add("u02", P_VOCABPAR)
    add("u03", P_CUPY, limit=150, seq=True)
    add("u04", P_MP, cmd="python train.py")
    add("u05", P_CEW)
    add("u06", P_AVG)
    add("u07", P_INT16)
    add("u08", P_VOCAB_BCAST, env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"})
    add("u09", P_ACC_REDUCE, cmd="accelerate launch --multi_gpu --num_processes 2 train.py")
    # configuration / environment
    add("c01", DDP_TRAIN, env={"NCCL_BUFFSIZE": "4294967296"}, seq=True)
    add("c02", DDP_TRAIN, env={"CUDA_VISIBLE_DEVICES": "-1"})
    add("c03", DDP_TRAIN, cmd="LD_LIBRARY_PATH=/usr/local/cuda/lib64/stubs:$LD_LIBRARY_PATH " + TR,
        prep="s=$(find / -xdev -name libcuda.so -path '*stubs*' 2>/dev/null | head -1); echo stub=$s; "
             "mkdir -p /usr/local/cuda/lib64/stubs && [ -n \"$s\" ] && cp -n $s /usr/local/cuda/lib64/stubs/libcuda.so "
             "&& ln -sf libcuda.so /usr/local/cuda/lib64/stubs/libcuda.so.1; ls -l /usr/local/cuda/lib64/stubs")
    add("c04", DDP_TRAIN,
        cmd="unshare -m bash -c 'mount -t tmpfs -o size=16m tmpfs /dev/shm && df -h /dev/shm && echo @@SPLIT@@ && "
            "NCCL_P2P_DISABLE=1 " + TR + "'")
    add("c05", BENCH, env=dict(NV, NCCL_ALGO="^Ring,Tree"))
    add("c06", BENCH, env=dict(NV, NCCL_SOCKET_FAMILY="AF_INET6"))
    add("c07", BENCH, env=dict(NV, NCCL_TOPO_FILE="/etc/nccl/topo.xml"))
    add("c08", BENCH, env=dict(NV, NCCL_MNNVL_ENABLE="1"))
    add("c09", BENCH, env=dict(NV, NCCL_P2P_LEVEL="NVLINK"))
    add("c10", BENCH, env=dict(NV, NCCL_ALGO="allreduce=tree"))
    add("c11", BENCH, env={"NCCL_DEBUG": "WARN", "NCCL_PROTO": "LL128,^Simple"})
    # launcher misuse
    add("l01", P_LIGHTNING_FORK, cmd="python train.py", limit=150)
    add("l02", DDP_TRAIN, cmd="torchrun --standalone --nproc-per-node 3 train.py")
    add("l03", DDP_TRAIN, cmd="torchrun --standalone --nproc-per-node 2 python train.py")
    add("l04", P_EVAL_TIMEOUT, limit=150, seq=True)
    # healthy
    add("h01", P_H_COMPRESS)
    add("h02", P_H_A2A)
    add("h03", P_H_LFSDP, cmd="python train.py", limit=200)
    add("h04", BENCH, env=dict(NV, NCCL_P2P_LEVEL="NVL"))
    add("h05", P_H_ZERO1)
    add("h06", BENCH, env=dict(NV, NCCL_PROTO="Simple", NCCL_ALGO="Ring"))
    return S
