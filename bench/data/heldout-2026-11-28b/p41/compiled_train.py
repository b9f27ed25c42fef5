import torch, torch.distributed as dist
dist.init_process_group("gloo")
rank = dist.get_rank()
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.GELU(), torch.nn.Linear(128, 10))
ddp = torch.nn.parallel.DistributedDataParallel(model)
cmodel = torch.compile(ddp)
opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(32, 64); y = torch.randint(0, 10, (32,))
    loss = torch.nn.functional.cross_entropy(cmodel(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
