import os, time, socket, datetime, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
rank = dist.get_rank()
print(f"rank {rank} on {socket.gethostname()} joined, world {dist.get_world_size()}", flush=True)
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(40):
    x = torch.randn(64, 256); y = torch.randint(0, 10, (64,))
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward(); opt.step()
    print(f"[{time.strftime('%H:%M:%S')}] rank {rank} step {step} loss {loss.item():.4f}", flush=True)
    time.sleep(0.5)
dist.destroy_process_group()
