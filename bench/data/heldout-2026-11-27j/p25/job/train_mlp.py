import argparse, time, torch, torch.nn as nn
p = argparse.ArgumentParser(); p.add_argument("--epochs", type=int, default=20); p.add_argument("--lr", type=float, default=1e-3)
a = p.parse_args()
torch.manual_seed(0)
X = torch.randn(20000, 256); y = (X[:, :8].sum(1) > 0).long()
m = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 2))
opt = torch.optim.AdamW(m.parameters(), lr=a.lr)
t0 = time.time()
for ep in range(a.epochs):
    for i in range(0, len(X), 256):
        loss = nn.functional.cross_entropy(m(X[i:i+256]), y[i:i+256])
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {ep} loss {loss.item():.4f} ({time.time()-t0:.1f}s)", flush=True)
torch.save(m.state_dict(), "mlp.pt"); print("saved mlp.pt")
