import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank = dist.get_rank(); torch.manual_seed(0)
model = DDP(nn.Linear(4, 1)); opt = torch.optim.SGD(model.parameters(), lr=0.0)
best, bad = float("inf"), 0
for epoch in range(20):
    x = torch.randn(32, 4); loss = model(x).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
    v = torch.tensor([1.0]); dist.all_reduce(v); v /= dist.get_world_size()
    if v.item() < best - 1e-4: best, bad = v.item(), 0
    else: bad += 1
    if rank == 0: print(f"epoch {epoch} val_loss {v.item():.4f} (no improvement for {bad} epochs)", flush=True)
    if bad >= 3:
        if rank == 0: print(f"EarlyStopping: val_loss did not improve for 3 epochs, stopping at epoch {epoch}", flush=True)
        break
if rank == 0: torch.save(model.module.state_dict(), "final.pt"); print("saved final.pt")
dist.destroy_process_group()
