import os
import torch
import torch.distributed as dist
torch.cuda.set_device(os.environ["LOCAL_RANK"])
dist.init_process_group("nccl")
t = torch.ones(2, device="cuda"); dist.all_reduce(t); print("ok", t.tolist(), flush=True)
dist.destroy_process_group()
