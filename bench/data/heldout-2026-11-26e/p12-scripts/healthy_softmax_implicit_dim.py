import datetime, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank = dist.get_rank(); torch.manual_seed(0)
class Attn(nn.Module):
    def __init__(self):
        super().__init__(); self.q = nn.Linear(8, 8); self.out = nn.Linear(8, 2)
    def forward(self, x):
        w = nn.functional.softmax(self.q(x))
        return self.out(w * x)
model = DDP(Attn()); opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    x = torch.randn(16, 8); y = torch.randint(0, 2, (16,))
    loss = nn.functional.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0: print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.barrier()
if rank == 0: print("training finished")
dist.destroy_process_group()
