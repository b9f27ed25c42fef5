# DDP + ZeroRedundancyOptimizer (optimizer state sharded over ranks); consolidated checkpoint on rank 0; --resume.
import argparse, os, torch, torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.distributed.optim import ZeroRedundancyOptimizer
p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20)
p.add_argument("--resume", default="")
a = p.parse_args()
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
model = DDP(net)
opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-3)
start = 0
if a.resume:
    ckpt = torch.load(a.resume, map_location="cpu")
    net.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optim"])
    start = ckpt["step"]
    if rank == 0:
        print(f"resumed {a.resume} at step {start} (world size {dist.get_world_size()})")
x = torch.randn(512, 64); y = torch.randint(0, 10, (512,))
for step in range(start, a.steps):
    i = (step * 32) % 512
    loss = nn.functional.cross_entropy(model(x[i:i+32]), y[i:i+32])
    opt.zero_grad(); loss.backward(); opt.step()
    if (step + 1) % 10 == 0:
        opt.consolidate_state_dict(to=0)
        if rank == 0:
            os.makedirs("ckpt_zero", exist_ok=True)
            torch.save({"model": net.state_dict(), "optim": opt.state_dict(), "step": step + 1}, f"ckpt_zero/step{step+1}.pt")
            print(f"step {step+1} loss {loss.item():.4f} saved ckpt_zero/step{step+1}.pt")
        dist.barrier()
dist.destroy_process_group()
