import os, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
FIX = os.environ.get("FIX") == "1"
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.fc = nn.Linear(64, 1000)
    def forward(self, x): return self.fc(self.backbone(x))
dist.init_process_group("gloo")
rank = dist.get_rank(); torch.manual_seed(0)
net = Net()
if FIX:
    net.fc = nn.Linear(64, 5)
model = DDP(net)
if not FIX:
    old = model.module.fc
    model.module.fc = nn.Linear(64, 5)   # new 5-class head for the downstream task
    if rank == 0: print(f"replaced classifier head: {old} -> {model.module.fc}")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    x = torch.randn(16, 32); y = torch.randint(0, 5, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0: print(f"step {step} loss {loss.item():.4f}")
dist.destroy_process_group()
