import threading, torch
from torch.utils.data import Dataset, DataLoader
class CachedDataset(Dataset):
    def __init__(self, n=64):
        self.n = n; self.cache = {}; self.lock = threading.Lock()
    def __len__(self): return self.n
    def __getitem__(self, i):
        with self.lock:
            if i not in self.cache: self.cache[i] = torch.randn(16)
        return self.cache[i], i % 3
if __name__ == "__main__":
    dl = DataLoader(CachedDataset(), batch_size=8, num_workers=2, multiprocessing_context="spawn")
    for epoch in range(2):
        for x, y in dl: pass
        print("epoch", epoch, "done")
