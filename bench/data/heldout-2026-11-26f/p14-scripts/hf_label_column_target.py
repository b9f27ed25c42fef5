import torch
from datasets import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

cfg = BertConfig(vocab_size=300, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=3)
model = BertForSequenceClassification(cfg)
g = torch.Generator().manual_seed(1)
ids = torch.randint(5, 300, (240, 20), generator=g)
ds = Dataset.from_dict({"input_ids": ids.tolist(), "attention_mask": [[1] * 20] * 240, "target": (ids[:, 1] % 3).tolist()})
split = ds.train_test_split(test_size=0.2, seed=0)
print(split)
args = TrainingArguments(output_dir="out/intent", num_train_epochs=2, per_device_train_batch_size=16,
                         eval_strategy="epoch", report_to=[], use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=split["train"], eval_dataset=split["test"])
trainer.train()
