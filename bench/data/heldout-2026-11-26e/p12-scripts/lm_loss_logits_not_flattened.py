import torch, torch.nn as nn, tinytok
tokenizer = tinytok.build()
class TinyLM(nn.Module):
    def __init__(self, v, d=32):
        super().__init__(); self.emb = nn.Embedding(v, d); self.rnn = nn.GRU(d, d, batch_first=True); self.out = nn.Linear(d, v)
    def forward(self, ids): return self.out(self.rnn(self.emb(ids))[0])
model = TinyLM(len(tokenizer)); opt = torch.optim.Adam(model.parameters(), lr=1e-3)
batch = tokenizer(tinytok.TEXTS[:4], padding="max_length", max_length=16, return_tensors="pt")
ids = batch["input_ids"]
labels = ids.clone(); labels[batch["attention_mask"] == 0] = -100
logits = model(ids)
loss = nn.CrossEntropyLoss(ignore_index=-100)(logits, labels)
loss.backward(); opt.step()
print("loss", loss.item())
