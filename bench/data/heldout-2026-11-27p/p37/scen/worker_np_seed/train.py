import numpy as np, torch, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP

class Crops(Dataset):
    def __len__(self): return 256
    def __getitem__(self, i):
        img = np.full((3, 32, 32), i % 7, dtype=np.float32)
        dx, dy = np.random.randint(0, 8, size=2)          # random crop offset
        return torch.from_numpy(img[:, dy:dy + 24, dx:dx + 24].copy()), i % 7

def seed_worker(worker_id):
    np.random.seed(torch.initial_seed())                  # different augmentation per worker

dist.init_process_group("gloo")
rank = dist.get_rank()
ds = Crops()
dl = DataLoader(ds, batch_size=32, num_workers=2, worker_init_fn=seed_worker, sampler=DistributedSampler(ds))
model = DDP(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 24 * 24, 7)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step, (x, y) in enumerate(dl):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward(); opt.step()
    if rank == 0: print(f"step {step} loss {loss.item():.3f}", flush=True)
dist.destroy_process_group()
