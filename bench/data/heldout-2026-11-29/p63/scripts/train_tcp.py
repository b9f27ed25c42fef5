import os, sys
import torch
import torch.distributed as dist

init_method = os.environ.get("INIT_METHOD", "tcp://127.0.0.1:29531")
kw = {}
if "--fixed" in sys.argv:
    kw = dict(rank=int(os.environ.get("RANK", 0)), world_size=int(os.environ.get("WORLD_SIZE", 1)))
torch.cuda.set_device(0)
dist.init_process_group(backend="nccl", init_method=init_method, **kw)
t = torch.arange(8, dtype=torch.float32, device="cuda")
dist.all_reduce(t)
print("rank", dist.get_rank(), "sum", t.sum().item(), flush=True)
dist.destroy_process_group()
