import os, torch, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP
class Images(Dataset):
    def __len__(self): return 512
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(3, 64, 64, generator=g), i % 10
dist.init_process_group("gloo")
rank = dist.get_rank()
ds = Images()
dl = DataLoader(ds, batch_size=32, num_workers=2, sampler=DistributedSampler(ds))
model = DDP(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3*64*64, 10)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for i, (x, y) in enumerate(dl):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward(); opt.step()
    if rank == 0 and i % 4 == 0:
        print(f"step {i} loss {loss.item():.3f}", flush=True)
dist.destroy_process_group()
