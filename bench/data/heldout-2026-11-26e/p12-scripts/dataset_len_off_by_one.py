import torch, torch.nn as nn
from torch.utils.data import Dataset, DataLoader
class WindowDataset(Dataset):
    def __init__(self, series, window=8):
        self.series, self.window = series, window
    def __len__(self):
        return len(self.series) - self.window + 1
    def __getitem__(self, i):
        x = self.series[i:i + self.window]
        y = self.series[i + self.window]          # next value
        return torch.tensor(x), torch.tensor(y)
series = [float(i % 17) for i in range(200)]
dl = DataLoader(WindowDataset(series), batch_size=16, shuffle=False)
model = nn.Linear(8, 1); opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for epoch in range(2):
    for step, (x, y) in enumerate(dl):
        loss = nn.functional.mse_loss(model(x).squeeze(1), y); opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
