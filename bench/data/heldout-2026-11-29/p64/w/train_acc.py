# accelerate training loop with save_state/load_state checkpoints (--resume-from), optional EMA of the weights.
import argparse, logging, os, copy, torch
import torch.nn as nn
from accelerate import Accelerator
from accelerate.utils import set_seed
p = argparse.ArgumentParser()
p.add_argument("--resume-from", default="")
p.add_argument("--steps", type=int, default=20)
p.add_argument("--ema", action="store_true")
p.add_argument("--out", default="acc_ckpt")
a = p.parse_args()
logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=os.environ.get("LOGLEVEL", "WARNING"))
acc = Accelerator(cpu=True)
set_seed(0)
class EMA:
    def __init__(self, model, decay=0.99):
        self.decay = decay
        self.shadow = {k: v.detach().clone() for k, v in model.state_dict().items()}
    @torch.no_grad()
    def update(self, model):
        for k, v in model.state_dict().items():
            self.shadow[k].mul_(self.decay).add_(v.detach(), alpha=1 - self.decay)
    def state_dict(self):
        return {"decay": self.decay, "shadow": self.shadow}
    def load_state_dict(self, sd):
        self.decay = sd["decay"]; self.shadow = sd["shadow"]
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=100)
ds = torch.utils.data.TensorDataset(torch.randn(1024, 32), torch.randint(0, 4, (1024,)))
dl = torch.utils.data.DataLoader(ds, batch_size=16, shuffle=True)
model, opt, dl, sched = acc.prepare(model, opt, dl, sched)
ema = None
if a.ema and os.environ.get("FIX") != "1":
    ema = EMA(acc.unwrap_model(model))
    acc.register_for_checkpointing(ema)
start = 0
if a.resume_from:
    acc.load_state(a.resume_from)
    start = int(a.resume_from.rstrip("/").split("_")[-1])
    acc.print(f"resumed from {a.resume_from} at step {start}")
if a.ema and os.environ.get("FIX") == "1":
    ema = EMA(acc.unwrap_model(model))   # new EMA starts from the resumed weights
    acc.register_for_checkpointing(ema)
step = start
it = iter(dl)
while step < a.steps:
    try:
        x, y = next(it)
    except StopIteration:
        it = iter(dl); x, y = next(it)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); acc.backward(loss); opt.step(); sched.step()
    if ema is not None:
        ema.update(acc.unwrap_model(model))
    step += 1
    if step % 10 == 0:
        acc.save_state(f"{a.out}/step_{step}")
        acc.print(f"step {step} loss {loss.item():.4f} saved {a.out}/step_{step}")
acc.wait_for_everyone()
acc.end_training()
