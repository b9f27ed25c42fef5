import yaml, torch
cfg = yaml.safe_load(open("config.yaml"))
print("config:", cfg)
model = torch.nn.Sequential(torch.nn.Linear(cfg["in_dim"], cfg["hidden"]), torch.nn.ReLU(), torch.nn.Linear(cfg["hidden"], 1))
opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
for step in range(cfg["steps"]):
    x = torch.randn(32, cfg["in_dim"]); loss = model(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
print("done", loss.item())
