import torch, tinytok
from torch.utils.data import Dataset
from transformers import (BertConfig, BertForSequenceClassification, Trainer, TrainingArguments,
                          EarlyStoppingCallback)
tokenizer = tinytok.build()
class DS(Dataset):
    def __init__(self): self.enc = tokenizer(tinytok.TEXTS, padding="max_length", max_length=16)
    def __len__(self): return len(tinytok.TEXTS)
    def __getitem__(self, i): return {k: torch.tensor(v[i]) for k, v in self.enc.items()} | {"labels": torch.tensor(i % 2)}
cfg = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, num_labels=2)
args = TrainingArguments("out", per_device_train_batch_size=4, num_train_epochs=3, eval_strategy="epoch",
                         save_strategy="epoch", logging_steps=1, report_to=[], use_cpu=True)
trainer = Trainer(model=BertForSequenceClassification(cfg), args=args, train_dataset=DS(), eval_dataset=DS(),
                  callbacks=[EarlyStoppingCallback(early_stopping_patience=2)])
trainer.train()
