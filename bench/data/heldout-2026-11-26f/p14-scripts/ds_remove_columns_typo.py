from datasets import Dataset, DatasetDict

rows = {"sentence1": [f"the cat sat {i}" for i in range(50)], "sentence2": [f"a cat is sitting {i}" for i in range(50)],
        "label": [i % 2 for i in range(50)], "idx": list(range(50))}
data = DatasetDict({"train": Dataset.from_dict(rows), "validation": Dataset.from_dict(rows)})
print(data)
def encode(batch):
    return {"input_ids": [[len(w) for w in (a + " [SEP] " + b).split()] for a, b in zip(batch["sentence1"], batch["sentence2"])]}
encoded = data.map(encode, batched=True, remove_columns=["sentence1", "sentence2", "idx", "guid"])
print(encoded)
