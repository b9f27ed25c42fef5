import torch, tinytok
tokenizer = tinytok.build()
texts = tinytok.TEXTS
batch = tokenizer(texts[:4], truncation=True, max_length=32, return_tensors="pt")
print(batch["input_ids"].shape)
