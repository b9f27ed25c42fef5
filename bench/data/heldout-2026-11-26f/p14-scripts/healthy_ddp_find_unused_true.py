import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3)), find_unused_parameters=True)
opt = torch.optim.Adam(model.parameters(), 1e-3)
for step in range(30):
    torch.manual_seed(100 * rank + step)
    x = torch.randn(16, 20); y = torch.randint(0, 3, (16,))
    loss = nn.functional.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 9:
        print(f"[rank{rank}] step {step + 1} loss {loss.item():.4f}", flush=True)
w = model.module[0].weight.detach().clone(); dist.all_reduce(w); 
print(f"[rank{rank}] replicas in sync: {torch.allclose(w / 2, model.module[0].weight)}", flush=True)
dist.destroy_process_group()
