import torch, torch.nn as nn, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
ds = TensorDataset(torch.randn(256, 16), torch.randint(0, 2, (256,)))
sampler = DistributedSampler(ds, shuffle=True, seed=42)
dl = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=2)
model = DDP(nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for x, y in dl:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}")
dist.destroy_process_group()
