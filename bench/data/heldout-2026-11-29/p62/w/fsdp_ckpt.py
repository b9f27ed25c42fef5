import os, sys, torch, torch.nn as nn, torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.fsdp import fully_shard
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
CKPT = "/tmp/heldout-p62/w/ckpt/fsdp_step50"
mesh = init_device_mesh("cpu", (int(os.environ["WORLD_SIZE"]),))
rank = dist.get_rank(); torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(128, 128), nn.GELU()) for _ in range(4)], nn.Linear(128, 8))
for blk in model[:4]:
    fully_shard(blk, mesh=mesh)
fully_shard(model, mesh=mesh)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
if sys.argv[1] == "save":
    for step in range(50):
        loss = model(torch.randn(16, 128)).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
    msd, osd = get_state_dict(model, opt)
    dcp.save({"model": msd, "optim": osd}, checkpoint_id=CKPT)
    if rank == 0: print(f"step 50 loss {loss.item():.4f}; saved {CKPT}")
else:
    msd, osd = get_state_dict(model, opt)
    state = {"model": msd, "optim": osd}
    dcp.load(state, checkpoint_id=CKPT)
    set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
    torch.manual_seed(1)
    loss = model(torch.randn(16, 128)).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {rank}: resumed on {dist.get_world_size()} ranks, step 51 loss {loss.item():.4f}")
dist.destroy_process_group()
