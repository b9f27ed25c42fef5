import os, time, datetime, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
rank = dist.get_rank()
net = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10))
model = DDP(net)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(10):
    x = torch.randn(32, 256); y = torch.randint(0, 10, (32,))
    loss = torch.nn.functional.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
os.makedirs("checkpoints", exist_ok=True)
if rank == 0:
    print(f"[rank0] epoch 0 loss {loss.item():.4f}, writing checkpoints/best.pt", flush=True)
    state = {"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": 0}
    time.sleep(2)   # (the real save goes to NFS and takes a while)
    torch.save(state, "checkpoints/best.pt")
# reload the best weights on every rank before the test pass
best = torch.load("checkpoints/best.pt", map_location="cpu")
model.module.load_state_dict(best["model"])
print(f"[rank{rank}] loaded best checkpoint from epoch {best['epoch']}", flush=True)
dist.destroy_process_group()
