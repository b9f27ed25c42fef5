import torch, torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
import torch.multiprocessing as mp
mp.set_start_method("spawn", force=True)
ds = TensorDataset(torch.randn(128, 10), torch.randint(0, 2, (128,)))
model = nn.Linear(10, 2); opt = torch.optim.SGD(model.parameters(), lr=0.1)
dl = DataLoader(ds, batch_size=16, shuffle=True, num_workers=2)
for epoch in range(2):
    for x, y in dl:
        opt.zero_grad(); loss = nn.functional.cross_entropy(model(x), y); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
