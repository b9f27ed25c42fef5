import contextlib, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 1)))
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
ACCUM = 4
w_true = torch.randn(32, 1)
for it in range(80):
    x = torch.randn(16, 32); y = x @ w_true
    sync = (it + 1) % ACCUM == 0
    ctx = contextlib.nullcontext() if sync else model.no_sync()
    with ctx:
        loss = nn.functional.mse_loss(model(x), y) / ACCUM
        loss.backward()
    if sync:
        opt.step(); opt.zero_grad()
        if rank == 0 and (it + 1) % 16 == 0:
            print(f"optimizer step {(it + 1) // ACCUM} loss {loss.item() * ACCUM:.4f}", flush=True)
p = torch.cat([q.detach().flatten() for q in model.parameters()])
ref = p.clone(); dist.broadcast(ref, 0)
print(f"[rank {rank}] params identical to rank 0: {torch.equal(p, ref)}")
dist.destroy_process_group()
