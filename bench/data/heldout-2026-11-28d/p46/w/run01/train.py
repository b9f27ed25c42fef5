import os, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        # group used by the custom metric sync below
        self.metric_group = dist.new_group(backend="gloo")
    def forward(self, x):
        return self.body(x)
    def sync_metric(self, t):
        dist.all_reduce(t, group=self.metric_group)
        return t / dist.get_world_size()

dist.init_process_group("gloo")
rank = dist.get_rank()
net = Net()
model = DDP(net)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
os.makedirs("checkpoints", exist_ok=True)
for epoch in range(2):
    for step in range(10):
        x = torch.randn(32, 16); y = torch.randint(0, 4, (32,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    avg = net.sync_metric(loss.detach().clone())
    if rank == 0:
        print(f"epoch {epoch} avg loss {avg.item():.4f}", flush=True)
    torch.save(net, f"checkpoints/net_epoch{epoch}_rank{rank}.pt")
dist.destroy_process_group()
