import os, torch, tinytok
from transformers import BertConfig, BertModel, BertForSequenceClassification
tokenizer = tinytok.build()
if not os.path.isdir("pretrained"):
    BertModel(BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64)).save_pretrained("pretrained")
model = BertForSequenceClassification.from_pretrained("pretrained", num_labels=3)
opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
batch = tokenizer(tinytok.TEXTS, padding=True, return_tensors="pt")
labels = torch.tensor([i % 3 for i in range(len(tinytok.TEXTS))])
for epoch in range(3):
    out = model(**batch, labels=labels); opt.zero_grad(); out.loss.backward(); opt.step()
    print(f"epoch {epoch} loss {out.loss.item():.4f}")
model.save_pretrained("finetuned"); print("saved finetuned/")
