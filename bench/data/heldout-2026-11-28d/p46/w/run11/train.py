import os, torch, torch.nn as nn, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
g = torch.Generator().manual_seed(0)
X = torch.randn(2048, 20, generator=g); W = torch.randn(20, 5, generator=g); Y = (X @ W).argmax(1)
train = TensorDataset(X[:1792], Y[:1792]); val = TensorDataset(X[1792:], Y[1792:])
sampler = DistributedSampler(train, shuffle=True, seed=0)
dl = DataLoader(train, batch_size=64, sampler=sampler, num_workers=2, persistent_workers=True)
vdl = DataLoader(val, batch_size=64, sampler=DistributedSampler(val, shuffle=False))
model = DDP(nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
start = 0
if os.path.exists("ckpt/last.pt"):
    ck = torch.load("ckpt/last.pt", map_location="cpu")
    model.module.load_state_dict(ck["model"]); opt.load_state_dict(ck["opt"]); start = ck["epoch"] + 1
    print(f"[rank {rank}] resumed from epoch {ck['epoch']}", flush=True)
for epoch in range(start, start + 3):
    sampler.set_epoch(epoch)
    model.train()
    for x, y in dl:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    model.eval(); stats = torch.zeros(2)
    with torch.no_grad():
        for x, y in vdl:
            stats += torch.tensor([(model(x).argmax(1) == y).sum().item(), len(y)])
    dist.all_reduce(stats)
    if rank == 0:
        print(f"epoch {epoch} train_loss {loss.item():.4f} val_acc {stats[0] / stats[1]:.3f}", flush=True)
        os.makedirs("ckpt", exist_ok=True)
        torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, "ckpt/last.pt")
    dist.barrier()
if rank == 0:
    print("done")
dist.destroy_process_group()
