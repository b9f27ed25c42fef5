import torch, torch.distributed as dist
dist.init_process_group("gloo")
t = torch.ones(4) * dist.get_rank()
dist.all_reduce(t)
print(dist.get_rank(), t.tolist(), flush=True)
dist.destroy_process_group()
