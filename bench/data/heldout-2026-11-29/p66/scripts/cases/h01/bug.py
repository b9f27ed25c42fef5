import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_float32_matmul_precision("high")
dev = "cuda"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.Dropout(0.1),
                                  nn.Linear(512, 512), nn.GELU(), nn.Dropout(0.1))
        self.head = nn.Linear(512, 10)

    def forward(self, x):
        return self.head(self.body(x))


model = torch.compile(Net().to(dev))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
w = torch.randn(256, 10, device=dev)
for epoch in range(3):
    model.train()
    for step in range(50):
        x = torch.randn(128, 256, device=dev)
        y = (x @ w).argmax(-1)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    model.eval()
    correct = 0
    with torch.no_grad():
        for _ in range(10):
            x = torch.randn(128, 256, device=dev)
            correct += (model(x).argmax(-1) == (x @ w).argmax(-1)).sum().item()
    print(f"epoch {epoch} train loss {loss.item():.4f} val acc {correct / 1280:.3f}")
print("done")
