import torch
from datasets import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

cfg = BertConfig(vocab_size=200, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, num_labels=2)
model = BertForSequenceClassification(cfg)
g = torch.Generator().manual_seed(0)
def fake(n):
    ids = torch.randint(5, 200, (n, 16), generator=g)
    return Dataset.from_dict({"input_ids": ids.tolist(), "attention_mask": [[1] * 16] * n, "labels": (ids[:, 0] % 2).tolist()})
args = TrainingArguments(output_dir="out/tiny", num_train_epochs=5, per_device_train_batch_size=32, learning_rate=3e-3, eval_strategy="epoch",
                         save_strategy="epoch", load_best_model_at_end=True, logging_steps=8, report_to=[], use_cpu=True,
                         disable_tqdm=True)
trainer = Trainer(model=model, args=args, train_dataset=fake(256), eval_dataset=fake(64))
trainer.train()
print(trainer.evaluate())
