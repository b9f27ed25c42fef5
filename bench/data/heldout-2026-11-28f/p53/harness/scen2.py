# eval-p53 round 2
from scen import TR, PY, HDR, INIT, DDPIMP, H03

R01 = HDR + DDPIMP + '''from torch.distributed.algorithms.join import Join
from torch.distributed.optim import ZeroRedundancyOptimizer
torch.cuda.set_device(lr)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=15))
if rank == 0:
    print(f"world {ws} | torch {torch.__version__} | nccl {'.'.join(map(str, torch.cuda.nccl.version()))} | {torch.cuda.get_device_name()}", flush=True)
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).cuda(), device_ids=[lr])
opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-3)
shard_batches = [20, 14][rank]
print(f"[rank{rank}] shard has {shard_batches} batches", flush=True)
with Join([model]):
    for step in range(shard_batches):
        x = torch.randn(64, 256, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
        loss = F.cross_entropy(model(x), y)
        loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
        if step % 5 == 0:
            print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
print(f"[rank{rank}] epoch done after {shard_batches} local steps", flush=True)
dist.destroy_process_group()
'''

R03 = '''import torch, torch.nn as nn, torch.nn.functional as F
class Net(nn.Module):
    def __init__(s):
        super().__init__(); s.fc = nn.Linear(128, 10)
    def forward(s, x, mask):
        logits = s.fc(x)
        n_valid = int(mask.sum())        # number of non-padded rows, for logging
        return logits, n_valid
print(f"GPUs: {torch.cuda.device_count()}", flush=True)
model = nn.DataParallel(Net().cuda())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(5):
    x = torch.randn(64, 128, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
    mask = torch.ones(64, device="cuda"); mask[-5:] = 0
    logits, n_valid = model(x, mask)
    loss = F.cross_entropy(logits, y); loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f} valid {n_valid}", flush=True)
'''

R04 = '''import time, torch, torch.nn as nn, torch.nn.functional as F
class Tagger(nn.Module):
    def __init__(s, V=5000, d=256, h=512, n_tags=17):
        super().__init__()
        s.emb = nn.Embedding(V, d); s.rnn = nn.LSTM(d, h, num_layers=2, batch_first=True, bidirectional=True)
        s.out = nn.Linear(2 * h, n_tags)
    def forward(s, idx):
        h, _ = s.rnn(s.emb(idx)); return s.out(h)
print(f"GPUs: {torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}", flush=True)
model = nn.DataParallel(Tagger().cuda())
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
torch.manual_seed(0)
X = torch.randint(0, 5000, (128, 60)); Y = torch.randint(0, 17, (128, 60))
t0 = time.time()
for step in range(30):
    out = model(X.cuda())
    loss = F.cross_entropy(out.flatten(0, 1), Y.cuda().flatten())
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 10 == 0 or step == 29:
        print(f"step {step} loss {loss.item():.4f} ({1e3*(time.time()-t0)/(step+1):.1f} ms/step)", flush=True)
'''

R06 = HDR + INIT + '''from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
mesh = init_device_mesh("cuda", (ws,), mesh_dim_names=("dp"))
model = nn.Sequential(nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 1024)).cuda()
fully_shard(model, mesh=mesh)
print(f"[rank{rank}] sharded", flush=True)
dist.destroy_process_group()
'''

R07 = HDR + INIT + '''from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(1024, 1024), nn.GELU()) for _ in range(4)])
model = FSDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    loss = model(torch.randn(64, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0: print(f"step {step} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''

R10 = HDR + '''torch.cuda.set_device(lr)
dist.init_process_group("gloo")   # CPU metrics / data-prep group
print(f"[rank{rank}] gloo ready", flush=True)
# wait for rank 0 to finish tokenizing before everyone reads the cache
if rank == 0:
    time.sleep(1); print("cache written", flush=True)
dist.barrier(device_ids=[lr])
print(f"[rank{rank}] past barrier", flush=True)
dist.destroy_process_group()
'''

R11 = HDR + INIT + '''# pipeline stage exchange: rank r sends activations to r+1, receives from r-1
act = torch.randn(32, 1024, device="cuda")
buf = torch.empty(32, 1024, device="cuda")
ops = []
if rank + 1 < ws:
    ops.append(dist.P2POp(dist.isend, act, rank + 1))
if rank - 1 >= 0:
    ops.append(dist.P2POp(dist.irecv, buf, rank - 1))
# last stage has nothing to send, first nothing to receive
print(f"[rank{rank}] {len(ops)} p2p ops", flush=True)
for w in dist.batch_isend_irecv(ops):
    w.wait()
# backward: gradients flow the other way
ops = []
if rank - 1 >= 0:
    ops.append(dist.P2POp(dist.isend, buf, rank - 1))
if rank + 1 < ws and False:
    ops.append(dist.P2POp(dist.irecv, act, rank + 1))
for w in dist.batch_isend_irecv(ops):
    w.wait()
print(f"[rank{rank}] step done", flush=True)
dist.destroy_process_group()
'''

R12 = HDR + INIT + '''# rank 0 loads the eval set (10_001 rows) and scatters it
rows = 10_001
recv = torch.empty(rows // ws, 64, device="cuda")
if rank == 0:
    data = torch.randn(rows, 64, device="cuda")
    chunks = list(data.chunk(ws))
    print("chunk sizes", [c.shape[0] for c in chunks], flush=True)
    dist.scatter(recv, scatter_list=chunks, src=0)
else:
    dist.scatter(recv, src=0)
print(f"[rank{rank}] got {tuple(recv.shape)}", flush=True)
dist.destroy_process_group()
'''

R14 = HDR + DDPIMP + INIT + '''class Net(nn.Module):
    def __init__(s):
        super().__init__(); s.body = nn.Linear(128, 128); s.aux = nn.Linear(128, 1); s.head = nn.Linear(128, 10)
    def forward(s, x, use_aux):
        h = F.relu(s.body(x)); out = s.head(h)
        return (out, s.aux(h)) if use_aux else (out, None)
use_aux = rank == 0           # only rank 0 has auxiliary labels in its shard
model = DDP(Net().cuda(), device_ids=[lr], find_unused_parameters=not use_aux)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(6):
    x = torch.randn(64, 128, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
    out, aux = model(x, use_aux)
    loss = F.cross_entropy(out, y) + (aux.pow(2).mean() if aux is not None else 0)
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

R44 = HDR + DDPIMP + INIT + '''torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
model = DDP(model, device_ids=[lr], output_device=0)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(6):
    x = torch.randn(64, 256).cuda(); y = torch.randint(0, 10, (64,)).cuda()
    loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

R48 = HDR + DDPIMP + '''dist.init_process_group("nccl", device_id=torch.device("cuda"))
torch.cuda.set_device(lr)
print(f"[rank{rank}] pg ready, current device {torch.cuda.current_device()}", flush=True)
model = DDP(nn.Linear(256, 10).cuda(), device_ids=[lr])
x = torch.randn(8, 256, device="cuda"); model(x).sum().backward()
print(f"[rank{rank}] step ok", flush=True)
dist.destroy_process_group()
'''

R49 = R48.replace('device_id=torch.device("cuda")', 'device_id=lr')


def scenarios():
    def sc(prog, env=None, cmd=TR, limit=40):
        return {"prog": {"train.py": prog}, "env": dict(env or {}), "cmd": cmd, "limit": limit}
    return {
        "r01": sc(R01), "r03": sc(R03, cmd=PY), "r04": sc(R04, cmd=PY), "r06": sc(R06), "r07": sc(R07),
        "r10": sc(R10), "r11": sc(R11), "r12": sc(R12), "r14": sc(R14), "r44": sc(R44), "r48": sc(R48),
        "r49": sc(R49), "h03b": sc(H03.replace("t0 = time.time()\nfor it in range(20)", "for it in range(3):\n    dist.all_gather_into_tensor(out8, s8)\ntorch.cuda.synchronize()\nt0 = time.time()\nfor it in range(20)")),
    }
