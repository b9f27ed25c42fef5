import resource, torch, torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 4096), nn.ReLU(), nn.Linear(4096, 256))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
val_x = torch.randn(2560, 256)
history = []
for step in range(1, 301):
    x = torch.randn(64, 256)
    loss = (model(x) - x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 50 == 0:
        model.eval()
        val_loss = 0
        for i in range(0, len(val_x), 256):
            xb = val_x[i:i + 256]
            val_loss += (model(xb) - xb).pow(2).mean()
        val_loss = val_loss / 10
        history.append(val_loss)
        model.train()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"step {step} train_loss {loss.item():.4f} val_loss {val_loss.item():.4f} max_rss {rss:.0f} MB", flush=True)
print("best val", min(h.item() for h in history))
