import torch, torchmetrics
from torch.utils.data import DataLoader, TensorDataset

NUM_LABELS = 5
model = torch.nn.Linear(10, NUM_LABELS)
val = DataLoader(TensorDataset(torch.randn(100, 10), torch.randint(0, NUM_LABELS, (100,))), batch_size=25)
metrics = torchmetrics.MetricCollection({
    "acc": torchmetrics.Accuracy(task="multiclass"),
    "f1": torchmetrics.F1Score(task="multiclass", average="macro"),
})
with torch.no_grad():
    for x, y in val:
        metrics.update(model(x).softmax(-1), y)
print({k: round(v.item(), 4) for k, v in metrics.compute().items()})
