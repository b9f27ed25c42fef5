import torch, torch.nn as nn
model = nn.Sequential(nn.Linear(10, 10), nn.LayerNorm(10), nn.Linear(10, 2))
decay = [p for n, p in model.named_parameters() if p.dim() >= 1]
no_decay = [p for n, p in model.named_parameters() if "bias" in n or "1." in n]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                         {"params": no_decay, "weight_decay": 0.0}], lr=1e-3)
print("optimizer ready")
