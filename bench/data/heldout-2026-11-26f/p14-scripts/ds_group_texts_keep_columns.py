from datasets import Dataset

docs = [" ".join(f"w{(i * 7 + j) % 97}" for j in range(20 + (i * 13) % 60)) for i in range(400)]
raw = Dataset.from_dict({"text": docs, "source": ["forum"] * 400})
vocab = {f"w{i}": i + 2 for i in range(97)}
def tokenize(batch):
    return {"input_ids": [[vocab[w] for w in t.split()] for t in batch["text"]]}
tok = raw.map(tokenize, batched=True, remove_columns=["text", "source"])
BLOCK = 32
def group_texts(batch):
    ids = sum(batch["input_ids"], [])
    n = (len(ids) // BLOCK) * BLOCK
    blocks = [ids[i:i + BLOCK] for i in range(0, n, BLOCK)]
    return {"input_ids": blocks, "labels": [b[:] for b in blocks]}
# pack the raw corpus into 32-token blocks for causal LM pretraining
lm = raw.map(lambda b: group_texts(tokenize(b)), batched=True, batch_size=100)
print(lm)
