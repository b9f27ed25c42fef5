import os, datetime, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
torch.manual_seed(rank)
net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
model = DDP(net)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    model.train()
    for step in range(5):
        x = torch.randn(16, 8); y = torch.randint(0, 2, (16,))
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    if rank == 0:
        model.eval()
        with torch.no_grad():
            acc = 0.0
            for _ in range(4):
                x = torch.randn(16, 8); y = torch.randint(0, 2, (16,))
                model.train()  # evaluate with batch statistics
                acc += (model(x).argmax(1) == y).float().mean().item()
        print(f"epoch {epoch} val acc {acc/4:.3f}", flush=True)
    dist.barrier()
    print(f"rank {rank} finished epoch {epoch}", flush=True)
dist.destroy_process_group()
