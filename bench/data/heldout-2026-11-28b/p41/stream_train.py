import torch, torch.distributed as dist
from torch.utils.data import DataLoader, IterableDataset, DistributedSampler

class TokenStream(IterableDataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __iter__(self):
        g = torch.Generator().manual_seed(0)
        for _ in range(self.n):
            yield torch.randint(0, 1000, (128,), generator=g)

dist.init_process_group("gloo")
ds = TokenStream(10_000)
sampler = DistributedSampler(ds, shuffle=True)
loader = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=0)
for step, batch in enumerate(loader):
    if step % 100 == 0 and dist.get_rank() == 0:
        print("step", step, batch.shape, flush=True)
dist.destroy_process_group()
