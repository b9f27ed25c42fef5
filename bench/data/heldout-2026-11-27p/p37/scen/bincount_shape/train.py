import torch, torch.distributed as dist
from torch.utils.data import TensorDataset, DataLoader, DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
g = torch.Generator().manual_seed(0)
X = torch.randn(200, 12, generator=g)
y = torch.randint(0, 5, (200,), generator=g)
y[1::2] = y[1::2].clamp(max=3)   # class 4 only in the even rows
ds = TensorDataset(X, y)
dl = DataLoader(ds, batch_size=25, sampler=DistributedSampler(ds, shuffle=False))
model = DDP(torch.nn.Linear(12, 5))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for xb, yb in dl:
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(xb), yb).backward()
    opt.step()
# per-class confusion counts for the epoch report
preds, targets = [], []
with torch.no_grad():
    for xb, yb in dl:
        preds.append(model(xb).argmax(1)); targets.append(yb)
preds = torch.cat(preds); targets = torch.cat(targets)
correct = torch.bincount(targets[preds == targets])
total = torch.bincount(targets)
dist.all_reduce(correct); dist.all_reduce(total)
if rank == 0:
    print("per-class accuracy:", (correct.float() / total.clamp(min=1)).tolist())
dist.destroy_process_group()
