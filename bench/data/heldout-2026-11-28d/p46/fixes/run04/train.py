import os, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
if world > 1:
    model = DDP(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(32, 16); y = x.sum(1, keepdim=True)
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
if rank == 0:
    print(f"final loss {loss.item():.4f}")
    os.makedirs("ckpt", exist_ok=True)
    torch.save((model.module if isinstance(model, DDP) else model).state_dict(), "ckpt/model.pt")
    print("saved ckpt/model.pt")
dist.destroy_process_group()
