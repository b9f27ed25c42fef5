import json, torch
from torch.utils.data import Dataset, DataLoader
class JsonlDataset(Dataset):
    def __init__(self, path):
        self.offsets = []
        with open(path, "rb") as f:
            off = 0
            for line in f:
                self.offsets.append(off); off += len(line)
        self.path = path
    def __len__(self): return len(self.offsets)
    def __getitem__(self, i):
        with open(self.path, "rb") as f:
            f.seek(self.offsets[i]); rec = json.loads(f.readline())
        return torch.tensor(rec["x"]), rec["label"]
if __name__ == "__main__":
    dl = DataLoader(JsonlDataset("data/train.jsonl"), batch_size=8, num_workers=2)
    for step, (x, y) in enumerate(dl):
        if step % 4 == 0: print("step", step, flush=True)
    print("epoch done")
