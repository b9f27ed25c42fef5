import glob, torch
from torch.utils.data import IterableDataset, DataLoader, get_worker_info

class ShardedText(IterableDataset):
    def __init__(self, shards):
        self.shards = shards
    def __iter__(self):
        info = get_worker_info()
        # each worker reads every num_workers-th shard
        mine = self.shards[info.id::info.num_workers]
        for s in mine:
            for j in range(32):
                yield torch.full((8,), float(j)), j % 2

shards = [f"shard-{i:03d}" for i in range(8)]
ds = ShardedText(shards)
debug = True
loader = DataLoader(ds, batch_size=16, num_workers=0 if debug else 4)
model = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
print(f"{len(shards)} shards, debug={debug}")
for step, (x, y) in enumerate(loader):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 4 == 0:
        print(f"step {step} loss {loss.item():.3f}")
