import torch, tinytok
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments, TrainerCallback
tokenizer = tinytok.build()
class DS(Dataset):
    def __init__(self): self.enc = tokenizer(tinytok.TEXTS, padding="max_length", max_length=16)
    def __len__(self): return len(tinytok.TEXTS)
    def __getitem__(self, i): return {k: torch.tensor(v[i]) for k, v in self.enc.items()} | {"labels": torch.tensor(i % 2)}
class BestAccuracy(TrainerCallback):
    best = 0.0
    def on_evaluate(self, args, state, control, metrics=None, **kw):
        if metrics["eval_accuracy"] > self.best:
            self.best = metrics["eval_accuracy"]; print(f"new best accuracy {self.best:.3f}")
cfg = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, num_labels=2)
args = TrainingArguments("out", per_device_train_batch_size=4, num_train_epochs=2, eval_strategy="epoch",
                         save_strategy="no", logging_steps=1, report_to=[], use_cpu=True)
trainer = Trainer(model=BertForSequenceClassification(cfg), args=args, train_dataset=DS(), eval_dataset=DS(),
                  callbacks=[BestAccuracy()])
trainer.train()
