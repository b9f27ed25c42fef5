import os, json, torch
from torch.utils.data import Dataset, DataLoader

class Spectrograms(Dataset):
    def __init__(self, index_file):
        self.items = [json.loads(l) for l in open(index_file)]
    def __len__(self): return len(self.items)
    def __getitem__(self, i):
        it = self.items[i]
        path = os.path.join("data/specs", it["file"])
        if not os.path.exists(path):
            print(f"warning: missing {path}, skipping", flush=True)
            return None
        return torch.load(path), it["label"]

loader = DataLoader(Spectrograms("data/index.jsonl"), batch_size=8, shuffle=False)
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64 * 10, 4))
opt = torch.optim.Adam(model.parameters(), 1e-3)
for epoch in range(2):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
    print("epoch", epoch, "loss", loss.item())
