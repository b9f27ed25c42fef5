import torch
from accelerate import Accelerator

acc = Accelerator()
torch.manual_seed(0)
X = torch.randn(101, 8); Y = (X.sum(1) > 0).long()
model = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), 0.1)
model, opt = acc.prepare(model, opt)
for epoch in range(2):
    for i in range(acc.process_index * 10, 100, acc.num_processes * 10):
        loss = torch.nn.functional.cross_entropy(model(X[i:i+10]), Y[i:i+10])
        acc.backward(loss); opt.step(); opt.zero_grad()
    # evaluation: each process scores its own slice of the eval set
    idx = torch.arange(acc.process_index, len(X), acc.num_processes)
    with torch.no_grad():
        preds = model(X[idx]).argmax(1)
    all_preds = acc.gather(preds)
    all_true = acc.gather(Y[idx])
    acc.print(f"epoch {epoch} acc {(all_preds == all_true).float().mean():.3f}")
