import numpy as np, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
meta = [None]
if rank == 0:
    counts = np.bincount(np.random.default_rng(0).integers(0, 4, 1000), minlength=4)
    meta[0] = {"class_weights": (counts.sum() / (4 * counts)).astype(np.float32), "num_classes": 4}
dist.broadcast_object_list(meta, src=0)
weights = torch.from_numpy(meta[0]["class_weights"])
print(f"rank {rank} class weights {weights.tolist()}", flush=True)
model = DDP(torch.nn.Linear(16, meta[0]["num_classes"]))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    x = torch.randn(32, 16); y = torch.randint(0, 4, (32,))
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y, weight=weights)
    loss.backward(); opt.step()
    if rank == 0: print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
