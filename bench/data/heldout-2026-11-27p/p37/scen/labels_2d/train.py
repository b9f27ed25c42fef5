import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import TensorDataset, DataLoader, DistributedSampler
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
X = torch.randn(256, 20)
y = (X[:, :1] > 0).long()          # labels read from a (N,1) column
ds = TensorDataset(X, y)
dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds))
model = DDP(torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2)))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
crit = torch.nn.CrossEntropyLoss()
for epoch in range(2):
    dl.sampler.set_epoch(epoch)
    for i, (xb, yb) in enumerate(dl):
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
    if rank == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}")
dist.destroy_process_group()
