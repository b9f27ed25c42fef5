import os, random, numpy as np, torch

def make():
    return torch.nn.Sequential(torch.nn.Linear(10, 10), torch.nn.Tanh(), torch.nn.Linear(10, 1))

model = make(); opt = torch.optim.Adam(model.parameters(), 1e-3)
if os.path.exists("ckpt/last.pt"):
    print("resuming from ckpt/last.pt")
    ck = torch.load("ckpt/last.pt")
    model.load_state_dict(ck["model"]); opt.load_state_dict(ck["opt"])
    torch.set_rng_state(ck["torch_rng"]); np.random.set_state(ck["numpy_rng"]); random.setstate(ck["py_rng"])
    start = ck["epoch"] + 1
else:
    start = 0
for epoch in range(start, start + 2):
    x = torch.from_numpy(np.random.randn(64, 10).astype("float32"))
    loss = model(x).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.5f}")
    os.makedirs("ckpt", exist_ok=True)
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                "torch_rng": torch.get_rng_state(), "numpy_rng": np.random.get_state(), "py_rng": random.getstate()},
               "ckpt/last.pt")
