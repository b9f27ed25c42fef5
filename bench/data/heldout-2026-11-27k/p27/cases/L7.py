import torch
from transformers import GPT2Config, GPT2ForSequenceClassification

cfg = GPT2Config(vocab_size=5000, n_positions=128, n_embd=64, n_layer=2, n_head=4, num_labels=2)
model = GPT2ForSequenceClassification(cfg)
opt = torch.optim.AdamW(model.parameters(), 5e-4)
ids = torch.randint(0, 5000, (8, 40)); mask = torch.ones_like(ids); mask[:4, 30:] = 0
labels = torch.randint(0, 2, (8,))
for step in range(3):
    out = model(input_ids=ids, attention_mask=mask, labels=labels)
    out.loss.backward(); opt.step(); opt.zero_grad()
    print("step", step, out.loss.item())
