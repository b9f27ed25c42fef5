import torch, torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

def loaders(n=512, d=16, bs=32):
    g = torch.Generator().manual_seed(0)
    X = torch.randn(n, d, generator=g); y = (X @ torch.randn(d, 1, generator=g)).squeeze(1)
    tr = TensorDataset(X[: n * 3 // 4], y[: n * 3 // 4]); va = TensorDataset(X[n * 3 // 4 :], y[n * 3 // 4 :])
    return DataLoader(tr, batch_size=bs, shuffle=True), DataLoader(va, batch_size=bs)

def mlp(d=16):
    return nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, 1))
