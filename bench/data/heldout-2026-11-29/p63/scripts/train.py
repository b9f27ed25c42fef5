import argparse, os, datetime
import torch
import torch.distributed as dist

p = argparse.ArgumentParser()
p.add_argument("--backend", default="nccl")
p.add_argument("--steps", type=int, default=20)
args = p.parse_args()

local_rank = int(os.environ.get("LOCAL_RANK", 0))
torch.cuda.set_device(local_rank)
dist.init_process_group(backend=args.backend, timeout=datetime.timedelta(minutes=10))
rank, world = dist.get_rank(), dist.get_world_size()
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1024, 1024).cuda(), device_ids=[local_rank])
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(args.steps):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0 and rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
t = torch.ones(1 << 20, device="cuda")
dist.all_reduce(t)
if rank == 0:
    print(f"all_reduce ok: {t[0].item()} (world={world})", flush=True)
dist.destroy_process_group()
