import torch
from torch.utils.data import TensorDataset, random_split, DataLoader

data = torch.load("data/features.pt")
ds = TensorDataset(data["x"], data["y"])
print("loaded", len(ds), "samples")
n_train = int(0.8 * 1000)
train_ds, val_ds = random_split(ds, [n_train, 1000 - n_train], generator=torch.Generator().manual_seed(0))
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
print("train", len(train_ds), "val", len(val_ds))
