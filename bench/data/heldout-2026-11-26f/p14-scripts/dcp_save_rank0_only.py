import os, datetime, torch, torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)))
opt = torch.optim.Adam(model.parameters(), 1e-3)
for step in range(20):
    x = torch.randn(16, 32)
    loss = model(x).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
print(f"[rank{rank}] trained 20 steps, loss {loss.item():.4f}", flush=True)
if rank == 0:
    print("[rank0] saving distributed checkpoint to ckpt/step20", flush=True)
    dcp.save({"model": model.state_dict(), "optim": opt.state_dict()}, checkpoint_id="ckpt/step20")
    print("[rank0] checkpoint saved", flush=True)
dist.barrier()
dist.destroy_process_group()
