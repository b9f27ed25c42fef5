import torch, torch.nn as nn, numpy as np
model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 5))
x = torch.randn(64, 32); y = torch.randint(0, 5, (64,))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(3):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x); loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad(); loss.backward(); opt.step()
    probs = logits.softmax(-1).detach().numpy()
    f1 = (probs.argmax(1) == y.numpy()).mean()
    print(f"step {step} loss {loss.item():.3f} acc {f1:.3f}")
