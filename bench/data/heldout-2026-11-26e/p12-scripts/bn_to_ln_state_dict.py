import torch, torch.nn as nn
def block(norm):
    return nn.Sequential(nn.Conv1d(4, 8, 3), norm(8) if norm is nn.BatchNorm1d else nn.GroupNorm(1, 8), nn.ReLU())
old = nn.Sequential(block(nn.BatchNorm1d), nn.Flatten(), nn.LazyLinear(2))
old(torch.randn(2, 4, 16))
torch.save(old.state_dict(), "v1.pt")
new = nn.Sequential(block(nn.GroupNorm), nn.Flatten(), nn.Linear(8 * 14, 2))   # v2: GroupNorm for small batches
new.load_state_dict(torch.load("v1.pt"))
print("loaded v1 weights")
