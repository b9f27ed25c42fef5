import torch, torch.nn as nn
model = nn.Linear(10, 2); x = torch.randn(4, 10)
print("loss", nn.functional.cross_entropy(model(x), torch.tensor([0, 1, 0, 1])).item())
