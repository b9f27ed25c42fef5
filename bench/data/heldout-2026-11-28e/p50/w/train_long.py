import os, time, torch, torch.distributed as dist
dist.init_process_group("gloo")
r, w = dist.get_rank(), dist.get_world_size()
model = torch.nn.Linear(16, 4)
ddp = torch.nn.parallel.DistributedDataParallel(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
for step in range(30):
    x = torch.randn(8, 16); loss = ddp(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    time.sleep(1); print(f"rank {r}/{w} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
