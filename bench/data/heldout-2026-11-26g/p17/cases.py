# Case definitions for plant.py: name -> dict(cmd, files, prep, env, timeout)
C = {}
def case(name, cmd, files=None, prep=None, env=None, timeout=180):
    C[name] = dict(cmd=cmd, files=files or {}, prep=prep, env=env or {}, timeout=timeout)

LT_HEAD = '''import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import lightning as L

def make_loader(n, bs=16, shuffle=False):
    g = torch.Generator().manual_seed(n)
    x = torch.randn(n, 20, generator=g)
    y = (x[:, :5].sum(1, keepdim=True) > 0).float()
    return DataLoader(TensorDataset(x, y), batch_size=bs, shuffle=shuffle)
'''

# ---------- Lightning ----------
case("a01", "python fit.py", files={"fit.py": LT_HEAD + '''
class Clf(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.binary_cross_entropy_with_logits(self.net(x), y)
        self.log("train_loss", loss)
        return loss
    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", nn.functional.binary_cross_entropy_with_logits(self.net(x), y))
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

if __name__ == "__main__":
    trainer = L.Trainer(max_epochs=3, accelerator="cpu", val_check_interval=500, logger=False,
                        enable_checkpointing=False)
    trainer.fit(Clf(), make_loader(640, shuffle=True), make_loader(160))
'''})

case("a02", "python train_model.py", files={"train_model.py": LT_HEAD + '''
class Regressor(L.LightningModule):
    def __init__(self, lr=3e-4):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(nn.Linear(20, 64), nn.GELU(), nn.Linear(64, 1))
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=self.lr)
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self.log("loss", loss, prog_bar=True)
        return loss

if __name__ == "__main__":
    L.seed_everything(0)
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False)
    trainer.fit(Regressor(), make_loader(256, shuffle=True))
'''})

case("a03", "python gan_train.py", files={"gan_train.py": LT_HEAD + '''
class TwoOpt(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.gen = nn.Sequential(nn.Linear(20, 32), nn.Tanh(), nn.Linear(32, 20))
        self.disc = nn.Sequential(nn.Linear(20, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    def training_step(self, batch, i):
        x, _ = batch
        opt_g, opt_d = self.optimizers()
        fake = self.gen(torch.randn_like(x))
        d_loss = nn.functional.softplus(self.disc(fake.detach())).mean() + nn.functional.softplus(-self.disc(x)).mean()
        opt_d.zero_grad(); self.manual_backward(d_loss); opt_d.step()
        g_loss = nn.functional.softplus(-self.disc(fake)).mean()
        opt_g.zero_grad(); self.manual_backward(g_loss); opt_g.step()
        self.log_dict({"d_loss": d_loss, "g_loss": g_loss}, prog_bar=True)
    def configure_optimizers(self):
        return [torch.optim.Adam(self.gen.parameters(), 2e-4), torch.optim.Adam(self.disc.parameters(), 2e-4)]

if __name__ == "__main__":
    trainer = L.Trainer(max_epochs=5, accelerator="cpu", accumulate_grad_batches=4, logger=False,
                        enable_checkpointing=False)
    trainer.fit(TwoOpt(), make_loader(512, bs=32, shuffle=True))
'''})

case("a04", "python train.py && python evaluate.py", files={"model.py": LT_HEAD + '''
class Net(L.LightningModule):
    def __init__(self, hidden_dim, lr):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(nn.Linear(20, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, 1))
    def forward(self, x):
        return self.net(x)
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.binary_cross_entropy_with_logits(self(x), y)
        self.log("train_loss", loss)
        return loss
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.lr, momentum=0.9)
''', "train.py": '''import lightning as L
from model import Net, make_loader

trainer = L.Trainer(max_epochs=2, accelerator="cpu", logger=False, default_root_dir="runs",
                    enable_progress_bar=False)
trainer.fit(Net(hidden_dim=128, lr=0.05), make_loader(320, shuffle=True))
trainer.save_checkpoint("runs/final.ckpt")
print("saved runs/final.ckpt")
''', "evaluate.py": '''import torch
from model import Net, make_loader

model = Net.load_from_checkpoint("runs/final.ckpt")
model.eval()
correct = total = 0
with torch.no_grad():
    for x, y in make_loader(200):
        correct += ((model(x) > 0).float() == y).sum().item(); total += len(y)
print("accuracy", correct / total)
'''})

case("a05", "python pretrain.py --epochs 3", files={"pretrain.py": LT_HEAD + '''import argparse
from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint

class AE(L.LightningModule):
    def __init__(self, lr):
        super().__init__()
        self.save_hyperparameters()
        self.enc = nn.Sequential(nn.Linear(20, 8), nn.ReLU())
        self.dec = nn.Linear(8, 20)
    def training_step(self, batch, i):
        x, _ = batch
        loss = nn.functional.mse_loss(self.dec(self.enc(x)), x)
        self.log("recon", loss)
        return loss
    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
        return {"optimizer": opt, "lr_scheduler": torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)}

if __name__ == "__main__":
    ap = argparse.ArgumentParser(); ap.add_argument("--epochs", type=int, default=10); ap.add_argument("--lr", type=float, default=1e-3)
    a = ap.parse_args()
    trainer = L.Trainer(max_epochs=a.epochs, accelerator="cpu", logger=False,
                        callbacks=[LearningRateMonitor(logging_interval="step"), ModelCheckpoint(dirpath="ckpt")])
    trainer.fit(AE(a.lr), make_loader(400, bs=20, shuffle=True))
'''})

case("a06", "python fit_mixed.py", files={"fit_mixed.py": LT_HEAD + '''
class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 1))
    def training_step(self, batch, i):
        x, y = batch
        return nn.functional.binary_cross_entropy_with_logits(self.net(x), y)
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())

if __name__ == "__main__":
    trainer = L.Trainer(accelerator="cpu", devices=1, precision="16-mixed", max_epochs=1, logger=False)
    trainer.fit(M(), make_loader(256))
'''})

case("a07", "python fit_ckpt.py", files={"fit_ckpt.py": LT_HEAD + '''from lightning.pytorch.callbacks import ModelCheckpoint

class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.binary_cross_entropy_with_logits(self.net(x), y)
        self.log("train_loss", loss)
        return loss
    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", nn.functional.binary_cross_entropy_with_logits(self.net(x), y))
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

if __name__ == "__main__":
    ckpt = ModelCheckpoint(dirpath="checkpoints", filename="{epoch}-{val_loss:.3f}", save_top_k=3)
    trainer = L.Trainer(max_epochs=4, accelerator="cpu", callbacks=[ckpt], logger=False)
    trainer.fit(M(), make_loader(320, shuffle=True), make_loader(80))
'''})

case("a08", "python run_dm.py", files={"run_dm.py": LT_HEAD + '''
class DM(L.LightningDataModule):
    def __init__(self, batch_size=32):
        super().__init__(); self.batch_size = batch_size
    def train_dataloader(self):
        return make_loader(512, bs=self.batch_size, shuffle=True)
    def val_dataloader(self):
        return make_loader(128, bs=self.batch_size)

class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
    def training_step(self, batch, i):
        x, y = batch
        return nn.functional.binary_cross_entropy_with_logits(self.net(x), y)
    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", nn.functional.binary_cross_entropy_with_logits(self.net(x), y))
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

if __name__ == "__main__":
    dm = DM()
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", logger=False, enable_checkpointing=False)
    trainer.fit(M(), train_dataloaders=make_loader(512, shuffle=True), datamodule=dm)
'''})

# ---------- transformers ----------
WORDS = ("the a movie film was is great good bad awful boring fun plot acting story really very not "
         "loved hated it and but i this that so too long short music ending").split()
VOCAB = "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS) + "\n"
TF_DATA = '''import random
WORDS = %r
def make_texts(n, n_labels=2, seed=0):
    r = random.Random(seed)
    out = []
    for _ in range(n):
        lab = r.randrange(n_labels)
        out.append((" ".join(r.choice(WORDS) for _ in range(r.randint(4, 12))), lab))
    return out
''' % (WORDS,)
TF_HEAD = '''import torch
from datasets import Dataset
from transformers import (BertConfig, BertForSequenceClassification, BertTokenizerFast,
                          Trainer, TrainingArguments)
from textdata import make_texts

tok = BertTokenizerFast("tokenizer/vocab.txt")
def to_ds(pairs):
    ds = Dataset.from_dict({"text": [t for t, _ in pairs], "label": [l for _, l in pairs]})
    return ds.map(lambda b: tok(b["text"], truncation=True, max_length=32, padding="max_length"), batched=True)

def small_bert(**kw):
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64, **kw)
    return BertForSequenceClassification(cfg)
'''
TF_FILES = {"tokenizer/vocab.txt": VOCAB, "textdata.py": TF_DATA}

case("b01", "python finetune.py", files=dict(TF_FILES, **{"finetune.py": TF_HEAD + '''
train = to_ds(make_texts(256))
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, num_train_epochs=2,
                         eval_strategy="steps", eval_steps=10, logging_steps=10, save_strategy="no",
                         report_to=[], use_cpu=True)
trainer = Trainer(model=small_bert(), args=args, train_dataset=train)
trainer.train()
'''}))

case("b02", "python stream_train.py", files=dict(TF_FILES, **{"stream_train.py": '''import torch
from torch.utils.data import IterableDataset
from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast, Trainer, TrainingArguments
from textdata import make_texts

tok = BertTokenizerFast("tokenizer/vocab.txt")

class Stream(IterableDataset):
    """Reads (text, label) records one by one, as they arrive from the export."""
    def __iter__(self):
        for text, lab in make_texts(100000, seed=3):
            enc = tok(text, truncation=True, max_length=32, padding="max_length")
            yield {"input_ids": torch.tensor(enc["input_ids"]), "attention_mask": torch.tensor(enc["attention_mask"]),
                   "labels": torch.tensor(lab)}

cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=64, max_position_embeddings=64)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=32, num_train_epochs=1,
                         logging_steps=20, report_to=[], use_cpu=True)
Trainer(model=BertForSequenceClassification(cfg), args=args, train_dataset=Stream()).train()
'''}))

case("b03", "python train_cls.py", files=dict(TF_FILES, **{"train_cls.py": TF_HEAD + '''
# ratings 1..5 stars mapped to 0..4
train = to_ds(make_texts(200, n_labels=5, seed=1))
model = small_bert()
args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, num_train_epochs=1, logging_steps=5,
                         report_to=[], use_cpu=True, save_strategy="no")
Trainer(model=model, args=args, train_dataset=train).train()
'''}))

case("b04", "python finetune.py --resume", files=dict(TF_FILES, **{"finetune.py": TF_HEAD + '''import sys
train = to_ds(make_texts(256))
args = TrainingArguments(output_dir="outputs/run-a", per_device_train_batch_size=16, num_train_epochs=2,
                         save_steps=8, logging_steps=8, report_to=[], use_cpu=True)
trainer = Trainer(model=small_bert(), args=args, train_dataset=train)
trainer.train(resume_from_checkpoint="--resume" in sys.argv)
'''}))

case("b05", "python finetune.py", files=dict(TF_FILES, **{"finetune.py": TF_HEAD + '''import numpy as np
train = to_ds(make_texts(256)); val = to_ds(make_texts(64, seed=9))
def compute_metrics(p):
    preds = np.argmax(p.predictions, axis=-1)
    return {"accuracy": float((preds == p.label_ids).mean())}
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, num_train_epochs=2,
                         eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True,
                         metric_for_best_model="f1", logging_steps=8, report_to=[], use_cpu=True)
trainer = Trainer(model=small_bert(), args=args, train_dataset=train, eval_dataset=val,
                  compute_metrics=compute_metrics)
trainer.train()
'''}))

# ---------- datasets ----------
case("c01", "python prepare.py", files={"prepare.py": '''from datasets import load_dataset
ds = load_dataset("csv", data_files={"train": ["data/reviews_2023.csv", "data/reviews_2024.csv"]})
print(ds)
ds = ds.map(lambda r: {"n_chars": len(r["review"])})
ds.save_to_disk("prepared")
'''}, prep='''import csv, os, random
os.makedirs("data", exist_ok=True)
r = random.Random(0)
w = csv.writer(open("data/reviews_2023.csv", "w", newline=""))
w.writerow(["id", "review", "rating"])
for i in range(300): w.writerow([i, "review text %d" % i, r.randint(1, 5)])
w = csv.writer(open("data/reviews_2024.csv", "w", newline=""))
w.writerow(["id", "review", "stars", "verified"])
for i in range(300, 600): w.writerow([i, "review text %d" % i, r.randint(1, 5), r.choice(["yes", "no"])])
''')

case("c02", "python merge_sets.py", files={"merge_sets.py": '''from datasets import load_from_disk, concatenate_datasets
a = load_from_disk("data/labelled_v1")
b = load_from_disk("data/labelled_v2")
print(a.features); print(b.features)
full = concatenate_datasets([a, b]).shuffle(seed=0)
full.save_to_disk("data/labelled_all")
print(full)
'''}, prep='''from datasets import Dataset, ClassLabel, Features, Value
f1 = Features({"text": Value("string"), "label": ClassLabel(names=["neg", "pos"])})
Dataset.from_dict({"text": ["good %d" % i for i in range(50)], "label": [i % 2 for i in range(50)]}, features=f1).save_to_disk("data/labelled_v1")
Dataset.from_dict({"text": ["fine %d" % i for i in range(40)], "label": [i % 2 for i in range(40)]}).save_to_disk("data/labelled_v2")
''')

# ---------- peft ----------
case("d01", "python lora_ft.py", files=dict(TF_FILES, **{"lora_ft.py": TF_HEAD + '''from peft import LoraConfig, get_peft_model
model = small_bert(num_labels=2)
cfg = LoraConfig(task_type="SEQ_CLS", r=8, lora_alpha=16, lora_dropout=0.05,
                 target_modules=r".*attention.*")
model = get_peft_model(model, cfg)
model.print_trainable_parameters()
train = to_ds(make_texts(128))
args = TrainingArguments(output_dir="lora-out", per_device_train_batch_size=16, num_train_epochs=1,
                         report_to=[], use_cpu=True, save_strategy="no")
Trainer(model=model, args=args, train_dataset=train).train()
'''}))

# ---------- torchmetrics ----------
case("e01", "python eval_ckpt.py", files={"eval_ckpt.py": '''import torch
from torch import nn
from torchmetrics.classification import Accuracy, F1Score

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))   # spam / not spam
x = torch.randn(500, 16); y = (x[:, 0] > 0).long()
acc = Accuracy(task="binary"); f1 = F1Score(task="binary")
model.eval()
with torch.no_grad():
    for i in range(0, 500, 100):
        probs = model(x[i:i+100]).softmax(-1)
        acc.update(probs, y[i:i+100]); f1.update(probs, y[i:i+100])
print(f"acc={acc.compute():.3f} f1={f1.compute():.3f}")
'''})

# ---------- timm ----------
(lambda *a, **k: None)("f01", "python train_vit.py", files={"train_vit.py": '''import timm, torch
from torch import nn

model = timm.create_model("vit_tiny_patch16_224", pretrained=False, num_classes=10)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
torch.manual_seed(0)
for step in range(3):
    x = torch.randn(8, 3, 96, 96)          # our crops are 96x96 (STL-10 style)
    y = torch.randint(0, 10, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, "loss", round(loss.item(), 4))
'''})

(lambda *a, **k: None)("f02", "python bench_backbones.py", files={"bench_backbones.py": '''import time, timm, torch

for name in ["resnet-18", "efficientnet_b0", "convnext_atto"]:
    m = timm.create_model(name, pretrained=False, num_classes=5).eval()
    x = torch.randn(4, 3, 160, 160)
    t = time.time()
    with torch.no_grad(): m(x)
    print(f"{name}: {sum(p.numel() for p in m.parameters())/1e6:.1f}M params, {time.time()-t:.3f}s")
'''})

# ---------- hydra / omegaconf ----------
HY_APP = '''import hydra, torch
from omegaconf import DictConfig, OmegaConf

@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg: DictConfig):
    print(OmegaConf.to_yaml(cfg))
    model = torch.nn.Linear(cfg.model.in_dim, cfg.model.out_dim)
    opt = hydra.utils.instantiate(cfg.optimizer, params=model.parameters())
    for epoch in range(cfg.trainer.max_epochs):
        x = torch.randn(cfg.data.batch_size, cfg.model.in_dim)
        loss = model(x).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")

if __name__ == "__main__":
    main()
'''
HY_CONF = '''model:
  in_dim: 32
  out_dim: 4
data:
  batch_size: 64
optimizer:
  _target_: torch.optim.SGD
  lr: ${lr}
  momentum: 0.9
trainer:
  max_epochs: 3
lr: 0.01
'''
case("g01", "python app.py", files={"app.py": HY_APP, "conf/config.yaml": HY_CONF.replace("lr: 0.01\n", "lr: ???\n")})
case("g02", "python app.py trainer.epochs=5 data.batch_size=128", files={"app.py": HY_APP, "conf/config.yaml": HY_CONF})
case("g03", "python app.py", files={"app.py": HY_APP, "conf/config.yaml": HY_CONF.replace("torch.optim.SGD\n  lr: ${lr}\n  momentum: 0.9", "torch.optim.Adamw\n  lr: ${lr}\n  weight_decay: 0.01")})
case("g04", "python src/app.py", files={"src/app.py": HY_APP, "configs/config.yaml": HY_CONF})

# ---------- webdataset ----------
WDS_PREP = '''import io, os, tarfile, numpy as np
os.makedirs("shards", exist_ok=True)
for s in range(4):
    with tarfile.open("shards/train-%%04d.tar" %% s, "w") as tf:
        for i in range(32):
            key = "s%%d_%%05d" %% (s, i)
            for ext, data in ((%r, np.random.rand(3, 8, 8).astype("float32").tobytes()), ("cls", str(i %% 3).encode())):
                ti = tarfile.TarInfo(key + "." + ext); ti.size = len(data); tf.addfile(ti, io.BytesIO(data))
'''
WDS_TRAIN = '''import os, numpy as np, torch, torch.distributed as dist
import webdataset as wds
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
def decode(sample):
    x = torch.from_numpy(np.frombuffer(sample[0], dtype="float32").reshape(3, 8, 8).copy())
    return x, int(sample[1])
urls = "shards/train-{0000..0003}.tar"
ds = %s
loader = wds.WebLoader(ds, batch_size=16, num_workers=%d)
model = DDP(torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(192, 3)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    n = 0
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step(); n += 1
    print(f"rank {rank} epoch {epoch}: {n} batches, loss {loss.item():.3f}", flush=True)
dist.destroy_process_group()
'''
case("h01", "torchrun --nproc-per-node 2 train_wds.py",
     files={"train_wds.py": WDS_TRAIN % ('wds.WebDataset(urls, shardshuffle=False).to_tuple("npy", "cls").map(decode)', 0)},
     prep=WDS_PREP % ("npy",))
case("h02", "python check_shards.py; torchrun --nproc-per-node 2 train_wds.py",
     files={"train_wds.py": WDS_TRAIN % ('wds.WebDataset(urls, shardshuffle=False, nodesplitter=wds.split_by_node).to_tuple("npy", "cls").map(decode)', 0),
            "check_shards.py": "import tarfile, glob\nfor f in sorted(glob.glob('shards/*.tar')):\n    names = tarfile.open(f).getnames()\n    print(f, len(names), 'members, e.g.', names[:2])\n"},
     prep=WDS_PREP % ("raw",))

# ---------- torch.distributed (torchrun, gloo, CPU) ----------
case("i01", "torchrun --nproc-per-node 2 train_ddp.py", files={"train_ddp.py": '''import os, torch, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset, DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP

x = torch.randn(1024, 32); y = torch.randint(0, 4, (1024,))
ds = TensorDataset(x, y)
sampler = DistributedSampler(ds, shuffle=True, seed=0)
loader = DataLoader(ds, batch_size=64, sampler=sampler)

dist.init_process_group(backend="gloo")
model = DDP(torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
    if dist.get_rank() == 0: print("epoch", epoch, "loss", loss.item())
dist.destroy_process_group()
'''})

case("i02", "torchrun --nproc-per-node 2 train_lazy.py", files={"train_lazy.py": '''import torch, torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
# input width depends on the feature set, so let the first layer infer it
model = nn.Sequential(nn.LazyLinear(128), nn.ReLU(), nn.LazyLinear(10))
model = DDP(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(32, 57); y = torch.randint(0, 10, (32,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 5 == 0: print("step", step, loss.item())
dist.destroy_process_group()
'''})

# ---------- accelerate ----------
case("j01", "accelerate launch --cpu --num_processes 1 train_acc.py", files={"train_acc.py": '''import torch
from accelerate import Accelerator

accelerator = Accelerator(mixed_precision="fp16")
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(512, 64), torch.randn(512, 1)), batch_size=32)
model, opt, data = accelerator.prepare(model, opt, data)
for epoch in range(2):
    for x, y in data:
        loss = torch.nn.functional.mse_loss(model(x), y)
        accelerator.backward(loss); opt.step(); opt.zero_grad()
    accelerator.print("epoch", epoch, loss.item())
'''})

case("a09", "python finetune_and_test.py", files={"finetune_and_test.py": LT_HEAD + '''
class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.binary_cross_entropy_with_logits(self.net(x), y)
        self.log("train_loss", loss)
        return loss
    def validation_step(self, batch, i):
        x, y = batch
        acc = ((self.net(x) > 0).float() == y).float().mean()
        self.log("val_acc", acc, prog_bar=True)
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

if __name__ == "__main__":
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", logger=False, enable_checkpointing=False)
    model = M()
    trainer.fit(model, make_loader(320, shuffle=True), make_loader(64))
    trainer.test(model, dataloaders=make_loader(200))
'''})

case("c03", "python split.py", files={"split.py": '''from datasets import load_dataset
ds = load_dataset("json", data_files="data/tickets.jsonl", split="train")
print(ds)
splits = ds.train_test_split(test_size=0.2, stratify_by_column="priority", seed=42)
splits.save_to_disk("data/tickets_split")
print(splits)
'''}, prep='''import json, os, random
os.makedirs("data", exist_ok=True); r = random.Random(1)
with open("data/tickets.jsonl", "w") as f:
    for i in range(400):
        f.write(json.dumps({"id": i, "body": "ticket body %d" % i, "priority": r.choice([0, 0, 0, 1, 1, 2])}) + "\\n")
''')

# ---------- healthy runs ----------
case("k01", "python fit_ddp.py", files={"fit_ddp.py": LT_HEAD + '''
class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.binary_cross_entropy_with_logits(self.net(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss
    def validation_step(self, batch, i):
        x, y = batch
        self.log("val_loss", nn.functional.binary_cross_entropy_with_logits(self.net(x), y), prog_bar=True)
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-2)

if __name__ == "__main__":
    trainer = L.Trainer(max_epochs=3, accelerator="cpu", devices=2, strategy="ddp", logger=False,
                        default_root_dir="runs", enable_progress_bar=False)
    trainer.fit(M(), make_loader(640, shuffle=True), make_loader(128))
    if trainer.global_rank == 0: print("best:", trainer.checkpoint_callback.best_model_path)
'''}, timeout=240)

case("k02", "python finetune.py", files=dict(TF_FILES, **{"finetune.py": TF_HEAD + '''import numpy as np
train = to_ds(make_texts(256)); val = to_ds(make_texts(64, seed=9))
def compute_metrics(p):
    return {"accuracy": float((np.argmax(p.predictions, -1) == p.label_ids).mean())}
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, num_train_epochs=2,
                         eval_strategy="epoch", save_strategy="epoch", load_best_model_at_end=True,
                         metric_for_best_model="accuracy", logging_steps=8, report_to=[], use_cpu=True,
                         save_total_limit=1)
trainer = Trainer(model=small_bert(), args=args, train_dataset=train, eval_dataset=val,
                  compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
'''}))

case("k03", "torchrun --nproc-per-node 2 train_ddp.py", files={"train_ddp.py": '''import torch, torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset, DistributedSampler
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group(backend="gloo")
rank = dist.get_rank()
g = torch.Generator().manual_seed(0)
ds = TensorDataset(torch.randn(1024, 32, generator=g), torch.randint(0, 4, (1024,), generator=g))
sampler = DistributedSampler(ds, shuffle=True, seed=0)
loader = DataLoader(ds, batch_size=64, sampler=sampler, num_workers=1)
model = DDP(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)),
            find_unused_parameters=True)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    sampler.set_epoch(epoch)
    for xb, yb in loader:
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {rank}] epoch {epoch} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''})

case("k04", "python app.py -m optimizer.lr=0.01,0.1 data.batch_size=32", files={"app.py": HY_APP, "conf/config.yaml": HY_CONF.replace("lr: ${lr}", "lr: 0.05").replace("lr: 0.01\n", "")})

case("k05", "accelerate launch --cpu --num_processes 1 eval_acc.py", files={"eval_acc.py": '''import torch
from accelerate import Accelerator
from datasets import Dataset
from torchmetrics.classification import MulticlassAccuracy

acc = Accelerator(cpu=True)
ds = Dataset.from_dict({"x": torch.randn(600, 16).tolist(), "y": torch.randint(0, 3, (600,)).tolist()})
ds = ds.map(lambda r: {"x": [v * 0.5 for v in r["x"]]}, num_proc=2).with_format("torch")
loader = torch.utils.data.DataLoader(ds, batch_size=50)
model = torch.nn.Linear(16, 3)
metric = MulticlassAccuracy(num_classes=3)
model, loader = acc.prepare(model, loader)
print("before any batch:", metric.compute())
with torch.no_grad():
    for b in loader:
        preds, ys = acc.gather_for_metrics((model(b["x"]).argmax(-1), b["y"]))
        metric.update(preds, ys)
acc.print("accuracy:", metric.compute().item())
'''})

case("k06", "python check_shards.py; torchrun --nproc-per-node 2 train_wds.py",
     files={"train_wds.py": WDS_TRAIN % ('wds.WebDataset(urls, shardshuffle=False, nodesplitter=wds.split_by_node).to_tuple("npy", "cls").map(decode)', 2),
            "check_shards.py": "import tarfile, glob\nfor f in sorted(glob.glob('shards/*.tar')):\n    names = tarfile.open(f).getnames()\n    print(f, len(names), 'members, e.g.', names[:2])\n"},
     prep=WDS_PREP % ("npy",))

case("k07", "python lora_ft.py", files=dict(TF_FILES, **{"lora_ft.py": TF_HEAD + '''from peft import LoraConfig, get_peft_model
model = small_bert(num_labels=2)
cfg = LoraConfig(task_type="SEQ_CLS", r=8, lora_alpha=16, lora_dropout=0.05, target_modules=["query", "value"])
model = get_peft_model(model, cfg)
model.print_trainable_parameters()
train = to_ds(make_texts(128))
args = TrainingArguments(output_dir="lora-out", per_device_train_batch_size=16, num_train_epochs=1,
                         logging_steps=4, report_to=[], use_cpu=True, save_strategy="no")
Trainer(model=model, args=args, train_dataset=train).train()
model.save_pretrained("lora-out/adapter")
print("adapter saved")
'''}))

case("i04", "torchrun --nproc-per-node 2 eval_dist.py", files={"eval_dist.py": '''import torch
from accelerate import Accelerator

acc = Accelerator(cpu=True)
torch.manual_seed(0)
model = torch.nn.Linear(16, 3)
x = torch.randn(400, 16); y = torch.randint(0, 3, (400,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=50)
model, loader = acc.prepare(model, loader)
correct = 0; seen = 0
with torch.no_grad():
    for xb, yb in loader:
        correct += (model(xb).argmax(-1) == yb).sum().item(); seen += len(yb)
correct, seen = acc.gather(correct), acc.gather(seen)
acc.print("accuracy:", sum(correct) / sum(seen))
'''})

case("i06", "torchrun --nproc-per-node 2 fit.py", files={"fit.py": LT_HEAD + '''
class M(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
    def training_step(self, batch, i):
        x, y = batch
        loss = nn.functional.binary_cross_entropy_with_logits(self.net(x), y)
        self.log("train_loss", loss)
        return loss
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-2)

if __name__ == "__main__":
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", strategy="ddp", logger=False, enable_checkpointing=False)
    trainer.fit(M(), make_loader(640, shuffle=True))
'''})
