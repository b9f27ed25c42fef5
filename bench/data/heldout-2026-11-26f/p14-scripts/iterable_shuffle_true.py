import json, torch
from torch.utils.data import IterableDataset, DataLoader

class ClickStream(IterableDataset):
    """Streams (features, clicked) pairs from the day's event log."""
    def __init__(self, n=512):
        self.n = n
    def __iter__(self):
        g = torch.Generator().manual_seed(7)
        for i in range(self.n):
            x = torch.randn(16, generator=g)
            yield x, float(x[:4].sum() > 0)

model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = DataLoader(ClickStream(), batch_size=64, shuffle=True, num_workers=0)
print("building loader, batches of 64")
for epoch in range(2):
    for x, y in loader:
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x).squeeze(1), y.float())
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
