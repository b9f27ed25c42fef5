import torch, torch.distributed as dist
dist.init_process_group("gloo"); print("init ok", dist.get_rank(), flush=True)
t = torch.ones(2); dist.all_reduce(t); print("allreduce ok", t, flush=True)
dist.destroy_process_group()
