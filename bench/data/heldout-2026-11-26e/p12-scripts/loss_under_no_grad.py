import torch, torch.nn as nn
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
def compute_loss(batch):
    x, y = batch
    with torch.no_grad():          # metrics helper, shared with evaluate()
        logits = model(x)
        acc = (logits.argmax(1) == y).float().mean()
    return nn.functional.cross_entropy(logits, y), acc
for step in range(3):
    batch = (torch.randn(16, 10), torch.randint(0, 2, (16,)))
    loss, acc = compute_loss(batch)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.3f} acc {acc:.2f}")
