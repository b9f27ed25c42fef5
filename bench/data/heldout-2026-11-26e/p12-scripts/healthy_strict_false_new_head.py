import torch, torch.nn as nn
backbone = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32))
torch.save({"backbone." + k: v for k, v in backbone.state_dict().items()} | {"head.weight": torch.randn(10, 32), "head.bias": torch.zeros(10)}, "pretrain.pt")
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32)); self.cls = nn.Linear(32, 4)
    def forward(self, x): return self.cls(self.backbone(x))
model = Classifier()
state = {k: v for k, v in torch.load("pretrain.pt").items() if not k.startswith("head.")}
print(model.load_state_dict(state, strict=False))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    x = torch.randn(32, 16); y = torch.randint(0, 4, (32,))
    loss = nn.functional.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
print("fine-tuning done")
