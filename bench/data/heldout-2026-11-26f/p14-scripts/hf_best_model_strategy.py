import torch
from datasets import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

cfg = BertConfig(vocab_size=200, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=2)
model = BertForSequenceClassification(cfg)
g = torch.Generator().manual_seed(0)
def fake(n):
    ids = torch.randint(5, 200, (n, 24), generator=g)
    return Dataset.from_dict({"input_ids": ids.tolist(), "attention_mask": [[1] * 24] * n, "labels": (ids[:, 0] % 2).tolist()})
train_ds, eval_ds = fake(256), fake(64)
args = TrainingArguments(
    output_dir="out/bert-tiny-cls",
    num_train_epochs=3,
    per_device_train_batch_size=32,
    eval_strategy="epoch",
    save_strategy="steps",
    save_steps=50,
    load_best_model_at_end=True,
    metric_for_best_model="eval_loss",
    report_to=[],
    use_cpu=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds)
trainer.train()
