import sys, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
sys.path.insert(0, "tools")  # every rank must be able to import the broadcast class
obj = [None]
if rank == 0:
    # only rank 0 reads the experiment file, the others receive it
    import expspec
    obj[0] = expspec.load("exp.json")
    print(f"[rank 0] experiment: {obj[0]}", flush=True)
dist.broadcast_object_list(obj, src=0)
spec = obj[0]
model = DDP(nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=spec.lr)
for epoch in range(spec.epochs):
    for step in range(10):
        x = torch.randn(spec.batch_size, 8); y = torch.randint(0, 2, (spec.batch_size,))
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
