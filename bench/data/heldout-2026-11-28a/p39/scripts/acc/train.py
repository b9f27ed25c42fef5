import torch
from accelerate import Accelerator
acc = Accelerator(mixed_precision="fp16")
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.utils.data.TensorDataset(torch.randn(1024, 32), torch.randn(1024, 1))
loader = torch.utils.data.DataLoader(data, batch_size=64, shuffle=True)
model, opt, loader = acc.prepare(model, opt, loader)
for epoch in range(2):
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        acc.backward(loss); opt.step(); opt.zero_grad()
    acc.print(f"epoch {epoch} loss {loss.item():.4f}")
