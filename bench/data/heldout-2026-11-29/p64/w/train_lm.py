# DDP pretraining of a tiny LM; --init-from loads an earlier checkpoint's weights.
import argparse, os, torch, torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from model import TinyLM
p = argparse.ArgumentParser()
p.add_argument("--init-from", default="")
p.add_argument("--steps", type=int, default=10)
p.add_argument("--out", default="ckpt_lm")
a = p.parse_args()
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
net = TinyLM()
if a.init_from:
    sd = torch.load(a.init_from, map_location="cpu")["model"]
    if os.environ.get("FIX") == "1":
        sd = {k: v for k, v in sd.items() if not k.endswith("rope.inv_freq")}
    net.load_state_dict(sd)
    if rank == 0:
        print("initialised from", a.init_from)
model = DDP(net)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(1, a.steps + 1):
    ids = torch.randint(0, 500, (4, 64))
    logits = model(ids[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, 500), ids[:, 1:].reshape(-1))
    opt.zero_grad(); loss.backward(); opt.step()
if rank == 0:
    os.makedirs(a.out, exist_ok=True)
    torch.save({"model": net.state_dict(), "step": a.steps}, f"{a.out}/last.pt")
    print(f"step {a.steps} loss {loss.item():.4f} saved {a.out}/last.pt")
dist.barrier()
dist.destroy_process_group()
