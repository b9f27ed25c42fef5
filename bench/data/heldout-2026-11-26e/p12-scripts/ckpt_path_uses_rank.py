import os, datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=15))
rank = dist.get_rank()
model = DDP(nn.Linear(4, 2))
ckpt = f"checkpoints/epoch1_rank{rank}.pt"
os.makedirs("checkpoints", exist_ok=True)
if rank == 0:
    torch.save(model.module.state_dict(), ckpt)
    print("saved", ckpt, flush=True)
dist.barrier()
state = torch.load(ckpt, map_location="cpu")
model.module.load_state_dict(state)
print(f"[rank{rank}] resumed from {ckpt}", flush=True)
dist.destroy_process_group()
