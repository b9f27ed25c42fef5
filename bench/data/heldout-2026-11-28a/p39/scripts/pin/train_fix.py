import os, torch, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

CORES_PER_RANK = 8   # 64-core nodes, 8 ranks per node

def pin_worker(worker_id):
    lr = int(os.environ["LOCAL_RANK"])
    avail = sorted(os.sched_getaffinity(0))
    core = avail[(lr * CORES_PER_RANK + 1 + worker_id) % len(avail)]
    os.sched_setaffinity(0, {core})

dist.init_process_group("gloo")
rank = dist.get_rank()
ds = TensorDataset(torch.randn(2048, 32), torch.randint(0, 4, (2048,)))
loader = DataLoader(ds, batch_size=128, sampler=DistributedSampler(ds), num_workers=2,
                    worker_init_fn=pin_worker)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
print(f"rank {rank}: epoch done, loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
