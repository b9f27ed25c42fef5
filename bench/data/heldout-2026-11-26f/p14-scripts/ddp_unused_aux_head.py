import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(20, 64), nn.ReLU())
        self.cls_head = nn.Linear(64, 3)
        self.aux_head = nn.Linear(64, 1)      # auxiliary regression, only from epoch 2 on
    def forward(self, x, use_aux=False):
        h = self.body(x)
        return self.cls_head(h), (self.aux_head(h) if use_aux else None)

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(MultiTask())
opt = torch.optim.Adam(model.parameters(), 1e-3)
for epoch in range(3):
    for step in range(4):
        x = torch.randn(16, 20); y = torch.randint(0, 3, (16,))
        logits, aux = model(x, use_aux=epoch >= 2)
        loss = nn.functional.cross_entropy(logits, y)
        if aux is not None: loss = loss + aux.pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank{rank}] epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
