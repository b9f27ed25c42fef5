import json, torch
from torch.utils.data import Dataset, DataLoader

class Events(Dataset):
    def __init__(self, path):
        self.rows = [json.loads(l) for l in open(path)]
    def __len__(self): return len(self.rows)
    def __getitem__(self, i):
        r = self.rows[i]
        item = {"x": torch.tensor(r["features"], dtype=torch.float32), "y": torch.tensor(r["label"])}
        if "weight" in r:
            item["weight"] = torch.tensor(r["weight"], dtype=torch.float32)
        return item

loader = DataLoader(Events("data/events.jsonl"), batch_size=16, shuffle=True, num_workers=0)
model = torch.nn.Linear(6, 2); opt = torch.optim.Adam(model.parameters(), 1e-3)
for epoch in range(2):
    for b in loader:
        loss = (torch.nn.functional.cross_entropy(model(b["x"]), b["y"], reduction="none") * b["weight"]).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    print("epoch", epoch, "loss", round(loss.item(), 4))
