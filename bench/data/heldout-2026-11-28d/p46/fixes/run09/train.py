import os, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
local_rank = int(os.environ["LOCAL_RANK"])
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
start_epoch = 0
if os.path.exists("checkpoints/last.pt"):
    ckpt = torch.load("checkpoints/last.pt", map_location="cpu")
    model.load_state_dict(ckpt["model"])
    start_epoch = ckpt["epoch"] + 1
    print(f"[rank {rank}] resumed from epoch {ckpt['epoch']}", flush=True)
model = DDP(model)
print(f"[rank {rank}] starting at epoch {start_epoch}")
dist.destroy_process_group()
