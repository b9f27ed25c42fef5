import random, torch, torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

class EMATracker:
    """keeps an exponential moving average of the training loss"""
    def __init__(self, decay=0.98):
        self.decay, self.value = decay, None
    def update(self, x):
        self.value = x if self.value is None else self.decay * self.value + (1 - self.decay) * x

acc = Accelerator()
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
X = torch.randn(512, 16); y = X.sum(1, keepdim=True)
dl = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
model, opt, dl = acc.prepare(model, opt, dl)
ema = EMATracker()
acc.register_for_checkpointing(ema)
for step, (xb, yb) in enumerate(dl):
    loss = nn.functional.mse_loss(model(xb), yb)
    acc.backward(loss); opt.step(); opt.zero_grad()
    ema.update(loss.item())
    if step % 4 == 0:
        acc.print(f"step {step} loss {loss.item():.4f} ema {ema.value:.4f}")
acc.save_state("ckpt")
