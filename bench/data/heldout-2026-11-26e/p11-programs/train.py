# small DDP-style job on CPU with gloo: env:// rendezvous (torchrun / launcher sets RANK, WORLD_SIZE, MASTER_*)
import os, datetime, socket, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r, w = dist.get_rank(), dist.get_world_size()
model = torch.nn.Linear(16, 4)
for step in range(3):
    loss = model(torch.randn(8, 16)).pow(2).mean()
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad); p.grad /= w
    if r == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
print(f"[{socket.gethostname()}] rank {r}/{w} done", flush=True)
dist.destroy_process_group()
