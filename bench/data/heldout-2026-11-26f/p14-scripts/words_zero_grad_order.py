import torch, torch.nn as nn
torch.manual_seed(0)
x = torch.randn(512, 10); w_true = torch.randn(10, 1); y = x @ w_true + 0.1 * torch.randn(512, 1)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(6):
    for i in range(0, 512, 64):
        pred = model(x[i:i + 64])
        loss = nn.functional.mse_loss(pred, y[i:i + 64])
        loss.backward()
        opt.zero_grad()
        opt.step()
    with torch.no_grad():
        print(f"epoch {epoch}  train_mse {nn.functional.mse_loss(model(x), y).item():.5f}")
