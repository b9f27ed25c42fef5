import torch, torch.nn as nn
model = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024))
print("training step done")
torch.save(model.state_dict(), "checkpoint.pt")
print("saved checkpoint.pt")
