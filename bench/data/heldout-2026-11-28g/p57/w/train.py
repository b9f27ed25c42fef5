import os, time, torch, torch.distributed as dist
import torch.nn as nn
dist.init_process_group("gloo")
rank, ws = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
g = torch.Generator().manual_seed(rank)
for step in range(1, 31):
    x = torch.randn(64, 32, generator=g); y = x[:, :1] * 0.5
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0 and rank == 0:
        print(f"[rank0] step {step:3d} loss {loss.item():.4f}", flush=True)
t = torch.tensor([float(rank + 1)]); dist.all_reduce(t)
print(f"[rank{rank}] done, all_reduce check = {t.item():.1f} (world {ws})", flush=True)
dist.destroy_process_group()
