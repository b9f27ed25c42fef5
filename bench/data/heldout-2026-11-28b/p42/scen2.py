# eval-p42 second batch
from scen import PRE, INIT, MLP, DDP_HEAD, TR

V01 = PRE + INIT + MLP + '''import torch.distributed.checkpoint as dcp
resume = os.environ.get("RESUME_FROM", "/tmp/runs/exp7/ckpt/step_2000")
model = make_model(1024).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
state = {"model": model.state_dict()}
print(f"rank {rank} resuming from {resume}", flush=True)
dcp.load(state, checkpoint_id=resume)
model.load_state_dict(state["model"])
dist.destroy_process_group()
'''
V02 = PRE + INIT + '''from torch.distributed.device_mesh import init_device_mesh
mesh = init_device_mesh("cuda", (ws,))
dp_mesh = mesh["dp"]
print(f"rank {rank} dp size {dp_mesh.size()}", flush=True)
dist.destroy_process_group()
'''
V03 = PRE + INIT + '''from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel
import torch.nn as nn
mesh = init_device_mesh("cuda", (ws,), mesh_dim_names=("tp",))
torch.manual_seed(0)
mlp = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 512)).cuda()
mlp = parallelize_module(mlp, mesh, {"0": ColwiseParallel()})
x = torch.randn(16, 512, device="cuda")
y = mlp(x)
print(f"rank {rank} out {tuple(y.shape)}", flush=True)
dist.destroy_process_group()
'''
V04 = DDP_HEAD + '''from torch.distributed.optim import ZeroRedundancyOptimizer
model = DDP(make_model(1024).cuda(), device_ids=[lr])
opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW(model.parameters(), lr=1e-4))
for step in range(5):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
print(f"rank {rank} done", flush=True)
dist.destroy_process_group()
'''
V05 = DDP_HEAD + '''model = DDP(make_model(1024).cuda(), device_ids=lr)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(5):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
print(f"rank {rank} done", flush=True)
dist.destroy_process_group()
'''
V06 = PRE + INIT + MLP + '''# overlap: launch the gradient all-reduces asynchronously, then wait for all of them at once
model = make_model(1024).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(3):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward()
    handles = [dist.all_reduce(p.grad, op=dist.ReduceOp.AVG, async_op=True) for p in model.parameters()]
    torch.futures.wait_all(handles)
    opt.step(); opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''
# spare healthy: the same async all-reduce done right
H07 = PRE + INIT + MLP + '''model = make_model(1024).cuda()
for p in model.parameters():
    dist.broadcast(p.data, 0)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(10):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward()
    works = [dist.all_reduce(p.grad, op=dist.ReduceOp.AVG, async_op=True) for p in model.parameters()]
    for w in works:
        w.wait()
    opt.step(); opt.zero_grad()
    if step % 3 == 2:
        print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
chk = next(model.parameters()).detach().clone(); dist.broadcast(chk, 0)
print(f"rank {rank} in sync: {torch.equal(chk, next(model.parameters()).detach())}", flush=True)
dist.destroy_process_group()
'''
V07 = DDP_HEAD + '''from torch.utils.data import DataLoader, TensorDataset, DistributedSampler
ds = TensorDataset(torch.randn(4096, 1024))
sampler = DistributedSampler(ds, num_replicas=ws, rank=int(os.environ["RANK"]) + 1)
loader = DataLoader(ds, batch_size=64, sampler=sampler)
print(len(loader))
dist.destroy_process_group()
'''


def scenarios():
    S = {}
    def add(name, prog, cmd=TR, env=None, limit=25, **kw):
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=env or {},
                       limit=limit, **kw)
    add("v01", V01)
    add("v02", V02)
    add("v03", V03)
    add("v04", V04)
    add("v05", V05)
    add("v06", V06)
    add("h07", H07)
    return S
