import torch, torch.distributed as dist, numpy as np
dist.init_process_group("gloo")
r = dist.get_rank(); w = dist.get_world_size()
c = 2
if c == 1:
    t = torch.ones(4); out = [torch.empty(4, dtype=torch.float64) for _ in range(w)]; dist.all_gather(out, t)
if c == 2:
    a = np.ones(4); dist.all_reduce(a)
if c == 6:
    t = torch.arange(6.); o = torch.empty(6); dist.all_to_all_single(o, t, output_split_sizes=[3, 3], input_split_sizes=[4, 2] if r == 0 else [3, 3])
if c == 13:
    t = torch.ones(4, dtype=torch.bfloat16); dist.all_reduce(t); print(t)
if c == 14:
    t = torch.ones(4).to_sparse(); dist.all_reduce(t, op=dist.ReduceOp.MAX); print(t)
print("ok", r)
dist.destroy_process_group()
