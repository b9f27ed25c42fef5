import torch, torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, BatchSampler, RandomSampler
ds = TensorDataset(torch.randn(100, 6), torch.randint(0, 3, (100,)))
bs = BatchSampler(RandomSampler(ds), batch_size=10, drop_last=True)
dl = DataLoader(ds, sampler=bs)
model = nn.Linear(6, 3)
for x, y in dl:
    loss = nn.functional.cross_entropy(model(x), y)
print("ok", loss.item())
