import argparse, os, time
import numpy as np
import torch, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=2)
p.add_argument("--workers", type=int, default=2)
p.add_argument("--samples", type=int, default=256)
p.add_argument("--step-sleep", type=float, default=0.0)
p.add_argument("--preload", action="store_true", help="decode every clip into RAM up front")
p.add_argument("--cache", action="store_true", help="keep decoded samples in memory")
args = p.parse_args()

class Frames(Dataset):
    """Stand-in for a video-clip dataset: decoding a clip yields a 64x64x256 float32 array (4 MiB)."""
    def __init__(self, n, cache, preload=False):
        self.n, self.use_cache, self.cache = n, cache, {}
        if preload:
            self.use_cache = True
            for i in range(n):
                self.cache[i] = self._decode(i)
    def __len__(self):
        return self.n
    def _decode(self, i):
        rng = np.random.default_rng(i)
        return rng.standard_normal((256, 64, 64), dtype=np.float32)
    def __getitem__(self, i):
        if self.use_cache:
            if i not in self.cache:
                self.cache[i] = self._decode(i)
            clip = self.cache[i]
        else:
            clip = self._decode(i)
        x = torch.from_numpy(clip[:, ::8, ::8].reshape(-1)[:512].copy())
        return x, torch.tensor(i % 10)

dist.init_process_group("gloo")
rank, ws = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(512, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
ds = Frames(args.samples, args.cache, args.preload)
sampler = DistributedSampler(ds, num_replicas=ws, rank=rank)
loader = DataLoader(ds, batch_size=8, sampler=sampler, num_workers=args.workers)
step = 0
for epoch in range(args.epochs):
    sampler.set_epoch(epoch)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        step += 1
        if step % 8 == 0 and rank == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
        if args.step_sleep:
            time.sleep(args.step_sleep)
if rank == 0:
    print("training done", flush=True)
dist.destroy_process_group()
