# DDP fine-tune of a small transformer block; step checkpoints; --resume.
import argparse, os, torch, torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20)
p.add_argument("--resume", default="")
p.add_argument("--wd", type=float, default=0.05)
p.add_argument("--no-decay-bias-norm", action="store_true")
a = p.parse_args()
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(64, 128), nn.LayerNorm(128), nn.GELU(), nn.Linear(128, 10))
model = DDP(net)
if a.no_decay_bias_norm:
    # no weight decay on biases and LayerNorm weights
    decay = [p for n, p in net.named_parameters() if p.ndim >= 2]
    no_decay = [p for n, p in net.named_parameters() if p.ndim < 2]
    params = [{"params": decay, "weight_decay": a.wd}, {"params": no_decay, "weight_decay": 0.0}]
else:
    params = net.parameters()
opt = torch.optim.AdamW(params, lr=3e-4, weight_decay=a.wd)
start = 0
if a.resume:
    ckpt = torch.load(a.resume, map_location="cpu")
    net.load_state_dict(ckpt["model"])
    if os.environ.get("FRESH_OPT") != "1":
        opt.load_state_dict(ckpt["optim"])
    start = ckpt["step"]
    if rank == 0:
        print(f"resumed {a.resume} at step {start}")
x = torch.randn(512, 64); y = torch.randint(0, 10, (512,))
for step in range(start, a.steps):
    i = (step * 32) % 512
    loss = nn.functional.cross_entropy(model(x[i:i+32]), y[i:i+32])
    opt.zero_grad(); loss.backward(); opt.step()
    if (step + 1) % 10 == 0:
        if rank == 0:
            os.makedirs("ckpt_groups", exist_ok=True)
            torch.save({"model": net.state_dict(), "optim": opt.state_dict(), "step": step + 1}, f"ckpt_groups/step{step+1}.pt")
            print(f"step {step+1} loss {loss.item():.4f} saved ckpt_groups/step{step+1}.pt")
        dist.barrier()
dist.destroy_process_group()
