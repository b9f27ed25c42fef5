import torch, torch.nn as nn, webdataset as wds
from torch.utils.data import DataLoader

urls = "shards/train-{0000..0001}.tar"
ds = (wds.WebDataset(urls, shardshuffle=False)
      .shuffle(200).decode().to_tuple("npy", "cls")
      .map_tuple(torch.from_numpy, torch.tensor)
      .batched(32))
loader = DataLoader(ds, batch_size=None, num_workers=4)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(2):
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch}: {step + 1} steps, loss {loss.item():.3f}")
