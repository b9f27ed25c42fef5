import torch, torch.nn as nn, torch.distributed as dist, json
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
data = torch.load("data/val.pt")
ds = TensorDataset(data["x"], data["y"])
print(f"[rank {rank}] val samples: {len(ds)}", flush=True)
dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds, shuffle=False), drop_last=False)
model = DDP(nn.Linear(8, 3))
model.eval()
correct, total_loss, n_batches = 0, 0.0, 0
with torch.no_grad():
    for x, y in dl:
        out = model(x)
        total_loss += nn.functional.cross_entropy(out, y).item()
        n_batches += 1
val_loss = total_loss / n_batches
print(f"[rank {rank}] val_loss {val_loss:.4f}")
dist.destroy_process_group()
