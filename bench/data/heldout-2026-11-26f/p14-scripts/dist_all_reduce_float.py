import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 2)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    torch.manual_seed(epoch * 10 + rank)
    x = torch.randn(128, 12); y = (x[:, 0] > 0).long()
    loss = nn.functional.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    # average the accuracy over all ranks for the log
    dist.all_reduce(acc, op=dist.ReduceOp.SUM)
    if rank == 0:
        print(f"epoch {epoch} mean acc {acc / world:.4f}", flush=True)
dist.destroy_process_group()
