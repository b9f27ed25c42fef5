import torch, torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

accelerator = Accelerator(cpu=True)
model = nn.Sequential(nn.Linear(24, 48), nn.ReLU(), nn.Linear(48, 4))
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
x = torch.randn(320, 24); y = torch.randint(0, 4, (320,)); w = torch.rand(320) + 0.5   # per-sample weights
loader = DataLoader(TensorDataset(x, y, w), batch_size=32, shuffle=True)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
loss_fn = nn.CrossEntropyLoss(reduction="none")
for epoch in range(2):
    for xb, yb, wb in loader:
        loss = loss_fn(model(xb), yb) * wb
        accelerator.backward(loss)
        optimizer.step(); optimizer.zero_grad()
    accelerator.print(f"epoch {epoch}: loss {loss.mean().item():.4f}")
