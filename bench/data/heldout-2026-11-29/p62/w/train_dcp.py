import os, sys, torch, torch.nn as nn, torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_model_state_dict, set_model_state_dict
HIDDEN = int(os.environ.get("HIDDEN", "256"))
CKPT = sys.argv[2] if len(sys.argv) > 2 else "/tmp/heldout-p62/w/ckpt/step100"
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, 10))
if sys.argv[1] == "save":
    sd = get_model_state_dict(model)
    dcp.save(sd, checkpoint_id=CKPT)
    if rank == 0: print(f"saved step 100 to {CKPT}")
else:
    if rank == 0: print(f"resuming from {CKPT} (hidden={HIDDEN})")
    sd = get_model_state_dict(model)
    dcp.load(sd, checkpoint_id=CKPT)
    set_model_state_dict(model, sd)
    x = torch.randn(8, 64)
    print(f"rank {rank}: resumed, eval loss {model(x).pow(2).mean().item():.4f}")
dist.destroy_process_group()
