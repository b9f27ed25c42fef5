import os, torch, torch.distributed as dist
dist.init_process_group("gloo")
r, w = dist.get_rank(), dist.get_world_size()
m = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 8))
opt = torch.optim.SGD(m.parameters(), lr=0.05)
for step in range(30):
    loss = m(torch.randn(16, 32)).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0 and r == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
t = torch.cat([p.detach().flatten() for p in m.parameters()]); ref = t.clone(); dist.broadcast(ref, 0)
print(f"rank {r}/{w} params in sync: {torch.equal(t, ref)}", flush=True)
dist.destroy_process_group()
