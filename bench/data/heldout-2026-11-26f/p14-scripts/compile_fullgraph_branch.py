import torch, torch.nn as nn

class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
    def forward(self, x):
        s = self.enc(x)
        if s.mean() > 0:            # re-center positive batches
            s = s - s.mean()
        return s

model = Scorer()
cmodel = torch.compile(model, fullgraph=True)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
print("compiled with fullgraph=True; training")
for step in range(3):
    x = torch.randn(64, 32)
    loss = cmodel(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, loss.item())
