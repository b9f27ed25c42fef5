import os, torch
from torch.utils.data import DataLoader, TensorDataset
num_workers = int(os.environ.get("NUM_WORKERS", "0"))
ds = TensorDataset(torch.randn(64, 4))
dl = DataLoader(ds, batch_size=8, num_workers=num_workers, persistent_workers=True, pin_memory=False)
for (x,) in dl: pass
print("done")
