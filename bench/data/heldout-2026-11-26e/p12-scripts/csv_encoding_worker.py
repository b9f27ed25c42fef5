import csv, torch
from torch.utils.data import Dataset, DataLoader
class Reviews(Dataset):
    def __init__(self, paths): self.paths = paths
    def __len__(self): return len(self.paths)
    def __getitem__(self, i):
        with open(self.paths[i], newline="") as f:
            rows = list(csv.reader(f))
        text = " ".join(r[1] for r in rows[1:])
        return torch.tensor([len(text)]), int(rows[1][0])
if __name__ == "__main__":
    import glob
    paths = sorted(glob.glob("data/reviews/*.csv"))
    dl = DataLoader(Reviews(paths), batch_size=4, num_workers=2)
    for step, (x, y) in enumerate(dl):
        print("step", step, x.view(-1).tolist(), flush=True)
    print("epoch done")
