import os, torch, torch.distributed as dist
dist.init_process_group("gloo")
rank = dist.get_rank()
model = torch.nn.Linear(16, 4)
for p in model.parameters():
    dist.broadcast(p.data, 0)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(32, 16); y = torch.randint(0, 4, (32,))
for step in range(3):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    for p in model.parameters():
        dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
    opt.step()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
