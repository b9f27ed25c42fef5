#!/usr/bin/env python3
"""P9: plant failures in the launchers and trainers users run on GPU nodes (accelerate, DeepSpeed, the HF Trainer,
torchrun, plain DDP / FSDP2 / torch.distributed.checkpoint) on a real 2x H100 machine; keep verbatim logs for an
independent held-out set for `gpudoctor explain` (issue 18). Made by the eval-p9 evaluator.

Self-contained: writes each scenario's program(s) and config files into a neutral job folder /tmp/p9-XXXX/jobNN/
(no case name in any path, file or program output), runs the scenario's shell command there under a wall-clock limit
(whole process group killed at the limit), saves stdout+stderr verbatim to $OUT/<name>.log, then packs the logs into
$OUT/logs.tar.gz and writes $OUT/manifest.json (command, extra env, files, exit status, seconds, machine facts incl.
versions and `nvidia-smi topo -m`). NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1
are forced (multicast off); no GPU setting is changed.

    OUT=/tmp/out python3 plant9.py [NAMES]
"""
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

PY = sys.executable
BIN = os.path.dirname(PY)
T_START = time.time()
START_BY_S = float(os.environ.get("P9_START_BY_S", "230"))
END_BY_S = float(os.environ.get("P9_END_BY_S", "300"))

# ---------------------------------------------------------------- programs
RUN_CLM = r'''
import logging
import sys
from dataclasses import dataclass, field

import torch
from transformers import (GPT2Config, GPT2LMHeadModel, HfArgumentParser, Trainer, TrainingArguments,
                          set_seed)

logger = logging.getLogger(__name__)


@dataclass
class ModelArguments:
    n_layer: int = field(default=4, metadata={"help": "number of transformer blocks"})
    n_embd: int = field(default=256)
    block_size: int = field(default=128)
    num_train_samples: int = field(default=1024)


class PackedTokens(torch.utils.data.Dataset):
    """stands in for the tokenized, packed corpus"""
    def __init__(self, n, block, vocab, seed):
        g = torch.Generator().manual_seed(seed)
        self.ids = torch.randint(0, vocab, (n, block), generator=g)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i].clone()}


def main():
    parser = HfArgumentParser((ModelArguments, TrainingArguments))
    model_args, training_args = parser.parse_args_into_dataclasses()
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                        datefmt="%m/%d/%Y %H:%M:%S", handlers=[logging.StreamHandler(sys.stdout)])
    logger.setLevel(logging.INFO if training_args.local_rank in (-1, 0) else logging.WARN)
    logger.warning(f"Process rank: {training_args.local_rank}, device: {training_args.device}, "
                   f"n_gpu: {training_args.n_gpu}, distributed training: {training_args.parallel_mode.value}, "
                   f"16-bits training: {training_args.fp16}")
    set_seed(training_args.seed)
    config = GPT2Config(n_layer=model_args.n_layer, n_embd=model_args.n_embd, n_head=4,
                        n_positions=model_args.block_size, vocab_size=8192)
    model = GPT2LMHeadModel(config)
    logger.info(f"Training new model from scratch - Total size={sum(p.numel() for p in model.parameters())/2**20:.2f}M params")
    train_dataset = PackedTokens(model_args.num_train_samples, model_args.block_size, config.vocab_size, 0)
    eval_dataset = PackedTokens(64, model_args.block_size, config.vocab_size, 1)
    trainer = Trainer(model=model, args=training_args, train_dataset=train_dataset, eval_dataset=eval_dataset)
    train_result = trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.save_model()
    trainer.log_metrics("train", train_result.metrics)
    metrics = trainer.evaluate()
    trainer.log_metrics("eval", metrics)


if __name__ == "__main__":
    main()
'''

TRAIN_CLS = r'''
import torch
import torch.nn.functional as F
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

LABELS = ["negative", "neutral", "positive"]


class Reviews(torch.utils.data.Dataset):
    def __init__(self, n=512, seq=64):
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(1, 5000, (n, seq), generator=g)
        self.y = torch.randint(0, len(LABELS), (n,), generator=g)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones_like(self.ids[i]), "labels": self.y[i]}


class WeightedLossTrainer(Trainer):
    """class-weighted cross entropy: the positive class is rare in our data"""
    def __init__(self, *a, class_weights=None, **kw):
        super().__init__(*a, **kw)
        self.class_weights = class_weights

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = F.cross_entropy(outputs.logits, labels, weight=self.class_weights.to(outputs.logits.device))
        return loss, outputs


def main():
    cfg = BertConfig(vocab_size=5000, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                     intermediate_size=1024, num_labels=len(LABELS))
    model = BertForSequenceClassification(cfg)
    args = TrainingArguments(output_dir="out-sentiment", per_device_train_batch_size=16, max_steps=30,
                             logging_steps=5, learning_rate=5e-5, bf16=True, report_to="none", save_strategy="no")
    trainer = WeightedLossTrainer(model=model, args=args, train_dataset=Reviews(),
                                  class_weights=torch.tensor([1.0, 1.0, 3.0]))
    trainer.train()
    trainer.save_model()


if __name__ == "__main__":
    main()
'''

TRAIN_TICKETS = r'''
import csv
import io

import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

# ticket priority classifier; labels come from the annotation export (priority column)
CSV = "text_ids,priority\n" + "\n".join(f"{' '.join(str((i * 7 + j) % 4000 + 1) for j in range(32))},{float(i % 3)}"
                                          for i in range(400))


class Tickets(torch.utils.data.Dataset):
    def __init__(self):
        rows = list(csv.DictReader(io.StringIO(CSV)))
        self.ids = [torch.tensor([int(t) for t in r["text_ids"].split()]) for r in rows]
        self.labels = [torch.tensor(float(r["priority"])) for r in rows]

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.labels[i]}


def main():
    cfg = BertConfig(vocab_size=4096, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=512, num_labels=3)
    model = BertForSequenceClassification(cfg)
    args = TrainingArguments(output_dir="out-priority", per_device_train_batch_size=8, num_train_epochs=1,
                             logging_steps=10, report_to="none", save_strategy="no")
    print(f"train examples: {len(Tickets())}, labels: low/medium/high", flush=True)
    Trainer(model=model, args=args, train_dataset=Tickets()).train()


if __name__ == "__main__":
    main()
'''

ACC_TRAIN = r'''
import time

import torch
import torch.nn as nn
from accelerate import Accelerator


def main():
    accelerator = Accelerator()
    print(f"[process {accelerator.process_index}/{accelerator.num_processes}] device={accelerator.device} "
          f"distributed_type={accelerator.distributed_type} mixed_precision={accelerator.mixed_precision}", flush=True)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 4096), nn.GELU(), nn.Linear(4096, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    data = torch.utils.data.TensorDataset(torch.randn(8192, 1024), torch.randint(0, 10, (8192,)))
    loader = torch.utils.data.DataLoader(data, batch_size=64, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    model.train()
    t0 = time.time()
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        if step % 20 == 0:
            accelerator.print(f"step {step}/{len(loader)} loss {loss.item():.4f} {time.time() - t0:.1f}s")
    accelerator.wait_for_everyone()
    accelerator.print(f"epoch done in {time.time() - t0:.1f}s, {len(loader)} steps per process")
    accelerator.end_training()


if __name__ == "__main__":
    main()
'''

TRAIN_DS = r'''
import argparse
import time

import deepspeed
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, d=512, classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, 2048), nn.GELU(), nn.Linear(2048, 2048), nn.GELU(), nn.Linear(2048, d))
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        return self.head(self.body(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--export", default="")
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    deepspeed.init_distributed()
    torch.manual_seed(0)
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, optimizer=optimizer)
    dtype = torch.bfloat16 if engine.bfloat16_enabled() else (torch.half if engine.fp16_enabled() else torch.float)
    t0 = time.time()
    for step in range(args.steps):
        x = torch.randn(engine.train_micro_batch_size_per_gpu(), 512, device=engine.device, dtype=dtype)
        y = torch.randint(0, 10, (x.size(0),), device=engine.device)
        loss = nn.functional.cross_entropy(engine(x).float(), y)
        engine.backward(loss)
        engine.step()
        if engine.global_rank == 0 and step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f} ({time.time() - t0:.1f}s)", flush=True)
    if args.export:
        engine.save_16bit_model(args.export)
        if engine.global_rank == 0:
            print(f"exported model to {args.export}/", flush=True)
    if engine.global_rank == 0:
        print("training finished", flush=True)


if __name__ == "__main__":
    main()
'''

TRAIN_DS_TIED = r'''
import argparse

import deepspeed
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, vocab=8000, d=512):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.mlp = nn.Sequential(nn.Linear(d, 2048), nn.GELU(), nn.Linear(2048, d))
        self.norm = nn.LayerNorm(d)

    def forward(self, ids):
        return self.norm(self.mlp(self.embed(ids)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    args = parser.parse_args()
    deepspeed.init_distributed()
    model = Encoder()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, optimizer=optimizer)
    for step in range(20):
        ids = torch.randint(0, 8000, (8, 128), device=engine.device)
        hidden = engine(ids)
        # output projection tied to the input embedding (saves 4M parameters)
        logits = hidden.float() @ engine.module.embed.weight.float().t()
        loss = nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), ids.view(-1))
        engine.backward(loss)
        engine.step()
        if engine.global_rank == 0 and step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)


if __name__ == "__main__":
    main()
'''

COMMON_DIST = r'''
import datetime
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn

RANK = int(os.environ.get("RANK", "0"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))


def setup(seconds=30):
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=seconds),
                            device_id=torch.device("cuda", LOCAL_RANK))
    return torch.device("cuda", LOCAL_RANK)
'''

TRAIN_FSDP_MIXED = COMMON_DIST + r'''
from torch.distributed.fsdp import fully_shard


class LM(nn.Module):
    def __init__(self, vocab=32000, d=1024, layers=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(nn.TransformerEncoderLayer(d, 16, 4 * d, batch_first=True) for _ in range(layers))
        self.out = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        h = self.tok(ids).float()
        for b in self.blocks:
            h = b(h)
        return self.out(h)


dev = setup()
model = LM().to(dev)
model.tok.to(torch.bfloat16)  # the embedding table is the biggest tensor: keep it in bf16 to save memory
for block in model.blocks:
    fully_shard(block)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(5):
    ids = torch.randint(0, 32000, (4, 256), device=dev)
    loss = nn.functional.cross_entropy(model(ids).flatten(0, 1), ids.flatten())
    loss.backward()
    opt.step()
    opt.zero_grad()
    if RANK == 0:
        print(f"step {step} loss {loss.item():.3f}", flush=True)
dist.destroy_process_group()
'''

TRAIN_FSDP_AUX = COMMON_DIST + r'''
from torch.distributed.fsdp import fully_shard


class Model(nn.Module):
    def __init__(self, d=1024):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.proj = nn.Linear(d, 256)
        self.cls = nn.Linear(d, 100)

    def forward(self, x):
        return self.cls(self.encoder(x))


dev = setup()
model = Model().to(dev)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(5):
    x = torch.randn(32, 1024, device=dev)
    y = torch.randint(0, 100, (32,), device=dev)
    logits = model(x)
    # contrastive auxiliary loss on the projected features
    z = nn.functional.normalize(model.proj(x), dim=-1)
    aux = (z @ z.t()).mean()
    loss = nn.functional.cross_entropy(logits, y) + 0.1 * aux
    loss.backward()
    opt.step()
    opt.zero_grad()
    if RANK == 0:
        print(f"step {step} loss {loss.item():.3f}", flush=True)
dist.destroy_process_group()
'''

TRAIN_FSDP_DCP = COMMON_DIST + r'''
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.fsdp import fully_shard

dev = setup()
torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)) for _ in range(4)]).to(dev)
for layer in model:
    fully_shard(layer)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
ckpt = os.path.join(os.getcwd(), "checkpoints", "step-20")
for step in range(1, 21):
    x = torch.randn(16, 1024, device=dev)
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 10 == 0 and RANK == 0:
        print(f"step {step} loss {loss.item():.5f}", flush=True)
msd, osd = get_state_dict(model, opt)
dcp.save({"model": msd, "optim": osd}, checkpoint_id=ckpt)
if RANK == 0:
    print(f"saved sharded checkpoint to {ckpt}", flush=True)
msd, osd = get_state_dict(model, opt)
state = {"model": msd, "optim": osd}
dcp.load(state, checkpoint_id=ckpt)
set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
if RANK == 0:
    print("reloaded checkpoint, resuming", flush=True)
dist.barrier()
dist.destroy_process_group()
'''

TRAIN_DDP = COMMON_DIST + r'''
from torch.nn.parallel import DistributedDataParallel as DDP

dev = setup()
if RANK == 0:
    print(f"world size {WORLD}", flush=True)
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(2048, 8192), nn.GELU(), nn.Linear(8192, 2048)).to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
t0 = time.time()
for step in range(1, 201):
    x = torch.randn(64, 2048, device=dev)
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if step % 50 == 0:
        torch.cuda.synchronize()
        print(f"[rank {RANK}] step {step} loss {loss.item():.5f} {1000 * (time.time() - t0) / 50:.1f} ms/step", flush=True)
        t0 = time.time()
dist.destroy_process_group()
'''

ALLREDUCE = COMMON_DIST + r'''
dev = setup(20)
x = torch.ones(1 << 24, device=dev)
dist.all_reduce(x)
torch.cuda.synchronize()
print(f"rank {RANK}: all_reduce ok {x[0].item()}", flush=True)
dist.destroy_process_group()
'''

EVAL_GRAPH = r'''
import torch
import torch.nn as nn

torch.manual_seed(0)
dev = "cuda"
model = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 1000)).to(dev).eval()
model = torch.compile(model, mode="reduce-overhead")
loader = [torch.randn(64, 512) for _ in range(8)]
all_logits = []
with torch.no_grad():
    for i, batch in enumerate(loader):
        logits = model(batch.to(dev))
        all_logits.append(logits)
        print(f"batch {i} done", flush=True)
preds = torch.cat(all_logits).argmax(-1)
print("predictions:", preds[:10].tolist())
'''

TRAIN_GRAPH = r'''
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
crit = nn.CrossEntropyLoss()
static_x = torch.randn(128, 1024, device="cuda")
static_y = torch.randint(0, 10, (128,), device="cuda")

# warm up on a side stream before capture, as the CUDA graphs docs say
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        crit(model(static_x), static_y).backward()
        opt.step()
torch.cuda.current_stream().wait_stream(s)
print("warmup done, capturing the training step", flush=True)

g = torch.cuda.CUDAGraph()
opt.zero_grad(set_to_none=True)
with torch.cuda.graph(g):
    static_loss = crit(model(static_x), static_y)
    if not torch.isfinite(static_loss).item():
        raise RuntimeError("non-finite loss")
    static_loss.backward()
    opt.step()

for step in range(10):
    static_x.copy_(torch.randn(128, 1024, device="cuda"))
    g.replay()
print("loss", static_loss.item())
'''

ATTN = r'''
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


class CausalSelfAttention(torch.nn.Module):
    def __init__(self, d=1024, heads=16):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.o = torch.nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        # we only want the flash kernel: the math fallback is too slow for 8k context
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o(y.transpose(1, 2).reshape(b, t, d))


attn = CausalSelfAttention().cuda()
x = torch.randn(2, 8192, 1024, device="cuda")
print("input", tuple(x.shape), x.dtype, flush=True)
y = attn(x)
y.sum().backward()
print("ok", y.shape)
'''

PIN_LOADER = r'''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class GPUFeatures(Dataset):
    """features are pre-computed once and kept on the GPU to avoid host->device copies"""
    def __init__(self, n=4096):
        self.x = torch.randn(n, 256, device="cuda")
        self.y = torch.randint(0, 5, (n,), device="cuda")

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 5)).cuda()
opt = torch.optim.Adam(model.parameters())
loader = DataLoader(GPUFeatures(), batch_size=128, shuffle=True, pin_memory=True)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    print(f"epoch {epoch} loss {loss.item():.3f}", flush=True)
'''

RECOMPILE = r'''
import random
import time

import torch
import torch.nn as nn

random.seed(0)
torch.manual_seed(0)


class Tagger(nn.Module):
    def __init__(self, vocab=20000, d=512):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 8, 2048, batch_first=True), 2)
        self.head = nn.Linear(d, 17)

    def forward(self, ids):
        return self.head(self.enc(self.emb(ids)))


model = torch.compile(Tagger().cuda(), dynamic=False)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
t0 = time.time()
for step in range(1, 61):
    seq = random.choice(range(40, 200, 7))  # sentences are not padded to a fixed length
    ids = torch.randint(0, 20000, (32, seq), device="cuda")
    tags = torch.randint(0, 17, (32, seq), device="cuda")
    loss = nn.functional.cross_entropy(model(ids).flatten(0, 1), tags.flatten())
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 10 == 0:
        torch.cuda.synchronize()
        print(f"step {step} loss {loss.item():.3f} {1000 * (time.time() - t0) / 10:.0f} ms/step", flush=True)
        t0 = time.time()
'''

FLAT_LOSS = r'''
import torch
import torch.nn as nn

torch.manual_seed(0)
# 10-class toy problem that a small MLP learns in a few hundred steps
w_true = torch.randn(64, 10)
x_all = torch.randn(20000, 64)
y_all = (x_all @ w_true).argmax(-1)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(1, 401):
    idx = torch.randint(0, len(x_all), (256,))
    x, y = x_all[idx].cuda(), y_all[idx].cuda()
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    loss.backward()
    opt.zero_grad()
    opt.step()
    if step % 50 == 0:
        acc = (logits.argmax(-1) == y).float().mean().item()
        print(f"step {step:4d}  loss {loss.item():.4f}  acc {acc:.3f}", flush=True)
'''

MEM_GROWTH = r'''
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(4096, 4096), nn.GELU()) for _ in range(6)], nn.Linear(4096, 1)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
running = []
for step in range(1, 41):
    x = torch.randn(512, 4096, device="cuda")
    y = torch.randn(512, 1, device="cuda")
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    running.append(loss)
    avg = sum(running[-20:]) / len(running[-20:])
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f} avg {avg.item():.4f} "
              f"mem {torch.cuda.memory_allocated() / 2**30:.2f} GiB reserved {torch.cuda.memory_reserved() / 2**30:.2f} GiB",
              flush=True)
'''

TOKENIZE_TRAIN = r'''
import torch
import torch.nn as nn
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

corpus = [f"the quick brown fox {i} jumps over the lazy dog number {i * 7}" for i in range(5000)]
tok = Tokenizer(models.BPE(unk_token="[UNK]"))
tok.pre_tokenizer = pre_tokenizers.Whitespace()
tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=2000, special_tokens=["[UNK]", "[PAD]"]))
tok.enable_padding(pad_id=1, pad_token="[PAD]", length=24)
tok.enable_truncation(24)
enc = tok.encode_batch(corpus)
print(f"tokenized {len(enc)} lines, vocab {tok.get_vocab_size()}", flush=True)


class Lines(torch.utils.data.Dataset):
    def __len__(self):
        return len(corpus)

    def __getitem__(self, i):
        return torch.tensor(tok.encode(corpus[i]).ids)


loader = torch.utils.data.DataLoader(Lines(), batch_size=128, num_workers=2, shuffle=True)
model = nn.Sequential(nn.Embedding(2000, 128), nn.Flatten(), nn.Linear(24 * 128, 2000)).cuda()
opt = torch.optim.Adam(model.parameters())
for epoch in range(2):
    for ids in loader:
        ids = ids.cuda()
        loss = nn.functional.cross_entropy(model(ids), ids[:, 0])
        loss.backward()
        opt.step()
        opt.zero_grad()
    print(f"epoch {epoch} loss {loss.item():.3f}", flush=True)
'''

HF_OFFLINE = r'''
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

name = "Qwen/Qwen2.5-0.5B-Instruct"
tokenizer = AutoTokenizer.from_pretrained(name)
model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16).cuda()
print(model.generate(**tokenizer("Hello", return_tensors="pt").to("cuda"), max_new_tokens=8))
'''

COMPILE_TRAIN = r'''
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
model = torch.compile(model)
opt = torch.optim.AdamW(model.parameters())
for step in range(20):
    loss = model(torch.randn(64, 1024, device="cuda")).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
'''

ALLOC_TRAIN = r'''
import torch
import torch.nn as nn

print("allocating model", flush=True)
model = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096)).cuda()
for step in range(10):
    out = model(torch.randn(256, 4096, device="cuda")).sum()
    out.backward()
print("max allocated %.1f MiB" % (torch.cuda.max_memory_allocated() / 2**20))
'''

# ---- run 2 ----
TRAIN_FSDP_AUX2 = TRAIN_FSDP_AUX.replace("""    logits = model(x)
    # contrastive auxiliary loss on the projected features
    z = nn.functional.normalize(model.proj(x), dim=-1)""", """    # contrastive auxiliary loss on the projected features
    z = nn.functional.normalize(model.proj(x), dim=-1)
    logits = model(x)""")

MEM_GROWTH2 = r'''
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 16384)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
train_logits, train_targets = [], []
for step in range(1, 61):
    x = torch.randn(512, 1024, device="cuda")
    y = torch.randint(0, 16384, (512,), device="cuda")
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    train_logits.append(logits)  # kept for the epoch-end top-5 accuracy
    train_targets.append(y)
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f} "
              f"mem {torch.cuda.memory_allocated() / 2**30:.2f} GiB reserved {torch.cuda.memory_reserved() / 2**30:.2f} GiB",
              flush=True)
top5 = (torch.cat(train_logits).topk(5, -1).indices == torch.cat(train_targets)[:, None]).any(-1).float().mean()
print(f"epoch top-5 acc {top5.item():.4f}")
'''

# ---------------------------------------------------------------- configs
MULTI_GPU_YAML_TYPO = '''# Specify distributed_type as `MULTI_GPU` for DDP
distributed_type: "MULTI_GPUS"
# Can be one of "no", "fp16", or "bf16" (see `transformer_engine.yaml` for `fp8`)
mixed_precision: "bf16"
# Specify the number of GPUs to use
num_processes: 2
'''


def ds_cfg(**over):
    cfg = {
        "train_micro_batch_size_per_gpu": 16,
        "gradient_accumulation_steps": 1,
        "gradient_clipping": 1.0,
        "bf16": {"enabled": True},
        "zero_optimization": {"stage": 2, "allgather_partitions": True, "allgather_bucket_size": 2e8,
                              "overlap_comm": True, "reduce_scatter": True, "reduce_bucket_size": 2e8,
                              "contiguous_gradients": True},
        "steps_per_print": 10,
        "wall_clock_breakdown": False,
    }
    for k, v in over.items():
        if v is None:
            cfg.pop(k, None)
        else:
            cfg[k] = v
    return json.dumps(cfg, indent=4) + "\n"


Z2 = {"stage": 2, "allgather_partitions": True, "allgather_bucket_size": 2e8, "overlap_comm": True,
      "reduce_scatter": True, "reduce_bucket_size": 2e8, "contiguous_gradients": True}
FP16 = {"enabled": True, "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 32, "hysteresis": 2,
        "min_loss_scale": 1}
Z3 = {"stage": 3, "overlap_comm": True, "contiguous_gradients": True, "sub_group_size": 1e9,
      "reduce_bucket_size": 2e8, "stage3_prefetch_bucket_size": 2e8, "stage3_param_persistence_threshold": 1e4,
      "stage3_max_live_parameters": 1e9, "stage3_max_reuse_distance": 1e9,
      "stage3_gather_16bit_weights_on_model_save": False}


def tr(port, prog, args="", extra=""):
    return "torchrun --nproc-per-node 2 --master-port %d %s%s %s" % (port, extra, prog, args)


def ds(port, prog, cfg="ds_config.json", args="", extra=""):
    return "deepspeed %s--master_port %d %s --deepspeed --deepspeed_config %s %s" % (extra, port, prog, cfg, args)


CLM = "--output_dir out --report_to none --per_device_train_batch_size 8 --max_steps 40 --logging_steps 10 " \
      "--save_strategy no"


def scenarios():
    W = {"NCCL_DEBUG": "WARN"}
    S = {}
    sc = {
        # ---------------- (a) user code ----------------
        "trainer_compute_loss_returns_tuple": dict(prog={"train_sentiment.py": TRAIN_CLS},
                                                   cmd="python train_sentiment.py", env=S, limit=90),
        "trainer_float_labels_multilabel": dict(prog={"train_priority.py": TRAIN_TICKETS},
                                                cmd="python train_priority.py", env=S, limit=90),
        "ds_zero3_param_used_outside_forward": dict(
            prog={"train_tied.py": TRAIN_DS_TIED},
            files={"ds_config.json": ds_cfg(zero_optimization=dict(Z3, stage3_param_persistence_threshold=1e3))},
            cmd=ds(29611, "train_tied.py"), env=W, limit=120),
        "fsdp2_mixed_param_dtype": dict(prog={"train_lm.py": TRAIN_FSDP_MIXED}, cmd=tr(29612, "train_lm.py"),
                                        env=W, limit=90),
        "fsdp2_submodule_called_outside_forward": dict(prog={"train_contrastive.py": TRAIN_FSDP_AUX},
                                                       cmd=tr(29613, "train_contrastive.py"), env=W, limit=90),
        "cudagraph_outputs_overwritten": dict(prog={"predict.py": EVAL_GRAPH}, cmd="python predict.py", env=S,
                                              limit=120),
        "cuda_graph_capture_item": dict(prog={"train_graph.py": TRAIN_GRAPH}, cmd="python train_graph.py", env=S,
                                        limit=60),
        "sdpa_flash_only_fp32": dict(prog={"attention.py": ATTN}, cmd="python attention.py", env=S, limit=60),
        "pin_memory_cuda_dataset": dict(prog={"train_probe.py": PIN_LOADER}, cmd="python train_probe.py", env=S,
                                        limit=60),
        # ---------------- (b) configuration / environment ----------------
        "trainer_fp16_and_bf16": dict(prog={"run_clm.py": RUN_CLM}, cmd="python run_clm.py %s --fp16 --bf16" % CLM,
                                      env=S, limit=60),
        "trainer_best_model_strategy_mismatch": dict(
            prog={"run_clm.py": RUN_CLM},
            cmd="python run_clm.py %s --load_best_model_at_end --eval_strategy steps --eval_steps 10"
                % CLM.replace("--save_strategy no", "--save_strategy epoch"), env=S, limit=60),
        "trainer_gc_reentrant_find_unused": dict(
            prog={"run_clm.py": RUN_CLM},
            cmd=tr(29614, "run_clm.py", CLM + " --bf16 --gradient_checkpointing --gradient_checkpointing_kwargs "
                   "'{\"use_reentrant\": true}' --ddp_find_unused_parameters true"), env=W, limit=120),
        "trainer_fsdp_layer_cls_wrong": dict(
            prog={"run_clm.py": RUN_CLM},
            cmd=tr(29615, "run_clm.py", CLM + " --bf16 --fsdp 'full_shard auto_wrap' --fsdp_config "
                   "'{\"transformer_layer_cls_to_wrap\": [\"LlamaDecoderLayer\"]}'"), env=W, limit=120),
        "acc_yaml_distributed_type_typo": dict(prog={"train.py": ACC_TRAIN},
                                               files={"multi_gpu.yaml": MULTI_GPU_YAML_TYPO},
                                               cmd="accelerate launch --config_file multi_gpu.yaml train.py",
                                               env=S, limit=60),
        "acc_multi_gpu_one_process": dict(prog={"train.py": ACC_TRAIN},
                                          cmd="accelerate launch --multi_gpu --num_processes 1 --main_process_port "
                                              "29616 train.py", env=S, limit=60),
        "ds_fp16_and_bf16_enabled": dict(prog={"train_ds.py": TRAIN_DS},
                                         files={"ds_config.json": ds_cfg(fp16=FP16)},
                                         cmd=ds(29617, "train_ds.py"), env=W, limit=120),
        "ds_zero_stage_4": dict(prog={"train_ds.py": TRAIN_DS},
                                files={"ds_config.json": ds_cfg(zero_optimization=dict(Z2, stage=4))},
                                cmd=ds(29618, "train_ds.py"), env=W, limit=120),
        "ds_offload_client_optimizer": dict(
            prog={"train_ds.py": TRAIN_DS},
            files={"ds_config.json": ds_cfg(zero_optimization=dict(Z2, offload_optimizer={"device": "cpu",
                                                                                          "pin_memory": True}))},
            cmd=ds(29619, "train_ds.py"), env=W, limit=120),
        "ds_include_gpus_absent": dict(prog={"train_ds.py": TRAIN_DS}, files={"ds_config.json": ds_cfg()},
                                       cmd=ds(29620, "train_ds.py", extra="--include localhost:2,3 "), env=W, limit=90),
        "torchrun_rdzv_id_differs": dict(
            prog={"allreduce.py": ALLREDUCE},
            cmd="(CUDA_VISIBLE_DEVICES=0 torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d "
                "--rdzv-endpoint 127.0.0.1:29621 --rdzv-id ft-run-0412 --rdzv-conf join_timeout=30 allreduce.py & "
                "p0=$!; sleep 2; CUDA_VISIBLE_DEVICES=1 torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d "
                "--rdzv-endpoint 127.0.0.1:29621 --rdzv-id ft-run-0413 --rdzv-conf join_timeout=30 allreduce.py & "
                "p1=$!; wait $p0; r0=$?; wait $p1; r1=$?; exit $(( r0 > r1 ? r0 : r1 )))", env=S, limit=75),
        "nccl_comm_id_stale": dict(prog={"allreduce.py": ALLREDUCE}, cmd=tr(29622, "allreduce.py"),
                                   env=dict(W, NCCL_COMM_ID="10.128.7.21:24567"), limit=75),
        "alloc_conf_roundup_not_pow2": dict(prog={"train.py": ALLOC_TRAIN}, cmd="python train.py",
                                            env={"PYTORCH_CUDA_ALLOC_CONF": "roundup_power2_divisions:3"}, limit=60),
        "hf_offline_not_cached": dict(prog={"chat.py": HF_OFFLINE}, cmd="python chat.py",
                                      env={"HF_HUB_OFFLINE": "1", "HF_HOME": "@JOB@/hf-home"}, limit=60),
        "triton_cache_dir_is_file": dict(prog={"train.py": COMPILE_TRAIN}, files={"triton-cache": "stale\n"},
                                         cmd="python train.py",
                                         env={"TRITON_CACHE_DIR": "@JOB@/triton-cache",
                                              "TORCHINDUCTOR_CACHE_DIR": "@JOB@/inductor-cache"}, limit=120),
        "nccl_ctas_min_gt_max": dict(prog={"allreduce.py": ALLREDUCE}, cmd=tr(29623, "allreduce.py"),
                                     env=dict(W, NCCL_MIN_CTAS="32", NCCL_MAX_CTAS="4"), limit=60),
        # ---------------- (c) told in words ----------------
        "w_recompile_limit_varlen": dict(prog={"train_tagger.py": RECOMPILE}, cmd="python train_tagger.py", env=S,
                                         limit=150),
        "w_zero_grad_before_step": dict(prog={"train_toy.py": FLAT_LOSS}, cmd="python train_toy.py", env=S, limit=60),
        "w_loss_tensor_kept_memory_grows": dict(prog={"train_reg.py": MEM_GROWTH}, cmd="python train_reg.py",
                                                env=S, limit=60),
        "w_python_instead_of_accelerate_launch": dict(prog={"train.py": ACC_TRAIN}, cmd="python train.py", env=S,
                                                      limit=60),
        "w_cuda_launch_blocking_left_on": dict(
            prog={"train_ddp.py": TRAIN_DDP},
            cmd="echo \"job on $(hostname) at $(date -u +%FT%TZ)\"; env | grep -E '^(CUDA|NCCL|OMP|PYTORCH)' | sort; "
                + tr(29624, "train_ddp.py"),
            env=dict(W, CUDA_LAUNCH_BLOCKING="1"), limit=120),
        "w_ds_zero3_save_16bit_off": dict(prog={"train_ds.py": TRAIN_DS},
                                          files={"ds_config.json": ds_cfg(zero_optimization=Z3)},
                                          cmd=ds(29625, "train_ds.py", args="--steps 20 --export final_model"),
                                          env=W, limit=120),
        # ---------------- (d) healthy ----------------
        "healthy_torchrun_tee_log_dir": dict(prog={"train_ddp.py": TRAIN_DDP},
                                             cmd=tr(29626, "train_ddp.py", extra="--tee 3 --log-dir torchrun-logs "),
                                             env=W, limit=90),
        "healthy_ds_fp16_overflow_warmup": dict(prog={"train_ds.py": TRAIN_DS},
                                                files={"ds_config.json": ds_cfg(bf16=None, fp16=FP16)},
                                                cmd=ds(29627, "train_ds.py", args="--steps 40"), env=W, limit=120),
        "healthy_trainer_ddp_grad_ckpt": dict(prog={"run_clm.py": RUN_CLM},
                                              cmd=tr(29628, "run_clm.py", CLM + " --bf16 --gradient_checkpointing"),
                                              env=W, limit=120),
        "healthy_fsdp2_dcp_roundtrip": dict(prog={"train_fsdp.py": TRAIN_FSDP_DCP}, cmd=tr(29629, "train_fsdp.py"),
                                            env=W, limit=90),
        "healthy_accelerate_launch_defaults": dict(prog={"train.py": ACC_TRAIN},
                                                   cmd="accelerate launch --main_process_port 29630 train.py",
                                                   env={"HF_HOME": "@JOB@/hf-home"}, limit=90),
        "healthy_tokenizers_fork_warning": dict(prog={"train_tok.py": TOKENIZE_TRAIN}, cmd="python train_tok.py",
                                                env=S, limit=90),
        # ---------------- run 2 ----------------
        "fsdp2_submodule_before_root_forward": dict(prog={"train_contrastive.py": TRAIN_FSDP_AUX2},
                                                    cmd=tr(29631, "train_contrastive.py"), env=W, limit=60),
        "w_train_logits_kept_on_gpu": dict(prog={"train_cls.py": MEM_GROWTH2}, cmd="python train_cls.py", env=S,
                                           limit=60),
    }
    return sc


def run_one(name, sc, jobdir, out):
    os.makedirs(jobdir, exist_ok=True)
    files = dict(sc.get("prog", {}))
    files.update(sc.get("files", {}))
    for fn, text in files.items():
        with open(os.path.join(jobdir, fn), "w") as f:
            f.write(text.lstrip("\n"))
    env_add = {k: v.replace("@JOB@", jobdir) for k, v in sc["env"].items()}
    cmd = sc["cmd"]
    rec = {"name": name, "cmd": cmd, "env": env_add, "jobdir": jobdir, "files": files}
    if time.time() - T_START > START_BY_S:
        rec.update(rc="not started (time)", seconds=0)
        return rec
    limit = int(min(sc["limit"], max(5, END_BY_S - (time.time() - T_START))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
    t0 = time.time()
    rec["start_utc"] = time.strftime("%H:%M:%S", time.gmtime())
    with open(os.path.join(out, name + ".log"), "wb") as log:
        proc = subprocess.Popen(cmd, shell=True, executable="/bin/bash", cwd=jobdir, stdout=log,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            rc = "timeout %d s" % limit
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    rec.update(rc=rc, seconds=round(time.time() - t0, 1))
    return rec


def facts():
    def sh(c):
        try:
            p = subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60)
            return (p.stdout + p.stderr).strip()
        except Exception as exc:  # noqa: BLE001
            return "unavailable: %s" % exc
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nvidia_smi": sh("nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total,driver_version --format=csv,noheader"),
        "topo": sh("nvidia-smi topo -m"),
        "torch": sh("%s -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'" % PY),
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(torch|triton|transformers|accelerate|deepspeed|tokenizers|"
                   "safetensors|huggingface|pydantic|numpy)'" % PY),
        "deepspeed": sh("%s -c 'import deepspeed; print(deepspeed.__version__, deepspeed.__file__)'" % PY),
        "python": sys.version.split()[0],
        "python_path": PY,
        "kernel": sh("uname -r"),
        "hostname": sh("hostname"),
        "nproc": sh("nproc"),
        "env": {k: v for k, v in os.environ.items()
                if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTHONPATH", "HF_"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p9out"
    os.makedirs(out, exist_ok=True)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
    os.environ["PATH"] = BIN + os.pathsep + os.environ.get("PATH", "")
    base = tempfile.mkdtemp(prefix="p9-")
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    # slow ones first
    order = sorted(want, key=lambda n: -all_sc[n]["limit"])
    results = []
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P9_JOBS", "10"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], os.path.join(base, "job%02d" % i), out)
                for i, k in enumerate(order)]
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results.append(r)
            print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"facts": facts(), "base_dir": base, "wall_s": round(time.time() - T_START, 1),
                   "scenarios": results}, f, indent=1)
    subprocess.run("cd %s && tar czf logs.tar.gz *.log && rm -f *.log" % out, shell=True)
    print("done in %.0f s" % (time.time() - T_START), flush=True)


if __name__ == "__main__":
    main()
