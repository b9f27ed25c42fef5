import os, torch, torch.nn as nn, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP

GLOBAL_BATCH = 64
world_size = int(os.environ.get("WORLD_SIZE", 1))
rank = int(os.environ.get("RANK", 0))
dist.init_process_group("gloo")
per_rank_batch = GLOBAL_BATCH // world_size
print(f"[rank {rank}] per-rank batch {per_rank_batch}")
ds = TensorDataset(torch.randn(512, 16), torch.randn(512, 1))
dl = DataLoader(ds, batch_size=per_rank_batch, sampler=DistributedSampler(ds))
model = DDP(nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x, y in dl:
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
if rank == 0:
    print("epoch done", loss.item())
dist.destroy_process_group()
