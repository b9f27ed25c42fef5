import numpy as np, torch
from torch.utils.data import Dataset, DataLoader

raw = np.random.default_rng(0).standard_normal((512, 17)).astype(np.float32).tobytes()
class Packed(Dataset):
    def __init__(self, buf):
        self.arr = np.frombuffer(buf, dtype=np.float32).reshape(-1, 17)   # zero-copy view of the packed file
    def __len__(self): return len(self.arr)
    def __getitem__(self, i):
        row = torch.from_numpy(self.arr[i])
        return row[:16], (row[16] > 0).long()

loader = DataLoader(Packed(raw), batch_size=64, shuffle=True)
model = torch.nn.Linear(16, 2); opt = torch.optim.Adam(model.parameters(), 1e-2)
for epoch in range(4):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
print("saved model.pt"); torch.save(model.state_dict(), "model.pt")
