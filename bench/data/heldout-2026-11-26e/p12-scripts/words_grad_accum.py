import torch, torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 64), nn.Tanh(), nn.Linear(64, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)   # lr tuned for batch 64
X = torch.randn(2048, 20); Y = torch.sin(X[:, :2].sum(1, keepdim=True))
accum = 8; micro = 8      # effective batch 64 with micro-batches of 8
for epoch in range(4):
    for step, i in enumerate(range(0, 2048, micro)):
        loss = nn.functional.mse_loss(model(X[i:i+micro]), Y[i:i+micro])
        loss.backward()
        if (step + 1) % accum == 0:
            opt.step(); opt.zero_grad()
    print(f"epoch {epoch} loss {loss.item():.4f}")
