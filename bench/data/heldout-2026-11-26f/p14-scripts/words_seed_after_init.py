import random, numpy as np, torch, torch.nn as nn

model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))

def seed_everything(s=42):
    random.seed(s); np.random.seed(s); torch.manual_seed(s)
seed_everything(42)

x = torch.randn(256, 16); y = x[:, :3].sum(1, keepdim=True)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(3):
    perm = torch.randperm(256)
    for i in range(0, 256, 32):
        idx = perm[i:i + 32]
        loss = nn.functional.mse_loss(model(x[idx]), y[idx]); opt.zero_grad(); loss.backward(); opt.step()
    print(f"seed=42 epoch {epoch} loss {loss.item():.6f}")
