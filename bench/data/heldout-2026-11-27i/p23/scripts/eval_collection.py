import torch
from torchmetrics import MetricCollection
from torchmetrics.classification import MulticlassAccuracy

metrics = MetricCollection([
    MulticlassAccuracy(num_classes=5, average="micro"),
    MulticlassAccuracy(num_classes=5, average="macro"),
])
preds = torch.randn(64, 5).softmax(-1)
target = torch.randint(0, 5, (64,))
print(metrics(preds, target))
