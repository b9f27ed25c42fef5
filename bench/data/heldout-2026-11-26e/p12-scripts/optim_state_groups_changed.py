import os, torch, torch.nn as nn
def build(freeze_emb):
    model = nn.Sequential(nn.Embedding(100, 16), nn.Flatten(), nn.Linear(16 * 4, 2))
    if freeze_emb: model[0].weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    return model, torch.optim.Adam(params, lr=1e-3)
if not os.path.exists("stage1.pt"):
    model, opt = build(freeze_emb=True)
    x = torch.randint(0, 100, (8, 4)); model(x).sum().backward(); opt.step()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, "stage1.pt")
    print("stage 1 saved stage1.pt")
model, opt = build(freeze_emb=False)          # stage 2: unfreeze embeddings
ck = torch.load("stage1.pt")
model.load_state_dict(ck["model"]); opt.load_state_dict(ck["opt"])
print("resumed stage 2")
