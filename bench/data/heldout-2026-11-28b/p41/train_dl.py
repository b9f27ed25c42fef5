import os, torch, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset, DistributedSampler
dist.init_process_group("gloo")
rank = dist.get_rank()
ds = TensorDataset(torch.randn(2048, 32), torch.randint(0, 4, (2048,)))
sampler = DistributedSampler(ds)
dl = DataLoader(ds, batch_size=64, sampler=sampler, num_workers=4, pin_memory=False)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for i, (x, y) in enumerate(dl):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
