import torch, torch.nn as nn

class GatedBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 2 * d)
        self.out = nn.Linear(d, d)
    def forward(self, x):
        a, b = self.proj(x).chunk(2, dim=-1)
        gate = torch.sigmoid(b)
        h = a * gate
        gate.mul_(0.5)          # damp the gate for the residual path
        return x + self.out(h) + gate

model = nn.Sequential(GatedBlock(32), GatedBlock(32), nn.Linear(32, 4))
opt = torch.optim.Adam(model.parameters(), 3e-4)
x = torch.randn(8, 32); y = torch.randint(0, 4, (8,))
loss = nn.functional.cross_entropy(model(x), y)
print("loss", loss.item())
loss.backward()
opt.step()
print("step done")
