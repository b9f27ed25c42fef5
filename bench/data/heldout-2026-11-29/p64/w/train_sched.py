# Small DDP trainer with epoch checkpoints and --resume (gloo, CPU).
import argparse, os, torch, torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=4)
p.add_argument("--resume", default="")
p.add_argument("--ckpt-dir", default="ckpt_sched")
a = p.parse_args()
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
start = 0
if a.resume:
    ckpt = torch.load(a.resume, map_location="cpu")
    model.module.load_state_dict(ckpt["model"])
    start = ckpt["epoch"] + 1
    if rank == 0:
        print(f"resuming from {a.resume} at epoch {start}")
if os.environ.get("FIX") in ("1", "epoch"):
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    if a.resume:
        opt.load_state_dict(ckpt["optim"])
        sched.load_state_dict(ckpt["sched"])
else:
    # continue the LR schedule where the previous run stopped
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5, last_epoch=start - 1)
    if a.resume:
        opt.load_state_dict(ckpt["optim"])
x = torch.randn(256, 32); y = torch.randint(0, 4, (256,))
for epoch in range(start, a.epochs):
    for i in range(0, 256, 32):
        loss = nn.functional.cross_entropy(model(x[i:i+32]), y[i:i+32])
        opt.zero_grad(); loss.backward(); opt.step()
    if os.environ.get("FIX") == "epoch":
        sched.step(epoch + 1)
    else:
        sched.step()
    if rank == 0:
        os.makedirs(a.ckpt_dir, exist_ok=True)
        torch.save({"model": model.module.state_dict(), "optim": opt.state_dict(), "sched": sched.state_dict(), "epoch": epoch},
                   f"{a.ckpt_dir}/epoch{epoch}.pt")
        print(f"epoch {epoch} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.4f} saved {a.ckpt_dir}/epoch{epoch}.pt")
    dist.barrier()
dist.destroy_process_group()
