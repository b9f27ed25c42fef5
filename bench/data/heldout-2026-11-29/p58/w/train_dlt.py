import argparse, time
import torch, torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler, get_worker_info

p = argparse.ArgumentParser()
p.add_argument("--loader-timeout", type=float, default=10.0)
args = p.parse_args()

class Shards(Dataset):
    """Each worker opens the shard index on its first item (on the shared file system this takes ~20 s)."""
    def __init__(self, n=512):
        self.n, self.index = n, None
    def __len__(self):
        return self.n
    def _open_index(self):
        time.sleep(20)          # stands in for scanning the shard index on the shared file system
        self.index = list(range(self.n))
    def __getitem__(self, i):
        if self.index is None:
            self._open_index()
        return torch.randn(32), torch.tensor(self.index[i] % 4)

dist.init_process_group("gloo")
rank = dist.get_rank()
ds = Shards()
sampler = DistributedSampler(ds)
loader = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=2, timeout=args.loader_timeout)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
