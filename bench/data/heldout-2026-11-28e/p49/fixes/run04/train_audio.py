import io, zipfile
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class ZipSpectrograms(Dataset):
    def __init__(self, path):
        self.path = path
        self.zf = None  # opened lazily, once per worker process
        with zipfile.ZipFile(path) as zf:
            self.names = sorted(n for n in zf.namelist() if n.endswith(".npy"))

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        if self.zf is None:
            self.zf = zipfile.ZipFile(self.path)
        with self.zf.open(self.names[i]) as f:
            x = np.load(io.BytesIO(f.read()))
        return torch.from_numpy(x), i % 10


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    ds = ZipSpectrograms("data/spectrograms.zip")
    sampler = DistributedSampler(ds, shuffle=True)
    loader = DataLoader(ds, batch_size=8, sampler=sampler, num_workers=4)
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64 * 80, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(); loss.backward(); opt.step()
        if rank == 0:
            print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
