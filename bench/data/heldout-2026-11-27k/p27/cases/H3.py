import torch
from torch.utils.data import DataLoader, TensorDataset
from accelerate import Accelerator

acc = Accelerator()
torch.manual_seed(0)
X = torch.randn(101, 8); Y = (X.sum(1) > 0).long()
model = torch.nn.Linear(8, 2); opt = torch.optim.SGD(model.parameters(), 0.1)
train = DataLoader(TensorDataset(X, Y), batch_size=10, shuffle=True)
evl = DataLoader(TensorDataset(X, Y), batch_size=16)
model, opt, train, evl = acc.prepare(model, opt, train, evl)
for epoch in range(2):
    model.train()
    for x, y in train:
        loss = torch.nn.functional.cross_entropy(model(x), y); acc.backward(loss); opt.step(); opt.zero_grad()
    model.eval(); correct = n = 0
    for x, y in evl:
        with torch.no_grad(): p = model(x).argmax(1)
        p, y = acc.gather_for_metrics((p, y)); correct += (p == y).sum().item(); n += len(y)
    acc.print(f"epoch {epoch} eval acc {correct / n:.3f} on {n} samples")
