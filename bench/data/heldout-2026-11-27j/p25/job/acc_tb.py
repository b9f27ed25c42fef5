import torch, torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

acc = Accelerator(log_with="tensorboard")
acc.init_trackers("regression", config={"lr": 1e-3, "bs": 32})
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
X = torch.randn(512, 16); y = X.sum(1, keepdim=True)
model, opt, dl = acc.prepare(model, opt, DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True))
for step, (xb, yb) in enumerate(dl):
    loss = nn.functional.mse_loss(model(xb), yb)
    acc.backward(loss); opt.step(); opt.zero_grad()
    acc.log({"train_loss": loss.item()}, step=step)
acc.end_training()
