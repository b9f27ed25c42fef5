import torch, tinytok
from transformers import BertConfig, BertForSequenceClassification
tokenizer = tinytok.build()
cfg = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=64, max_position_embeddings=32, num_labels=2)
model = BertForSequenceClassification(cfg)
long_doc = " ".join(tinytok.TEXTS * 3)
batch = tokenizer([long_doc, tinytok.TEXTS[0]], padding=True, return_tensors="pt")
print("input length", batch["input_ids"].shape[1])
out = model(**batch, labels=torch.tensor([0, 1]))
print("loss", out.loss.item())
