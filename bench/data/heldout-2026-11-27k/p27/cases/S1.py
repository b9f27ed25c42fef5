import os, datetime, torch, torch.distributed as dist
rank = int(os.environ["SLURM_PROCID"]); world = int(os.environ["SLURM_NTASKS"])
os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29735")
print(f"rank {rank} of {world} on {os.uname().nodename}", flush=True)
dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=20))
t = torch.ones(1) * rank; dist.all_reduce(t); print("sum", t.item())
dist.destroy_process_group()
