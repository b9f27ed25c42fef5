import os, socket, time, torch, torch.distributed as dist
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
print(f"[{socket.gethostname()}] rank {rank}/{world} local_rank {os.environ['LOCAL_RANK']} group_rank {os.environ['GROUP_RANK']}", flush=True)
torch.manual_seed(1234)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
g = torch.Generator().manual_seed(rank)
t0 = time.time()
for step in range(1, 61):
    x = torch.randn(64, 128, generator=g); y = x[:, :1] * 0.5
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f} ({time.time() - t0:.1f}s)", flush=True)
w = torch.cat([p.detach().flatten() for p in model.parameters()])
ws = [torch.empty_like(w) for _ in range(world)]
dist.all_gather(ws, w)
if rank == 0:
    print("params identical on all ranks:", all(torch.equal(ws[0], v) for v in ws[1:]), flush=True)
dist.destroy_process_group()
