import numpy as np, torch
from torch.utils.data import Dataset, DataLoader

class Crops(Dataset):
    def __init__(self, n=64):
        self.n = n
        self.rng = np.random.default_rng(1234)   # reproducible augmentation
    def __len__(self): return self.n
    def __getitem__(self, i):
        dx, dy = self.rng.integers(0, 32, size=2)
        flip = bool(self.rng.random() < 0.5)
        return torch.tensor([i, dx, dy, flip])

loader = DataLoader(Crops(), batch_size=4, num_workers=4)
for epoch in range(2):
    for b, batch in enumerate(loader):
        if b < 8:
            print(f"epoch {epoch} batch {b}: " + "  ".join(f"img{int(r[0]):02d} crop=({int(r[1])},{int(r[2])}) flip={int(r[3])}" for r in batch))
print("epoch done")
