# DDP training with crash-safe checkpoints: write to a temp file, then atomically rename over last.pt.
import os, torch, torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
def save_checkpoint(state, path):
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 1024), nn.ReLU(), nn.Linear(1024, 10))
model = DDP(net)
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
os.makedirs("ckpt_atomic", exist_ok=True)
for step in range(1, 31):
    x = torch.randn(16, 1024); y = torch.randint(0, 10, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        if os.environ.get("FIX") != "1" or rank == 0:
            save_checkpoint({"model": net.state_dict(), "optim": opt.state_dict(), "step": step}, "ckpt_atomic/last.pt")
            print(f"[rank {rank}] step {step} loss {loss.item():.4f} checkpoint written")
        dist.barrier()
dist.destroy_process_group()
