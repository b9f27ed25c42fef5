import torch, torch.distributed as dist, torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset, DistributedSampler

mp.set_sharing_strategy("file_system")   # many small batches; avoid one fd per shared tensor
dist.init_process_group("gloo")
rank, ws = dist.get_rank(), dist.get_world_size()
ds = TensorDataset(torch.randn(512, 32), torch.randint(0, 4, (512,)))
sampler = DistributedSampler(ds)
loader = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=2, pin_memory=True, persistent_workers=True)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
