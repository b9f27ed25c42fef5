import torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
class Rec(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10000, 32, sparse=True)
        self.head = nn.Linear(32, 1)
    def forward(self, ids):
        return self.head(self.emb(ids).mean(1))
model = DDP(Rec())
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(10):
    ids = torch.randint(0, 10000, (64, 20)); y = torch.rand(64, 1)
    loss = nn.functional.binary_cross_entropy_with_logits(model(ids), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
