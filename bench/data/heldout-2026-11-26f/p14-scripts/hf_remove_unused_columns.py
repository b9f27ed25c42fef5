import torch, torch.nn as nn
from datasets import Dataset
from transformers import Trainer, TrainingArguments

class TabularNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 2))
    def forward(self, features, labels=None):
        logits = self.mlp(features)
        loss = nn.functional.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}

g = torch.Generator().manual_seed(0)
x = torch.randn(200, 12, generator=g)
ds = Dataset.from_dict({"x": x.tolist(), "y": (x[:, 0] > 0).long().tolist()})
ds = ds.with_format("torch")
print(ds)
args = TrainingArguments(output_dir="out/tabular", num_train_epochs=1, per_device_train_batch_size=16,
                         report_to=[], use_cpu=True, logging_steps=5)
trainer = Trainer(model=TabularNet(), args=args, train_dataset=ds)
trainer.train()
