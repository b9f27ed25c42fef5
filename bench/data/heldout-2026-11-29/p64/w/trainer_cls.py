# HF Trainer fine-tune of a small BERT classifier (random init, synthetic data) with step checkpoints.
import argparse, torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments
p = argparse.ArgumentParser()
p.add_argument("--output-dir", default="trainer_out")
p.add_argument("--max-steps", type=int, default=20)
p.add_argument("--resume", action="store_true")
a = p.parse_args()
torch.manual_seed(0)
cfg = BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, num_labels=3)
model = BertForSequenceClassification(cfg)
class DS(torch.utils.data.Dataset):
    def __init__(self, n=512):
        g = torch.Generator().manual_seed(1)
        self.ids = torch.randint(0, 1000, (n, 32), generator=g); self.y = torch.randint(0, 3, (n,), generator=g)
    def __len__(self): return len(self.y)
    def __getitem__(self, i): return {"input_ids": self.ids[i], "labels": self.y[i]}
args = TrainingArguments(output_dir=a.output_dir, max_steps=a.max_steps, per_device_train_batch_size=8, save_steps=10,
                         logging_steps=5, report_to=[], use_cpu=True, ddp_backend="gloo", dataloader_num_workers=0)
Trainer(model=model, args=args, train_dataset=DS()).train(resume_from_checkpoint=True if a.resume else None)
