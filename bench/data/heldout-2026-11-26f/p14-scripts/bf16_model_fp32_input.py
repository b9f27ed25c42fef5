import torch, torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(128, 256), nn.GELU(), nn.Linear(256, 10))
model = model.to(torch.bfloat16)     # halve memory on the CPU box
print("params dtype:", next(model.parameters()).dtype)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randn(256, 128); labels = torch.randint(0, 10, (256,))
for i in range(0, 256, 64):
    x, y = data[i:i + 64], labels[i:i + 64]
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print("batch", i // 64, "loss", loss.item())
