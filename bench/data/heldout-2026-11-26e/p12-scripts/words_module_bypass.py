import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank(); torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
model = DDP(net); opt = torch.optim.SGD(model.parameters(), lr=0.05)
g = torch.Generator().manual_seed(rank)
for epoch in range(3):
    for _ in range(10):
        x = torch.randn(16, 8, generator=g); y = x.sum(1, keepdim=True)
        out = model.module(x)          # call the underlying net (needed for our custom hooks)
        loss = nn.functional.mse_loss(out, y); opt.zero_grad(); loss.backward(); opt.step()
    w = sum(p.sum().item() for p in model.parameters())
    print(f"[rank{rank}] epoch {epoch} loss {loss.item():.4f} weight-sum {w:.4f}", flush=True)
if rank == 0: torch.save(model.module.state_dict(), "model.pt"); print("saved model.pt")
dist.destroy_process_group()
