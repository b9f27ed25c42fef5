import torch, torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

def make_data(n=256, d=16, k=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    w = torch.randn(d, k, generator=g)
    return TensorDataset(x, (x @ w).argmax(1))

def loaders(bs=32):
    return (DataLoader(make_data(256, seed=0), batch_size=bs, shuffle=True),
            DataLoader(make_data(64, seed=1), batch_size=bs))
