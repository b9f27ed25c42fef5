# rank/world from Slurm's task variables, rendezvous at MASTER_ADDR (set in the job script)
import os, datetime, socket, torch, torch.distributed as dist
rank, world = int(os.environ["SLURM_PROCID"]), int(os.environ["SLURM_NTASKS"])
os.environ.setdefault("MASTER_PORT", "29811")
dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=25))
t = torch.ones(4) * (rank + 1)
dist.all_reduce(t)
print(f"[{socket.gethostname()}] rank {rank}/{world}: all_reduce -> {t.tolist()}", flush=True)
dist.destroy_process_group()
