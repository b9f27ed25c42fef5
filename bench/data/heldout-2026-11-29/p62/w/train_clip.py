import os, torch, torch.nn as nn, torch.nn.functional as F, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
FIX = os.environ.get("FIX") == "1"
class Clip(nn.Module):
    def __init__(self):
        super().__init__()
        self.img = nn.Linear(32, 16); self.txt = nn.Linear(24, 16)
        self.logit_scale = nn.Parameter(torch.tensor(2.659))
    def forward(self, a, b):
        ia = F.normalize(self.img(a), dim=-1); tb = F.normalize(self.txt(b), dim=-1)
        if FIX:
            return ia, tb, self.logit_scale.exp()
        return ia, tb
dist.init_process_group("gloo")
rank = dist.get_rank(); torch.manual_seed(0)
model = DDP(Clip(), find_unused_parameters=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    a, b = torch.randn(8, 32), torch.randn(8, 24)
    out = model(a, b)
    ia, tb = out[0], out[1]
    scale = out[2] if FIX else model.module.logit_scale.exp()
    logits = scale * ia @ tb.t()
    labels = torch.arange(8)
    loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0: print(f"step {step} loss {loss.item():.4f}")
dist.destroy_process_group()
