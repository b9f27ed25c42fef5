import os, textwrap, json
R = "/tmp/heldout-p20/jobs"
J = {}
TR = "torchrun --nproc-per-node 2 --master-port {port} train.py"
# each: name -> (files dict, command)
J["a01"] = ({"train.py": """
import os, torch, torch.distributed as dist
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
w = torch.randn(16, 4)
# make every rank start from the last rank's weights
dist.broadcast(w, src=world)
print(f"rank {rank} weights synced, norm {w.norm():.3f}")
dist.destroy_process_group()
"""}, TR.format(port=29611))
J["a02"] = ({"conf.yaml": "model:\n  hidden: 64\noptim:\n  lr: 1e-3\n  weight_decay: 0.01\ntrain:\n  epochs: 2\n",
 "train.py": """
import torch
from omegaconf import OmegaConf
cfg = OmegaConf.load("conf.yaml")
print(OmegaConf.to_yaml(cfg))
model = torch.nn.Sequential(torch.nn.Linear(8, cfg.model.hidden), torch.nn.ReLU(), torch.nn.Linear(cfg.model.hidden, 1))
opt = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
for epoch in range(cfg.train.epochs):
    x = torch.randn(32, 8); loss = model(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print("epoch", epoch, "loss", loss.item())
"""}, "python train.py")
J["a03"] = ({"conf.yaml": "dataset:\n  root: /tmp/data/shapes\n  image_size: 32\ntrain:\n  batch_size: 16\n  cache_dir: ${data.root}/cache\n",
 "train.py": """
from omegaconf import OmegaConf
import os
cfg = OmegaConf.load("conf.yaml")
print("image size", cfg.dataset.image_size)
os.makedirs(cfg.train.cache_dir, exist_ok=True)
print("cache at", cfg.train.cache_dir)
"""}, "python train.py")
J["a04"] = ({"train.py": """
import timm, torch
arch = "resnet_18"
model = timm.create_model(arch, pretrained=False, num_classes=10)
print(model.default_cfg)
"""}, "python train.py")
J["a05"] = ({"train.py": """
import timm, torch
from torch.utils.data import TensorDataset, DataLoader
# digits are stored as RGB pngs by the exporter
images = torch.rand(64, 3, 28, 28); labels = torch.randint(0, 10, (64,))
model = timm.create_model("resnet18", pretrained=False, num_classes=10, in_chans=1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step, (x, y) in enumerate(DataLoader(TensorDataset(images, labels), batch_size=16)):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, "loss", round(loss.item(), 4))
"""}, "python train.py")
J["a06"] = ({"train.py": """
import torch
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 5))
backbone, head = model[0], model[2]
opt = torch.optim.AdamW([
    {"params": model.parameters(), "lr": 1e-4},
    {"params": head.parameters(), "lr": 1e-3},
])
print(opt)
"""}, "python train.py")
J["a07"] = ({"train.py": """
import torch
torch.manual_seed(3)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(50):
    x = torch.randn(64, 16); y = torch.randint(0, 3, (64,))
    probs = torch.softmax(model(x), dim=-1)
    loss = -torch.log(probs[torch.arange(64), y]).mean()
    opt.zero_grad(); loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f} grad_norm {gn.item():.3f}")
"""}, "python train.py")
J["a08"] = ({"train.py": """
import torch
model = torch.nn.Linear(10, 2)
opt = torch.optim.Adam(model.parameters())
for epoch in range(2):
    loss = model(torch.randn(8, 10)).sum(); opt.zero_grad(); loss.backward(); opt.step()
    print("epoch", epoch, "done")
torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, "ckpts/run3/last.pt")
print("saved")
"""}, "python train.py")
J["a09"] = ({"conf.yaml": "optim:\n  name: sgd\n  lr: 0.1\n  momentum: 0.0\n  nesterov: true\n  dampening: 0.0\n",
 "train.py": """
import torch
from omegaconf import OmegaConf
cfg = OmegaConf.load("conf.yaml")
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=cfg.optim.lr, momentum=cfg.optim.momentum,
                      nesterov=cfg.optim.nesterov, dampening=cfg.optim.dampening)
print(opt)
"""}, "python train.py")
J["a10"] = ({"train.py": """
import os, torch, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
GLOBAL_BATCH, ACCUM = 16, 16
dist.init_process_group("gloo")
world = dist.get_world_size()
ds = TensorDataset(torch.randn(512, 8), torch.randn(512, 1))
per_rank = GLOBAL_BATCH // world // ACCUM
loader = DataLoader(ds, batch_size=per_rank, sampler=DistributedSampler(ds))
for x, y in loader:
    pass
print("epoch done")
dist.destroy_process_group()
"""}, TR.format(port=29612))
J["a11"] = ({"train.py": """
import torch, torchmetrics
# severity grades from the annotation sheet: 1 = mild, 2 = moderate, 3 = severe
grades = torch.tensor([1, 2, 3, 3, 1, 2, 2, 3, 1, 1, 2, 3])
model = torch.nn.Linear(6, 3)
acc = torchmetrics.Accuracy(task="multiclass", num_classes=3)
x = torch.randn(12, 6)
loss = torch.nn.functional.cross_entropy(model(x), grades.clamp(max=2))
acc.update(model(x).argmax(-1), grades)
print("val acc", acc.compute())
"""}, "python train.py")
J["a12"] = ({"train.py": """
import torch
torch.manual_seed(0)
B, S, E = 4, 10, 32
attn = torch.nn.MultiheadAttention(E, 4)
x = torch.randn(S, B, E)  # (seq, batch, embed)
lengths = torch.tensor([10, 7, 5, 9])
pad_mask = torch.arange(S)[:, None] >= lengths[None, :]   # True where padded
out, w = attn(x, x, x, key_padding_mask=pad_mask)
print(out.shape)
"""}, "python train.py")
J["a13"] = ({"train.py": """
import os, torch, torch.distributed as dist
# reuse the init from the old mp.spawn launcher
dist.init_process_group("gloo", init_method="tcp://127.0.0.1:23456", world_size=int(os.environ["WORLD_SIZE"]))
print("rank", dist.get_rank(), "of", dist.get_world_size())
dist.barrier()
dist.destroy_process_group()
"""}, TR.format(port=29613))
J["a14"] = ({"train.py": """
import torch, lightning as L
from torch.utils.data import TensorDataset, DataLoader
class Reg(L.LightningModule):
    def __init__(self):
        super().__init__(); self.net = torch.nn.Linear(8, 1)
    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)
ds = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
trainer = L.Trainer(accelerator="cpu", max_epochs=1, logger=False, enable_checkpointing=False)
trainer.fit(Reg(), train_dataloaders=ds)
"""}, "python train.py")
J["a15"] = ({"train.py": """
import torch, lightning as L
from torch.utils.data import TensorDataset, DataLoader
class Reg(L.LightningModule):
    def __init__(self):
        super().__init__(); self.net = torch.nn.Linear(8, 1)
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        self.log("train_loss", loss.item())
        return loss.item()
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)
dl = DataLoader(TensorDataset(torch.randn(256, 8), torch.randn(256, 1)), batch_size=32)
trainer = L.Trainer(accelerator="cpu", max_epochs=1, logger=False, enable_checkpointing=False)
trainer.fit(Reg(), dl)
"""}, "python train.py")
J["a16"] = ({"train.py": """
import timm, torch
# CIFAR-10 sized batch
x = torch.rand(8, 3, 32, 32); y = torch.randint(0, 10, (8,))
model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10)
loss = torch.nn.functional.cross_entropy(model(x), y)
loss.backward()
print("loss", loss.item())
"""}, "python train.py")
J["a17"] = ({"conf.yaml": "model:\n  in_dim: 20\n  hidden_sizes: 64,128,64\n  out_dim: 2\n",
 "train.py": """
import torch
from omegaconf import OmegaConf
cfg = OmegaConf.load("conf.yaml")
layers, d = [], cfg.model.in_dim
for h in cfg.model.hidden_sizes:
    layers += [torch.nn.Linear(d, int(h)), torch.nn.ReLU()]; d = int(h)
layers.append(torch.nn.Linear(d, cfg.model.out_dim))
model = torch.nn.Sequential(*layers)
print(model)
"""}, "python train.py")
# healthy
J["b01"] = ({"train.py": """
import timm, torch
from timm.models.layers import trunc_normal_
model = timm.create_model("resnet18", pretrained=False, num_classes=4)
trunc_normal_(model.fc.weight, std=0.02)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(3):
    x = torch.rand(8, 3, 64, 64); y = torch.randint(0, 4, (8,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print("done")
"""}, "python train.py")
J["b02"] = ({"train.py": """
import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(20):
    x = torch.randn(32, 16); y = x.sum(1, keepdim=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0 and rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
if rank == 0: print("training finished")
dist.destroy_process_group()
"""}, TR.format(port=29614))
J["b03"] = ({"train.py": """
import torch, lightning as L
from torch.utils.data import TensorDataset, DataLoader
class Reg(L.LightningModule):
    def __init__(self):
        super().__init__(); self.net = torch.nn.Linear(8, 1)
    def training_step(self, batch, batch_idx):
        loss = torch.nn.functional.mse_loss(self.net(batch["x"]), batch["y"])
        self.log("train_loss", loss, prog_bar=True)
        return loss
    def validation_step(self, batch, batch_idx):
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(batch["x"]), batch["y"]))
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)
class DS(torch.utils.data.Dataset):
    def __init__(self, n): self.x = torch.randn(n, 8); self.y = torch.randn(n, 1)
    def __len__(self): return len(self.x)
    def __getitem__(self, i): return {"x": self.x[i], "y": self.y[i], "meta": {"idx": i}}
trainer = L.Trainer(accelerator="cpu", max_epochs=2, enable_progress_bar=False)
trainer.fit(Reg(), DataLoader(DS(200), batch_size=32), DataLoader(DS(64), batch_size=32))
"""}, "python train.py")
J["b04"] = ({"train.py": """
import torch
layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, batch_first=True, norm_first=True)
enc = torch.nn.TransformerEncoder(layer, num_layers=2)
opt = torch.optim.Adam(enc.parameters(), lr=1e-3)
for step in range(3):
    x = torch.randn(4, 12, 32)
    loss = enc(x).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print("done")
"""}, "python train.py")
J["b05"] = ({"conf.yaml": "model:\n  hidden: 32\noptim:\n  lr: 1.0e-3\ntrain:\n  steps: 4\n  out: ${oc.env:RUN_DIR,/tmp/runs}/latest\n",
 "train.py": """
import torch, torchmetrics
from omegaconf import OmegaConf
cfg = OmegaConf.load("conf.yaml")
print(OmegaConf.to_yaml(cfg, resolve=True))
model = torch.nn.Linear(8, 3)
opt = torch.optim.Adam(model.parameters(), lr=cfg.optim.lr)
f1 = torchmetrics.F1Score(task="multiclass", num_classes=3, average="macro")
for step in range(cfg.train.steps):
    x = torch.randn(16, 8); y = torch.zeros(16, dtype=torch.long)
    logits = model(x); loss = torch.nn.functional.cross_entropy(logits, y)
    opt.zero_grad(); loss.backward(); opt.step()
    f1.update(logits.argmax(-1), y)
print("macro f1", f1.compute().item())
"""}, "python train.py")
for k, (files, cmd) in J.items():
    d = os.path.join(R, k); os.makedirs(d, exist_ok=True)
    for fn, body in files.items():
        open(os.path.join(d, fn), "w").write(textwrap.dedent(body).lstrip("\n"))
    open(os.path.join(d, "cmd"), "w").write(cmd + "\n")
print(len(J))
