import torch
from datasets import Dataset
from torch.utils.data import DataLoader

ds = Dataset.from_dict({"text": [f"sample number {i} " * (1 + i % 5) for i in range(300)], "label": [i % 3 for i in range(300)]})
ds = ds.map(lambda ex: {"n_words": len(ex["text"].split())})
ds = ds.filter(lambda ex: ex["n_words"] > 3)
print(ds)
ds.set_format("torch", columns=["n_words", "label"])
loader = DataLoader(ds, batch_size=32, shuffle=True, pin_memory=True, num_workers=2)
model = torch.nn.Linear(1, 3); opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(3):
    for b in loader:
        x = b["n_words"].float().unsqueeze(1) / 10
        loss = torch.nn.functional.cross_entropy(model(x), b["label"]); opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
print("training finished")
