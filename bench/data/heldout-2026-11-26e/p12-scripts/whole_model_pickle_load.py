import torch
model = torch.load("export/model_full.pt", weights_only=False)
model.eval()
print(model(torch.randn(1, 20)))
