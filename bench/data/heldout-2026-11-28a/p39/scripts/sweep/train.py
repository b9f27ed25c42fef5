import sys, time, torch
lr = float(sys.argv[1])
torch.manual_seed(0)
w = torch.zeros(16, requires_grad=True)
opt = torch.optim.SGD([w], lr=lr)
X = torch.randn(512, 16); y = X @ torch.arange(16.)
for step in range(200):
    loss = (X @ w - y).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 50 == 0:
        print(f"lr={lr} step {step} loss {loss.item():.4f}", flush=True)
    time.sleep(0.05)
print(f"lr={lr} final loss {loss.item():.4f}", flush=True)
