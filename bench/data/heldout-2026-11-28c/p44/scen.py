# eval-p44 scenarios. Each writes train.py (and maybe more files) into a neutral job folder.
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

# u01: each worker narrows CUDA_VISIBLE_DEVICES to its own GPU, then still uses cuda:LOCAL_RANK
U01 = '''import os
local_rank = int(os.environ["LOCAL_RANK"])
os.environ["CUDA_VISIBLE_DEVICES"] = str(local_rank)  # isolate each worker on its own GPU
import torch, torch.distributed as dist
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
x = torch.ones(1024, device="cuda")
dist.all_reduce(x)
print(f"rank {dist.get_rank()} sum {x[0].item()} on {torch.cuda.get_device_name()}", flush=True)
dist.destroy_process_group()
'''
H03 = '''import os
local_rank = int(os.environ["LOCAL_RANK"])
os.environ["CUDA_VISIBLE_DEVICES"] = str(local_rank)  # isolate each worker on its own GPU
import torch, torch.distributed as dist
torch.cuda.set_device(0)  # the only visible GPU
dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
x = torch.ones(1 << 20, device="cuda")
for _ in range(10):
    dist.all_reduce(x)
torch.cuda.synchronize()
print(f"rank {dist.get_rank()} visible={os.environ['CUDA_VISIBLE_DEVICES']} devices={torch.cuda.device_count()} x[0]={x[0].item()}", flush=True)
dist.destroy_process_group()
'''

# u02: manual data parallel that all-reduces the loss instead of the gradients
U02 = PRE + INIT + MLP + '''model = make_model(2048).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    torch.manual_seed(1000 * rank + step)
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    # average the loss over ranks so every rank gets the same gradients
    dist.all_reduce(loss, op=dist.ReduceOp.AVG)
    loss.backward()
    opt.step(); opt.zero_grad(set_to_none=True)
    with torch.no_grad():
        chk = sum(p.double().sum() for p in model.parameters()).item()
    print(f"rank {rank} step {step} loss {loss.item():.6f} param_checksum {chk:.6f}", flush=True)
dist.destroy_process_group()
'''
H04 = PRE + INIT + MLP + '''model = make_model(2048).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(5):
    torch.manual_seed(1000 * rank + step)
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
    opt.step(); opt.zero_grad(set_to_none=True)
    with torch.no_grad():
        chk = sum(p.double().sum() for p in model.parameters()).item()
        gl = loss.detach().clone(); dist.all_reduce(gl, op=dist.ReduceOp.AVG)
    print(f"rank {rank} step {step} loss {gl.item():.6f} param_checksum {chk:.6f}", flush=True)
dist.destroy_process_group()
'''

# u04: gloo backend with CUDA tensors and reduce_scatter_tensor
U04 = '''import os, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
dist.init_process_group(backend=os.environ.get("DIST_BACKEND", "gloo"))
rank = dist.get_rank(); ws = dist.get_world_size()
grad = torch.full((ws * 4096,), float(rank + 1), device="cuda")
shard = torch.empty(4096, device="cuda")
dist.reduce_scatter_tensor(shard, grad)
print(f"rank {rank} shard[0]={shard[0].item()}", flush=True)
dist.destroy_process_group()
'''

# u05: handles collected from all_reduce calls made without async_op=True
U05 = DDP_HEAD + '''model = make_model(2048).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(3):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward()
    handles = [dist.all_reduce(p.grad, op=dist.ReduceOp.AVG) for p in model.parameters()]
    for h in handles:
        h.wait()
    opt.step(); opt.zero_grad(set_to_none=True)
    print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

# u06: subgroups created in a different order on different ranks
U06 = '''import os, torch, torch.distributed as dist
from datetime import timedelta
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
dist.init_process_group("nccl", device_id=torch.device("cuda", lr), timeout=timedelta(seconds=10))
rank = dist.get_rank(); ws = dist.get_world_size()
if rank == 0:
    # main rank sets up the metrics/logging group first
    log_group = dist.new_group(list(range(ws)), backend="gloo")
    dp_group = dist.new_group(list(range(ws)))
else:
    dp_group = dist.new_group(list(range(ws)))
    log_group = dist.new_group(list(range(ws)), backend="gloo")
print(f"rank {rank} groups ready", flush=True)
x = torch.ones(1024, device="cuda")
dist.all_reduce(x, group=dp_group)
m = torch.tensor([float(rank)])
dist.all_reduce(m, group=log_group)
print(f"rank {rank} dp sum {x[0].item()} metric {m.item()}", flush=True)
dist.destroy_process_group()
'''

# u08: torch.load on a DCP shard file
U08_TRAIN = DDP_HEAD + '''import torch.distributed.checkpoint as dcp
model = make_model(1024).cuda()
ck = os.path.join(os.getcwd(), "ckpt", "step_200")
dcp.save({"model": model.state_dict()}, checkpoint_id=ck)
if rank == 0:
    print("checkpoint written:", sorted(os.listdir(ck)), flush=True)
dist.destroy_process_group()
'''
U08_EXPORT = '''import os, sys, torch
ck = "ckpt/step_200"
shard = os.path.join(ck, "__0_0.distcp")
print("loading", shard, flush=True)
sd = torch.load(shard, map_location="cpu")
torch.save(sd["model"], "model_step_200.pt")
print("exported", len(sd["model"]), "tensors", flush=True)
'''
H02_EXPORT = '''import torch
from torch.distributed.checkpoint.format_utils import dcp_to_torch_save
dcp_to_torch_save("ckpt/step_200", "model_step_200.pt")
sd = torch.load("model_step_200.pt", map_location="cpu")
print("exported", len(sd["model"]), "tensors:", {k: tuple(v.shape) for k, v in sd["model"].items()}, flush=True)
'''

# u09: CUDA event timing read before the end event completed
U09 = PRE + INIT + '''x = torch.ones(64 * 1024 * 1024, device="cuda")
for _ in range(3):
    dist.all_reduce(x)
start = torch.cuda.Event(enable_timing=True); end = torch.cuda.Event(enable_timing=True)
start.record()
for _ in range(50):
    dist.all_reduce(x)
end.record()
ms = start.elapsed_time(end) / 50
if rank == 0:
    print(f"all_reduce 256 MiB: {ms:.3f} ms", flush=True)
dist.destroy_process_group()
'''

# u14: ReduceOp.AVG on a gloo metrics group
U14 = PRE + '''dist.init_process_group("cpu:gloo,cuda:nccl", device_id=torch.device("cuda", lr))
rank = dist.get_rank(); ws = dist.get_world_size()
metrics_pg = dist.new_group(backend="gloo")
for epoch in range(2):
    x = torch.ones(1 << 20, device="cuda") * (rank + 1)
    dist.all_reduce(x)
    stats = torch.tensor([0.91 - 0.01 * rank, 1.23 + 0.1 * rank, 512.0])  # acc, loss, samples
    dist.all_reduce(stats, op=dist.ReduceOp.AVG, group=metrics_pg)
    if rank == 0:
        print(f"epoch {epoch} acc {stats[0]:.4f} loss {stats[1]:.4f}", flush=True)
dist.destroy_process_group()
'''
H07 = PRE + '''dist.init_process_group("cpu:gloo,cuda:nccl", device_id=torch.device("cuda", lr))
rank = dist.get_rank(); ws = dist.get_world_size()
metrics_pg = dist.new_group(backend="gloo")
for epoch in range(2):
    x = torch.ones(1 << 20, device="cuda") * (rank + 1)
    dist.all_reduce(x)
    stats = torch.tensor([0.91 - 0.01 * rank, 1.23 + 0.1 * rank, 512.0])
    dist.all_reduce(stats, op=dist.ReduceOp.SUM, group=metrics_pg)
    stats[:2] /= ws
    objs = [None] * ws
    dist.all_gather_object(objs, {"rank": rank, "host": os.uname().nodename[:8], "epoch": epoch}, group=metrics_pg)
    if rank == 0:
        print(f"epoch {epoch} acc {stats[0]:.4f} loss {stats[1]:.4f} samples {int(stats[2])} x[0]={x[0].item()} peers={[o['rank'] for o in objs]}", flush=True)
dist.destroy_process_group()
'''

# u25: pipeline stage loop with an empty P2P op list on the last stage
U25 = PRE + INIT + '''mb = torch.randn(8, 1024, device="cuda")
buf = torch.empty(8, 1024, device="cuda")
for it in range(3):
    ops = []
    if rank > 0:
        ops.append(dist.P2POp(dist.irecv, buf, rank - 1))
    if rank < ws - 1:
        ops.append(dist.P2POp(dist.isend, mb, rank + 1))
    reqs = dist.batch_isend_irecv(ops)
    for r in reqs:
        r.wait()
    print(f"stage {rank} micro-batch {it} done", flush=True)
dist.destroy_process_group()
'''
H06 = PRE + INIT + '''mb = torch.randn(8, 1024, device="cuda")
buf = torch.empty(8, 1024, device="cuda")
for it in range(3):
    ops = []
    if rank > 0:
        ops.append(dist.P2POp(dist.irecv, buf, rank - 1))
    if rank < ws - 1:
        ops.append(dist.P2POp(dist.isend, mb * (it + 1), rank + 1))
    if ops:
        for r in dist.batch_isend_irecv(ops):
            r.wait()
    torch.cuda.synchronize()
    print(f"stage {rank} micro-batch {it} done, recv norm {buf.norm().item() if rank > 0 else 0.0:.2f}", flush=True)
dist.destroy_process_group()
'''

# u11: broadcast_object_list given a dict
U11 = PRE + INIT + '''cfg = {"lr": 3e-4, "warmup": 500, "run_name": "exp42"} if rank == 0 else {}
dist.broadcast_object_list(cfg, src=0)
print(f"rank {rank} cfg {cfg}", flush=True)
x = torch.ones(10, device="cuda") * cfg["lr"]
dist.all_reduce(x)
dist.destroy_process_group()
'''

# u22: all_gather_object output list of length 1
U22 = PRE + INIT + '''stats = {"rank": rank, "tokens": 1000 * (rank + 1)}
gathered = [None]
dist.all_gather_object(gathered, stats)
if rank == 0:
    print("total tokens", sum(s["tokens"] for s in gathered), flush=True)
dist.destroy_process_group()
'''

# u38: init_device_mesh with device type "gpu"
U38 = PRE + INIT + '''from torch.distributed.device_mesh import init_device_mesh
mesh = init_device_mesh("gpu", (ws,), mesh_dim_names=("dp",))
print(f"rank {rank} mesh {mesh}", flush=True)
dist.destroy_process_group()
'''

# u39: device_id given as an int
U39 = PRE + '''dist.init_process_group("nccl", device_id=lr)
rank = dist.get_rank()
x = torch.ones(8, device="cuda"); dist.all_reduce(x)
print(f"rank {rank} sum {x[0].item()}", flush=True)
dist.destroy_process_group()
'''

# u40: ReduceOp given as a string
U40 = PRE + INIT + '''correct = torch.tensor([float(90 + rank)], device="cuda")
dist.all_reduce(correct, op="sum")
print(f"rank {rank} correct {correct.item()}", flush=True)
dist.destroy_process_group()
'''

# h01: DDP with no_sync gradient accumulation and TORCH_DISTRIBUTED_DEBUG=INFO
H01 = DDP_HEAD + '''import contextlib
model = DDP(make_model(2048).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
accum = 4
t0 = time.time()
for step in range(8):
    for micro in range(accum):
        ctx = model.no_sync() if micro < accum - 1 else contextlib.nullcontext()
        with ctx:
            loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean() / accum
            loss.backward()
    opt.step(); opt.zero_grad(set_to_none=True)
    if rank == 0 and step % 2 == 1:
        print(f"step {step} loss {loss.item()*accum:.5f} {(time.time()-t0)/2*1e3:.1f} ms/step", flush=True); t0 = time.time()
dist.destroy_process_group()
'''

TR = "torchrun --standalone --nproc-per-node 2 train.py"
NV = {"NCCL_DEBUG": "INFO"}
NW = {"NCCL_DEBUG": "WARN"}


def scenarios():
    S = {}
    def add(name, prog, cmd=TR, env=None, limit=25, **kw):
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=env or {},
                       limit=limit, **kw)
    add("u01", U01)
    add("u02", U02)
    add("u04", U04)
    add("u05", U05)
    add("u06", U06)
    add("u08", {"train.py": U08_TRAIN, "export.py": U08_EXPORT}, cmd=TR + " && python export.py")
    add("u09", U09)
    add("u11", U11)
    add("u14", U14)
    add("u22", U22)
    add("u25", U25)
    add("u38", U38)
    add("u39", U39)
    add("u40", U40)
    add("c01", BENCH, env=dict(NV, NCCL_NET="Sockets"))
    add("c02", BENCH, env=dict(NV, NCCL_P2P_LEVEL="NVLINK"))
    add("c03", BENCH, env=dict(NW, NCCL_NTHREADS="100"))
    add("c04", BENCH, env=dict(NV, NCCL_SOCKET_FAMILY="IPv4"))
    add("c06", BENCH, env=dict(NW, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:true"))
    add("c07", BENCH, env=dict(NW, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True;max_split_size_mb:512"))
    add("c09", BENCH, env=dict(NW, CUDA_VISIBLE_DEVICES="0-1"))
    add("c10", BENCH, env=dict(NW, CUDA_VISIBLE_DEVICES="0, 1"))
    add("c11", BENCH, env=dict(NV, NCCL_P2P_LEVEL="NVL", NCCL_NET="Socket", NCCL_SOCKET_FAMILY="AF_INET"))
    add("h01", H01, env={"TORCH_DISTRIBUTED_DEBUG": "INFO"})
    add("h02", {"train.py": U08_TRAIN, "export.py": H02_EXPORT}, cmd=TR + " && python export.py")
    add("h03", H03)
    add("h04", H04)
    add("h06", H06)
    add("h07", H07)
    add("r04", U04, env={"DIST_BACKEND": "nccl"})
    return S
