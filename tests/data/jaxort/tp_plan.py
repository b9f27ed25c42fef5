import os, torch, torch.nn as nn
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import parallelize_module, ColwiseParallel, RowwiseParallel

class FF(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(64, 256)
        self.w2 = nn.Linear(256, 64)
    def forward(self, x):
        return self.w2(torch.relu(self.w1(x)))

mesh = init_device_mesh("cpu", (int(os.environ["WORLD_SIZE"]),))
model = parallelize_module(FF(), mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
print(f"[rank{dist.get_rank()}] local params {sum(p.numel() for p in model.parameters())}")
dist.destroy_process_group()
