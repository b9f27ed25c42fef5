import os, torch, torch.nn as nn, torch.distributed as dist
import torch._dynamo
from torch.nn.parallel import DistributedDataParallel as DDP
torch._dynamo.config.optimize_ddp = os.environ.get("OPT", "python_reducer")
dist.init_process_group("gloo"); rank = dist.get_rank(); torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)))
cmodel = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = cmodel(torch.randn(8, 32)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0: print(f"step {step} loss {loss.item():.4f}")
dist.destroy_process_group()
