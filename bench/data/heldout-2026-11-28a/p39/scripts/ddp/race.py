import os, torch, torch.distributed as dist
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(1024, 1024) for _ in range(24)])
ddp = torch.nn.parallel.DistributedDataParallel(model)
opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
os.makedirs("ckpt", exist_ok=True)
for epoch in range(3):
    for step in range(5):
        loss = ddp(torch.randn(16, 1024)).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        torch.save({"epoch": epoch, "model": model.state_dict()}, "ckpt/latest.pt")
    # every rank reloads the latest checkpoint to verify it
    state = torch.load("ckpt/latest.pt", map_location="cpu")
    print(f"rank {rank}: epoch {epoch} done, checkpoint epoch {state['epoch']}", flush=True)
dist.destroy_process_group()
