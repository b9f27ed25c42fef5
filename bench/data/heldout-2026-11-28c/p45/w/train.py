import os, time, torch, torch.distributed as dist
rank = int(os.environ.get("RANK", os.environ.get("SLURM_PROCID", 0)))
world = int(os.environ.get("WORLD_SIZE", os.environ.get("SLURM_NTASKS", 1)))
dist.init_process_group("gloo", rank=rank, world_size=world)
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(8, 16); loss = model(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {rank}/{world} {os.uname().nodename}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
print(f"[rank {rank}] done", flush=True)
