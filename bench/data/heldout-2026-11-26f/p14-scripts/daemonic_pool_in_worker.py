import multiprocessing as mp, torch
from torch.utils.data import Dataset, DataLoader

def augment(seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(8, generator=g)

class MultiView(Dataset):
    """Each item = 4 augmented views, computed in parallel."""
    def __len__(self): return 64
    def __getitem__(self, i):
        with mp.Pool(4) as pool:
            views = pool.map(augment, [i * 10 + k for k in range(4)])
        return torch.stack(views), i % 2

if __name__ == "__main__":
    loader = DataLoader(MultiView(), batch_size=8, num_workers=2)
    model = torch.nn.Linear(32, 2)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.flatten(1)), y)
        print("batch ok, loss", round(loss.item(), 4))
