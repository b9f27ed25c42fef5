#!/tmp/heldout-p25/venv/bin/python
import os, torch, torch.distributed as dist
os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29627")
dist.init_process_group("gloo", rank=int(os.environ["OMPI_COMM_WORLD_RANK"]), world_size=int(os.environ["OMPI_COMM_WORLD_SIZE"]))
t = torch.tensor([float(dist.get_rank() + 1)]); dist.all_reduce(t)
print(f"rank {dist.get_rank()}: {t.item()}", flush=True)
dist.destroy_process_group()
