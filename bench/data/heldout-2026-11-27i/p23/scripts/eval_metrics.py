import torch
import torchmetrics

acc = torchmetrics.Accuracy(num_classes=5)
preds = torch.randn(64, 5).softmax(-1)
target = torch.randint(0, 5, (64,))
acc.update(preds, target)
print("acc", acc.compute().item())
