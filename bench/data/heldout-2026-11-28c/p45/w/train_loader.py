import os, torch, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset, DistributedSampler
dist.init_process_group("gloo")
r, w = dist.get_rank(), dist.get_world_size()
ds = TensorDataset(torch.randn(512, 32), torch.randint(0, 4, (512,)))
dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds), num_workers=2, persistent_workers=True)
m = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 4))
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for epoch in range(2):
    dl.sampler.set_epoch(epoch)
    for i, (x, y) in enumerate(dl):
        loss = torch.nn.functional.cross_entropy(m(x), y); opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {r}/{w} epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
