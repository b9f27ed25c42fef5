# DDP fine-tune of a small BERT classifier (config only, random init), then save_pretrained for serving.
import argparse, os, time, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import BertConfig, BertForSequenceClassification
p = argparse.ArgumentParser()
p.add_argument("--output-dir", default="out/bert-cls")
p.add_argument("--steps", type=int, default=6)
a = p.parse_args()
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
cfg = BertConfig(vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, num_labels=3)
model = BertForSequenceClassification(cfg)
model = DDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(a.steps):
    ids = torch.randint(0, 1000, (8, 32)); labels = torch.randint(0, 3, (8,))
    out = model(input_ids=ids, labels=labels)
    opt.zero_grad(); out.loss.backward(); opt.step()
    if rank == 0:
        print(f"step {step} loss {out.loss.item():.4f}")
if rank == 0:
    model.module.save_pretrained(a.output_dir)
    print("saved", a.output_dir, sorted(os.listdir(a.output_dir)))
dist.barrier()
dist.destroy_process_group()
