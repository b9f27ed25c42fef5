import time, torch
from torch.utils.data import Dataset, DataLoader
class RemoteImages(Dataset):
    def __len__(self): return 256
    def __getitem__(self, i):
        time.sleep(0.5)        # fetch from object store
        return torch.randn(3, 32, 32), i % 10
if __name__ == "__main__":
    dl = DataLoader(RemoteImages(), batch_size=32, num_workers=2, timeout=5)
    for step, (x, y) in enumerate(dl):
        print("step", step, x.shape, flush=True)
