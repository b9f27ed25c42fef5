import os, datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank(); torch.manual_seed(0)
model = DDP(nn.Linear(8, 1)); opt = torch.optim.SGD(model.parameters(), lr=0.1)
g = torch.Generator().manual_seed(100 + rank)
xs = torch.randn(64, 8, generator=g); ys = torch.randn(64, 1, generator=g)
best, bad, patience = float("inf"), 0, 2
for epoch in range(20):
    for i in range(0, 64, 16):
        opt.zero_grad(); loss = nn.functional.mse_loss(model(xs[i:i+16]), ys[i:i+16]); loss.backward(); opt.step()
    val = nn.functional.mse_loss(model(xs[:16]), ys[:16]).item() + (0.5 * epoch if rank == 0 else 0.0)
    print(f"[rank{rank}] epoch {epoch} val_loss {val:.4f}", flush=True)
    if val < best - 1e-3: best, bad = val, 0
    else:
        bad += 1
        if bad >= patience:
            print(f"[rank{rank}] early stopping at epoch {epoch}", flush=True); break
if rank == 0:
    torch.save(model.module.state_dict(), "best.pt")
dist.barrier()
dist.destroy_process_group()
