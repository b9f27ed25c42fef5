import os, sys, time, argparse
import torch, torch.distributed as dist
from torch import nn
p = argparse.ArgumentParser()
p.add_argument("--run-dir", default="runs/exp7")
p.add_argument("--steps", type=int, default=60)
p.add_argument("--exist-ok", action="store_true")
a = p.parse_args()
dist.init_process_group("gloo")
rank = dist.get_rank()
restart = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
if rank == 0:
    if a.exist_ok:
        os.makedirs(a.run_dir, exist_ok=True)
    else:
        os.makedirs(a.run_dir)
dist.barrier()
model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
ck = os.path.join(a.run_dir, "last.pt")
start = 0
if os.path.exists(ck):
    s = torch.load(ck)
    model.module.load_state_dict(s["model"]); opt.load_state_dict(s["opt"]); start = s["step"] + 1
    print(f"[rank{rank}] resumed from {ck} at step {start}", flush=True)
for step in range(start, a.steps):
    x = torch.randn(16, 8)
    loss = model(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        if rank == 0:
            torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "step": step}, ck)
            print(f"[rank0] step {step} loss {loss.item():.4f} (saved {ck})", flush=True)
    time.sleep(0.05)
dist.barrier()
if rank == 0:
    print("training done", flush=True)
dist.destroy_process_group()
