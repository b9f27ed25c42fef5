# DDP training that exports the weights as safetensors (with training metadata) every 10 steps.
import os, torch, torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from safetensors.torch import save_file
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
model = DDP(net)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(512, 64); y = torch.randint(0, 10, (512,))
os.makedirs("export", exist_ok=True)
for step in range(1, 31):
    i = (step * 32) % 512
    loss = nn.functional.cross_entropy(model(x[i:i+32]), y[i:i+32])
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        if rank == 0:
            meta = {"step": step, "world_size": world, "loss": round(loss.item(), 4), "arch": "mlp-64-128-10"}
            if os.environ.get("FIX") == "1":
                meta = {k: str(v) for k, v in meta.items()}
            save_file({k: v.contiguous() for k, v in net.state_dict().items()}, f"export/step{step}.safetensors", metadata=meta)
            print(f"step {step} loss {loss.item():.4f} exported export/step{step}.safetensors")
        dist.barrier()
dist.destroy_process_group()
