import math, torch, torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.randn(200, 4), torch.randn(200, 1))
dl = DataLoader(ds, batch_size=16, shuffle=True)
model = nn.Linear(4, 1); opt = torch.optim.SGD(model.parameters(), lr=0.01)
epochs, accum = 3, 4
steps_per_epoch = len(ds) // (16 * accum)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=steps_per_epoch)
for epoch in range(epochs):
    for i, (x, y) in enumerate(dl):
        loss = nn.functional.mse_loss(model(x), y) / accum; loss.backward()
        if (i + 1) % accum == 0 or i + 1 == len(dl):
            opt.step(); opt.zero_grad(); sched.step()
    print(f"epoch {epoch} lr {sched.get_last_lr()[0]:.4f} loss {loss.item():.4f}")
