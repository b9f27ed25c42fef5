import torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(rank)
enc = DDP(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16)))
opt = torch.optim.AdamW(enc.parameters(), lr=1e-3)

def gather_all(z):
    import torch.distributed.nn.functional as dnnf
    return torch.cat(dnnf.all_gather(z))

for step in range(30):
    a = torch.randn(16, 32); b = a + 0.1 * torch.randn_like(a)
    za = F.normalize(enc(a), dim=1); zb = F.normalize(enc(b), dim=1)
    za_all, zb_all = gather_all(za), gather_all(zb)
    logits = za_all @ zb_all.t() / 0.07
    labels = torch.arange(logits.size(0))
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if rank == 0 and step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
if rank == 0:
    print(f"final loss {loss.item():.4f}")
dist.destroy_process_group()
