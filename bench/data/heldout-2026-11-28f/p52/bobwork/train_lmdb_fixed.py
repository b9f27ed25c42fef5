import io, lmdb, numpy as np, torch, torch.distributed as dist
from torch.utils.data import Dataset, DataLoader, DistributedSampler

class LMDBImages(Dataset):
    def __init__(self, path):
        self.path = path
        env = lmdb.open(path, readonly=True, lock=False)
        with env.begin() as txn:
            self.n = int(txn.get(b"__len__"))
        env.close()
        self.env = None
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        if self.env is None:                      # open lazily in each worker
            self.env = lmdb.open(self.path, readonly=True, lock=False, readahead=False)
        with self.env.begin() as txn:
            img = np.load(io.BytesIO(txn.get(f"{i:08d}".encode())))
        return torch.from_numpy(img).float() / 255, i % 10

dist.init_process_group("gloo")
rank = dist.get_rank()
ds = LMDBImages("/datasets/images.lmdb")
dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds), num_workers=2)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 64 * 64, 10)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step, (x, y) in enumerate(dl):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
