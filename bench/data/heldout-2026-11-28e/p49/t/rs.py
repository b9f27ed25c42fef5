import torch, torch.distributed as dist
dist.init_process_group("gloo")
r=dist.get_rank()
out=torch.zeros(2)
try:
    dist.reduce_scatter_tensor(out, torch.ones(4)); print("rst ok", out)
except Exception as e: print("rst", type(e).__name__, e)
try:
    dist.reduce_scatter(out, [torch.ones(2), torch.ones(2)]); print("rs ok", out)
except Exception as e: print("rs", type(e).__name__, e)
try:
    o=torch.zeros(4); dist.all_gather_into_tensor(o, torch.ones(2)); print("agit ok")
except Exception as e: print("agit", type(e).__name__, e)
dist.destroy_process_group()
