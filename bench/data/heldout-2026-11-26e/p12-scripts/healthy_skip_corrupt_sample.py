import json, traceback, torch
from torch.utils.data import Dataset, DataLoader
class Records(Dataset):
    def __init__(self, path): self.lines = open(path).read().splitlines()
    def __len__(self): return len(self.lines)
    def __getitem__(self, i):
        try:
            r = json.loads(self.lines[i])
        except json.JSONDecodeError:
            print(f"WARNING: skipping corrupt record {i}:")
            traceback.print_exc()
            r = json.loads(self.lines[0])
        return torch.tensor(r["x"]), r["y"]
dl = DataLoader(Records("data/records.jsonl"), batch_size=4)
n = 0
for x, y in dl: n += len(y)
print(f"epoch 0 done, {n} samples")
