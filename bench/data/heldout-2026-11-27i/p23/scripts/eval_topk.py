import torch
from torchmetrics.classification import MulticlassAccuracy

top5 = MulticlassAccuracy(num_classes=3, top_k=5)
preds = torch.randn(64, 3).softmax(-1)
target = torch.randint(0, 3, (64,))
print("top5", top5(preds, target).item())
