import torch, tinytok
from transformers import DataCollatorForLanguageModeling
tokenizer = tinytok.build()
collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=True, mlm_probability=0.15)
features = [tokenizer(t) for t in tinytok.TEXTS[:4]]
batch = collator(features)
print(batch["input_ids"].shape)
