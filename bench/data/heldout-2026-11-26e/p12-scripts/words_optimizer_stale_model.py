import torch, torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
# resume from the pretrained weights
model = torch.load("pretrained_full.pt", weights_only=False)
X = torch.randn(256, 10); Y = X[:, :3].sum(1, keepdim=True)
for epoch in range(5):
    for i in range(0, 256, 32):
        loss = nn.functional.mse_loss(model(X[i:i+32]), Y[i:i+32])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
