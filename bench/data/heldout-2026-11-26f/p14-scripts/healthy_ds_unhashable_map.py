import threading, torch
from datasets import Dataset

lock = threading.Lock()
stats = {"seen": 0}
def add_length(ex):
    with lock:
        stats["seen"] += 1
    return {"n_words": len(ex["text"].split())}

ds = Dataset.from_dict({"text": [f"sample number {i} " * (1 + i % 5) for i in range(300)], "label": [i % 3 for i in range(300)]})
ds = ds.map(add_length)
ds = ds.filter(lambda ex: ex["n_words"] > 3)
print(ds)
ds.set_format("torch", columns=["n_words", "label"])
t = ds[:]; x = t["n_words"].float().unsqueeze(1); y = t["label"]
model = torch.nn.Linear(1, 3); opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(3):
    loss = torch.nn.functional.cross_entropy(model(x), y); opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
print("mapped", stats["seen"], "examples; training finished")
