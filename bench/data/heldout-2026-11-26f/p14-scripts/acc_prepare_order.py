import torch, torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

accelerator = Accelerator(cpu=True)
model = nn.Sequential(nn.Linear(24, 48), nn.ReLU(), nn.Linear(48, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
ds = TensorDataset(torch.randn(320, 24), torch.randint(0, 4, (320,)))
loader = DataLoader(ds, batch_size=32, shuffle=True)
model, optimizer, loader = accelerator.prepare(optimizer, model, loader)
accelerator.print(f"prepared on {accelerator.device}, {accelerator.num_processes} process(es)")
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        optimizer.step(); optimizer.zero_grad()
    accelerator.print(f"epoch {epoch}: loss {loss.item():.4f}")
