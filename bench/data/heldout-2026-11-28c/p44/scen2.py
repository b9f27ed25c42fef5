# eval-p44 scenarios, call 2.
from scen import PRE, INIT, MLP, DDP_HEAD, TR

# v20: recv buffer larger than the sent tensor (size mismatch in a P2P pair)
V20 = '''import os, torch, torch.distributed as dist
from datetime import timedelta
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
dist.init_process_group("nccl", device_id=torch.device("cuda", lr), timeout=timedelta(seconds=8))
rank = dist.get_rank()
hidden = 1024
if rank == 0:
    act = torch.randn(16, hidden, device="cuda")          # micro-batch of 16
    dist.send(act, dst=1)
    print("stage 0 sent", tuple(act.shape), flush=True)
else:
    act = torch.empty(32, hidden, device="cuda")          # stage 1 sized for micro-batch 32
    dist.recv(act, src=0)
    print("stage 1 received", tuple(act.shape), flush=True)
x = torch.ones(4, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print(f"rank {rank} step done {x[0].item()}", flush=True)
dist.destroy_process_group()
'''

# v23: optimizer built before fully_shard
V23 = PRE + INIT + MLP + '''from torch.distributed.fsdp import fully_shard
model = make_model(2048).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for layer in model:
    if isinstance(layer, nn.Linear):
        fully_shard(layer)
fully_shard(model)
for step in range(4):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward()
    opt.step(); opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.6f}", flush=True)
dist.destroy_process_group()
'''

# v41: group given as a list of ranks
V41 = PRE + INIT + '''even = [r for r in range(ws) if r % 2 == 0]
x = torch.ones(8, device="cuda") * rank
dist.all_reduce(x, group=list(range(ws)))
print(f"rank {rank} sum {x[0].item()}", flush=True)
dist.destroy_process_group()
'''

# v48: custom DDP comm hook returns a tensor instead of a Future
V48 = DDP_HEAD + '''def topk_hook(state, bucket):
    t = bucket.buffer()
    dist.all_reduce(t)
    return t / dist.get_world_size()
model = DDP(make_model(2048).cuda(), device_ids=[lr])
model.register_comm_hook(None, topk_hook)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(3):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"rank {rank} step {step} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''
H08 = DDP_HEAD + '''def avg_hook(state, bucket):
    t = bucket.buffer().div_(dist.get_world_size())
    return dist.all_reduce(t, async_op=True).get_future().then(lambda fut: fut.value()[0])
model = DDP(make_model(2048).cuda(), device_ids=[lr])
model.register_comm_hook(None, avg_hook)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(3):
    loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    with torch.no_grad():
        chk = sum(p.double().sum() for p in model.parameters()).item()
    print(f"rank {rank} step {step} loss {loss.item():.5f} param_checksum {chk:.6f}", flush=True)
dist.destroy_process_group()
'''

# v49: register_comm_hook arguments swapped
V49 = DDP_HEAD + '''from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
model = DDP(make_model(2048).cuda(), device_ids=[lr])
model.register_comm_hook(default_hooks.bf16_compress_hook, None)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
loss = model(torch.randn(32, 1024, device="cuda")).pow(2).mean()
loss.backward(); opt.step()
print(f"rank {rank} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''

# v74: ReduceOp.AVG on an integer counter
V74 = PRE + INIT + '''n_tokens = torch.tensor([123457 + 1000 * rank], device="cuda")
dist.all_reduce(n_tokens, op=dist.ReduceOp.AVG)
print(f"rank {rank} mean tokens per rank {n_tokens.item()}", flush=True)
dist.destroy_process_group()
'''

# v84: metric tensor created under inference_mode, all-reduced outside it
V84 = PRE + INIT + MLP + '''model = make_model(1024).cuda().eval()
@torch.inference_mode()
def evaluate():
    correct = torch.zeros(1, device="cuda")
    for _ in range(4):
        out = model(torch.randn(64, 1024, device="cuda"))
        correct += (out.argmax(-1) < 512).sum()
    return correct
correct = evaluate()
dist.all_reduce(correct)
print(f"rank {rank} val correct {correct.item()}", flush=True)
dist.destroy_process_group()
'''

# v85: all_reduce given a Python float
V85 = PRE + INIT + MLP + '''model = make_model(1024).cuda()
loss = model(torch.randn(64, 1024, device="cuda")).pow(2).mean()
loss_val = loss.item()
dist.all_reduce(loss_val)
print(f"rank {rank} mean loss {loss_val / ws:.5f}", flush=True)
dist.destroy_process_group()
'''


def scenarios():
    S = {}
    def add(name, prog, cmd=TR, env=None, limit=25, **kw):
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=env or {},
                       limit=limit, **kw)
    add("v20", V20)
    add("v23", V23)
    add("v41", V41)
    add("v48", V48)
    add("v49", V49)
    add("v74", V74)
    add("v84", V84)
    add("v85", V85)
    add("h08", H08)
    return S
