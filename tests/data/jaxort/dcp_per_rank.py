import os, torch, torch.nn as nn
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
dist.init_process_group("gloo")
rank = dist.get_rank()
model = nn.Linear(16, 16)
dcp.save({"model": model.state_dict()}, checkpoint_id=f"ckpt/step5-rank{rank}")
state = {"model": model.state_dict()}
dcp.load(state, checkpoint_id="ckpt/step5-rank0")
print(f"[rank{rank}] loaded")
dist.destroy_process_group()
