import os, time, torch, torch.distributed as dist
rank = int(os.environ["SLURM_PROCID"]); world = int(os.environ["SLURM_NTASKS"])
os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29611")
dist.init_process_group("gloo", rank=rank, world_size=world)
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 8))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(200):
    x = torch.randn(32, 64); y = torch.randn(32, 8)
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 50 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
print(f"rank {rank}: training done", flush=True)
dist.destroy_process_group()
if rank == 0:
    # full evaluation on the held-out split, then write the final weights
    t0 = time.time()
    for i in range(8):
        a = torch.randn(1200, 1200)
        for _ in range(60):
            a = torch.tanh(a @ a.T / 1200)
        print(f"eval shard {i}/8 done ({time.time() - t0:.0f}s)", flush=True)
    torch.save(model.module.state_dict(), "final.pt")
    print("saved final.pt", flush=True)
