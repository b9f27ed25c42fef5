#!/usr/bin/env python3
"""P5: plant single-process / environment / launcher failures (and healthy-but-scary runs) on a real
2-GPU H100 machine, keep verbatim logs, for an independent held-out set for `gpudoctor explain`
(issue 18). Made by the eval-p5 evaluator; none repeats a bug of plant_h100.py, plant2/3 or plant4.

Self-contained. Every scenario gets its own neutral job folder /tmp/p5-XXXX/jobNN/ holding its
program(s) (train.py, ...). An optional hidden preparation step runs first (output to the manifest
only), then the scenario's command under a wall-clock limit (process group killed at the limit),
stdout+stderr saved verbatim to <out>/<name>.log. Scenarios marked "gpu1" run one after another on
GPU 1 (CUDA_VISIBLE_DEVICES=1) so that memory-hungry runs do not disturb the others.
Logs are packed into <out>/logs.tar.gz plus <out>/manifest.json.

Kept exactly as it ran (the record of bench/data/explain_heldout_2026-11-26p5.jsonl): its runner,
process-group kill and machine facts repeat the earlier planting scripts' (bench/plant2_h100.py,
plant3_h100.py) on purpose, so that one file carries to the GPU machine alone and the set's logs stay
reproducible from this file as it was.

    OUT=/tmp/out python3 plant5.py [NAMES]
"""
import concurrent.futures, json, os, signal, subprocess, sys, tempfile, threading, time

PY = sys.executable
T0 = time.time()
END_BY_S = float(os.environ.get("P5_END_BY_S", "240"))

MODEL = r'''
import math, os, random, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab_size=1000, d_model=128, n_heads=4, n_layers=2, max_len=512):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList([Block(d_model, n_heads) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, ids):
        pos = torch.arange(ids.size(1), device=ids.device)
        x = self.embed(ids) + self.pos(pos)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


class TokenDataset(torch.utils.data.Dataset):
    def __init__(self, n=512, seq_len=64, vocab_size=1000, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.data = torch.randint(0, vocab_size, (n, seq_len + 1), generator=g)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        row = self.data[i]
        return row[:-1], row[1:]


def lm_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
'''

P = {}

# ---------------- (a) user code / data ----------------
# 1 tokenizer grew (special tokens added) but the embedding was not resized; debugging on CPU
P["embed_vocab_cpu"] = r'''
from model import TinyLM, lm_loss

BASE_VOCAB = 1000
SPECIAL = ["<|pad|>", "<|im_start|>", "<|im_end|>"]
special_ids = {tok: BASE_VOCAB + i for i, tok in enumerate(SPECIAL)}
print(f"tokenizer: {BASE_VOCAB} base tokens + {len(SPECIAL)} special -> {BASE_VOCAB + len(SPECIAL)}")

def encode_chat(turns, seq_len=64):
    ids = []
    for t in turns:
        ids += [special_ids["<|im_start|>"]] + [random.randrange(BASE_VOCAB) for _ in range(len(t))] + [special_ids["<|im_end|>"]]
    ids = ids[:seq_len + 1]
    ids += [special_ids["<|pad|>"]] * (seq_len + 1 - len(ids))
    return torch.tensor(ids)

device = torch.device("cpu")
model = TinyLM(vocab_size=BASE_VOCAB).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
chats = [["hello there", "hi, how can I help?"], ["what is 2+2", "4"]] * 8
batch = torch.stack([encode_chat(c) for c in chats])
for step in range(3):
    inp, tgt = batch[:, :-1].to(device), batch[:, 1:].to(device)
    logits = model(inp)
    loss = lm_loss(logits, tgt)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}")
'''

# 2 classifier head kept in fp32 with autocast disabled, fed bf16 hidden states
P["autocast_head_fp32"] = r'''
from model import TinyLM, TokenDataset

class Classifier(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.lm = TinyLM()
        self.cls_weight = nn.Parameter(torch.randn(n_classes, 128) * 0.02)

    def forward(self, ids):
        x = self.lm.embed(ids) + self.lm.pos(torch.arange(ids.size(1), device=ids.device))
        for b in self.lm.blocks:
            x = b(x)
        pooled = self.lm.ln_f(x).mean(dim=1)
        with torch.autocast("cuda", enabled=False):
            return pooled @ self.cls_weight.t()

model = Classifier().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
loader = torch.utils.data.DataLoader(TokenDataset(), batch_size=32, shuffle=True)
for step, (ids, _) in enumerate(loader):
    ids = ids.cuda()
    labels = torch.randint(0, 4, (ids.size(0),), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(ids)
        loss = F.cross_entropy(logits, labels)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
    if step == 10:
        break
'''

# 3 torch.compile with static shapes and variable-length batches, recompiles made fatal
P["compile_recompile_limit"] = r'''
import torch._dynamo
from model import TinyLM, lm_loss

torch._dynamo.config.recompile_limit = 2
torch._dynamo.config.fail_on_recompile_limit_hit = True
model = TinyLM().cuda()
cmodel = torch.compile(model, dynamic=False)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
lengths = [64, 64, 80, 96, 112, 128]
for step, L in enumerate(lengths):
    ids = torch.randint(0, 1000, (16, L + 1), device="cuda")
    t = time.time()
    logits = cmodel(ids[:, :-1])
    loss = lm_loss(logits, ids[:, 1:])
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} seq_len {L} loss {loss.item():.4f} ({time.time() - t:.1f}s)", flush=True)
'''

# 4 LoRA-style adapters + reentrant activation checkpointing; frozen embeddings -> no input needs grad
P["ckpt_reentrant_frozen"] = r'''
from torch.utils.checkpoint import checkpoint
from model import TinyLM, TokenDataset, lm_loss

class LoRALinear(nn.Module):
    def __init__(self, base, r=8):
        super().__init__()
        self.base = base
        self.A = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.B = nn.Parameter(torch.zeros(base.out_features, r))

    def forward(self, x):
        return self.base(x) + x @ self.A.t() @ self.B.t()

model = TinyLM()
for p in model.parameters():
    p.requires_grad_(False)
for b in model.blocks:
    b.mlp[0] = LoRALinear(b.mlp[0])
    b.mlp[2] = LoRALinear(b.mlp[2])
model = model.cuda()
trainable = [p for p in model.parameters() if p.requires_grad]
print(f"trainable params: {sum(p.numel() for p in trainable)} / {sum(p.numel() for p in model.parameters())}")
opt = torch.optim.AdamW(trainable, lr=1e-4)

def forward(ids):
    x = model.embed(ids) + model.pos(torch.arange(ids.size(1), device=ids.device))
    for b in model.blocks:
        x = checkpoint(b, x, use_reentrant=True)
    return model.head(model.ln_f(x))

loader = torch.utils.data.DataLoader(TokenDataset(), batch_size=16)
for step, (ids, tgt) in enumerate(loader):
    ids, tgt = ids.cuda(), tgt.cuda()
    loss = lm_loss(forward(ids), tgt)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
    if step == 3:
        break
'''

# 5 a native decoder crash (null pointer read) inside a DataLoader worker
P["loader_worker_native_crash"] = r'''
import ctypes
from model import TinyLM, lm_loss

def decode_record(buf):
    if buf[:4] != b"TOK1":
        return ctypes.string_at(0, 16)
    return torch.frombuffer(bytearray(buf[4:]), dtype=torch.int16).long()

class ShardDataset(torch.utils.data.Dataset):
    def __init__(self, n=4096):
        self.records = [b"TOK1" + torch.randint(0, 1000, (65,), dtype=torch.int16).numpy().tobytes() for _ in range(n)]
        self.records[1337] = b"\x00\x00\x00\x00" + self.records[1337][4:]

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        row = decode_record(self.records[i])
        return row[:-1], row[1:]

model = TinyLM().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = torch.utils.data.DataLoader(ShardDataset(), batch_size=64, num_workers=4)
for step, (ids, tgt) in enumerate(loader):
    loss = lm_loss(model(ids.cuda()), tgt.cuda())
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
'''

# 6 variable-length samples with the default collate, in workers
P["collate_varlen"] = r'''
from model import TinyLM, lm_loss

class JsonlDataset(torch.utils.data.Dataset):
    def __init__(self, n=1000):
        rng = random.Random(0)
        self.docs = [[rng.randrange(1000) for _ in range(rng.randint(20, 120))] for _ in range(n)]

    def __len__(self):
        return len(self.docs)

    def __getitem__(self, i):
        ids = torch.tensor(self.docs[i])
        return {"input_ids": ids[:-1], "labels": ids[1:]}

model = TinyLM().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = torch.utils.data.DataLoader(JsonlDataset(), batch_size=8, shuffle=True, num_workers=2)
for step, batch in enumerate(loader):
    logits = model(batch["input_ids"].cuda())
    loss = lm_loss(logits, batch["labels"].cuda())
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}")
'''

# 7 logits (with graph) kept for metrics every step -> memory grows until OOM; prints allocator summary
P["oom_kept_logits"] = r'''
from model import TinyLM, lm_loss

model = TinyLM(vocab_size=32000, d_model=256).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
all_logits, all_targets = [], []
for step in range(400):
    ids = torch.randint(0, 32000, (16, 513), device="cuda")
    try:
        logits = model(ids[:, :-1])
        loss = lm_loss(logits, ids[:, 1:])
        opt.zero_grad()
        loss.backward()
        opt.step()
    except torch.OutOfMemoryError:
        print(torch.cuda.memory_summary(abbreviated=True), flush=True)
        raise
    all_logits.append(logits)
    all_targets.append(ids[:, 1:])
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} mem {torch.cuda.memory_allocated() / 2**30:.1f} GiB", flush=True)
'''

# 8 tied embeddings saved with safetensors.save_file
P["safetensors_tied"] = r'''
from safetensors.torch import save_file
from model import TinyLM, TokenDataset, lm_loss

model = TinyLM().cuda()
model.head.weight = model.embed.weight
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = torch.utils.data.DataLoader(TokenDataset(), batch_size=32)
for step, (ids, tgt) in enumerate(loader):
    loss = lm_loss(model(ids.cuda()), tgt.cuda())
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
os.makedirs("output/checkpoint-16", exist_ok=True)
save_file(model.state_dict(), "output/checkpoint-16/model.safetensors")
print("saved")
'''

# 9 resume: optimizer state loaded while the model is still on CPU, model moved to GPU afterwards
P["optim_state_cpu_resume"] = r'''
from model import TinyLM, TokenDataset, lm_loss

model = TinyLM()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
ckpt = torch.load("output/last.pt", map_location="cpu")
model.load_state_dict(ckpt["model"])
opt.load_state_dict(ckpt["optimizer"])
start = ckpt["step"] + 1
print(f"resumed from step {ckpt['step']}")
model.cuda()
loader = torch.utils.data.DataLoader(TokenDataset(), batch_size=32)
for step, (ids, tgt) in enumerate(loader, start=start):
    loss = lm_loss(model(ids.cuda()), tgt.cuda())
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}")
    if step > start + 3:
        break
'''
PREP_OPTIM = r'''
import os, torch
from model import TinyLM, lm_loss
model = TinyLM()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
ids = torch.randint(0, 1000, (4, 65))
lm_loss(model(ids[:, :-1]), ids[:, 1:]).backward(); opt.step()
os.makedirs("output", exist_ok=True)
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": 500}, "output/last.pt")
print("prep ok")
'''

# 10 hand-written attention merges heads with .view on a transposed tensor
P["attn_view_noncontig"] = r'''
from model import TokenDataset, lm_loss

class SelfAttention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.h, C // self.h).transpose(1, 2)
        k = k.view(B, T, self.h, C // self.h).transpose(1, 2)
        v = v.view(B, T, self.h, C // self.h).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).view(B, T, C)
        return self.proj(y)

class GPT(nn.Module):
    def __init__(self, vocab=1000, d=128, h=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.attn = SelfAttention(d, h)
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.tok(ids)
        x = x + self.attn(self.ln(x))
        return self.head(x)

model = GPT().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step, (ids, tgt) in enumerate(torch.utils.data.DataLoader(TokenDataset(), batch_size=16)):
    loss = lm_loss(model(ids.cuda()), tgt.cuda())
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}")
    if step == 3:
        break
'''

# 11 dataset pre-loads everything onto the GPU, DataLoader still asked to pin memory
P["pin_memory_cuda_dataset"] = r'''
from model import TinyLM, lm_loss

class GPUCachedDataset(torch.utils.data.Dataset):
    def __init__(self, n=2048, seq_len=64):
        self.data = torch.randint(0, 1000, (n, seq_len + 1)).cuda()

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.data[i, :-1], self.data[i, 1:]

model = TinyLM().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = torch.utils.data.DataLoader(GPUCachedDataset(), batch_size=64, shuffle=True, pin_memory=True)
for step, (ids, tgt) in enumerate(loader):
    loss = lm_loss(model(ids.cuda(non_blocking=True)), tgt.cuda(non_blocking=True))
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}")
'''

# 12 HF Trainer, dataset without labels and no LM collator
P["hf_trainer_no_labels"] = r'''
import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

class Tokens(torch.utils.data.Dataset):
    def __init__(self, n=256, seq_len=64):
        self.ids = torch.randint(0, 1000, (n, seq_len))

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones_like(self.ids[i])}

config = GPT2Config(vocab_size=1000, n_positions=128, n_embd=128, n_layer=2, n_head=4)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, max_steps=20,
                         logging_steps=5, report_to="none", bf16=True, save_strategy="no")
trainer = Trainer(model=model, args=args, train_dataset=Tokens())
trainer.train()
'''

# ---------------- (b) environment / configuration ----------------
TRAIN_PLAIN = r'''
from model import TinyLM, TokenDataset, lm_loss

device = torch.device("cuda")
print(f"torch {torch.__version__}, cuda available: {torch.cuda.is_available()}, devices: {torch.cuda.device_count()}", flush=True)
model = TinyLM().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = torch.utils.data.DataLoader(TokenDataset(), batch_size=32, shuffle=True)
for epoch in range(2):
    for step, (ids, tgt) in enumerate(loader):
        loss = lm_loss(model(ids.to(device)), tgt.to(device))
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
print("done")
'''
P["train_plain"] = TRAIN_PLAIN

TRAIN_NCCL1 = r'''
import datetime
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from model import TinyLM, TokenDataset, lm_loss

rank = int(os.environ.get("RANK", 0))
world = int(os.environ.get("WORLD_SIZE", 1))
local_rank = int(os.environ.get("LOCAL_RANK", 0))
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", init_method=os.environ.get("INIT_METHOD", "env://"), rank=rank, world_size=world,
                        timeout=datetime.timedelta(seconds=30), device_id=torch.device("cuda", local_rank))
print(f"[rank {rank}] initialised process group, world size {world}", flush=True)
model = DDP(TinyLM().cuda(), device_ids=[local_rank])
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
sampler = torch.utils.data.distributed.DistributedSampler(TokenDataset())
loader = torch.utils.data.DataLoader(TokenDataset(), batch_size=32, sampler=sampler)
for step, (ids, tgt) in enumerate(loader):
    loss = lm_loss(model(ids.cuda()), tgt.cuda())
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0:
        print(f"[rank {rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
print(f"[rank {rank}] done", flush=True)
'''
P["train_ddp"] = TRAIN_NCCL1

TRAIN_COMPILE = r'''
from model import TinyLM, TokenDataset, lm_loss

model = TinyLM().cuda()
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = torch.utils.data.DataLoader(TokenDataset(), batch_size=32, drop_last=True)
t = time.time()
for step, (ids, tgt) in enumerate(loader):
    loss = lm_loss(cmodel(ids.cuda()), tgt.cuda())
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 4 == 0:
        print(f"step {step} loss {loss.item():.4f} ({time.time() - t:.1f}s)", flush=True)
print("done")
'''
P["train_compile"] = TRAIN_COMPILE

EXT_BUILD = r'''
import torch
from torch.utils.cpp_extension import load_inline

cuda_src = """
__global__ void fused_bias_gelu_kernel(const float* x, const float* b, float* y, int n, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i] + b[i % d]; y[i] = 0.5f * v * (1.f + tanhf(0.79788456f * (v + 0.044715f * v * v * v))); }
}
torch::Tensor fused_bias_gelu(torch::Tensor x, torch::Tensor b) {
  auto y = torch::empty_like(x);
  int n = x.numel(), d = b.numel();
  fused_bias_gelu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), n, d);
  return y;
}
"""
cpp_src = "torch::Tensor fused_bias_gelu(torch::Tensor x, torch::Tensor b);"
print("building fused_bias_gelu extension ...", flush=True)
os.makedirs("build", exist_ok=True)
ext = load_inline(name="fused_bias_gelu", cpp_sources=cpp_src, cuda_sources=cuda_src,
                  functions=["fused_bias_gelu"], verbose=True, build_directory=os.path.abspath("build"))
x = torch.randn(64, 256, device="cuda")
b = torch.randn(256, device="cuda")
print((ext.fused_bias_gelu(x, b) - torch.nn.functional.gelu(x + b, approximate="tanh")).abs().max().item())
'''
P["build_ext"] = "import os\n" + EXT_BUILD

P["hf_load_model"] = r'''
import os
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

name = os.environ.get("MODEL_NAME", "meta-llama/Llama-3.1-8B")
print(f"loading {name} (HF_HOME={os.environ.get('HF_HOME')})", flush=True)
tokenizer = AutoTokenizer.from_pretrained(name)
model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16).cuda()
print(model.config)
'''

MONITOR_SH = r'''#!/bin/bash
# gpu monitor started next to the training job
for i in 1 2 3; do
  nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw,temp.gpu --format=csv,noheader
  rc=$?
  if [ $rc -ne 0 ]; then echo "monitor: nvidia-smi exited $rc"; exit $rc; fi
  sleep 1
done
'''

# ---------------- (c) launcher words ----------------
P["train_ddp_gloo_nodevice"] = r'''
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from model import TinyLM, TokenDataset, lm_loss

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
model = TinyLM().cuda()
print(f"[rank {rank}/{world}] model on {next(model.parameters()).device}", flush=True)
model = DDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
sampler = torch.utils.data.distributed.DistributedSampler(TokenDataset(n=2048))
loader = torch.utils.data.DataLoader(TokenDataset(n=2048), batch_size=32, sampler=sampler)
t = time.time()
for step, (ids, tgt) in enumerate(loader):
    loss = lm_loss(model(ids.cuda()), tgt.cuda())
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 16 == 0:
        print(f"[rank {rank}] step {step}/{len(loader)} loss {loss.item():.4f} mem {torch.cuda.memory_allocated() / 2**20:.0f} MiB", flush=True)
print(f"[rank {rank}] epoch done in {time.time() - t:.1f}s", flush=True)
dist.destroy_process_group()
'''

P["train_accel"] = r'''
from accelerate import Accelerator
from model import TinyLM, TokenDataset, lm_loss

accelerator = Accelerator()
accelerator.print(f"distributed_type={accelerator.distributed_type} num_processes={accelerator.num_processes} device={accelerator.device} mixed_precision={accelerator.mixed_precision}")
model = TinyLM(d_model=256, n_layers=4)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = torch.utils.data.DataLoader(TokenDataset(n=1024, seq_len=128), batch_size=32, shuffle=True)
model, opt, loader = accelerator.prepare(model, opt, loader)
t = time.time()
for step, (ids, tgt) in enumerate(loader):
    loss = lm_loss(model(ids), tgt)
    accelerator.backward(loss)
    opt.step(); opt.zero_grad()
    if step % 8 == 0:
        accelerator.print(f"step {step}/{len(loader)} loss {loss.item():.4f} {(step + 1) * 32 / (time.time() - t):.0f} samples/s")
accelerator.print(f"epoch done in {time.time() - t:.1f}s")
'''
ACCEL_CPU_YAML = """compute_environment: LOCAL_MACHINE
debug: false
distributed_type: 'NO'
downcast_bf16: 'no'
enable_cpu_affinity: false
machine_rank: 0
main_training_function: main
mixed_precision: 'no'
num_machines: 1
num_processes: 1
rdzv_backend: static
same_network: true
tpu_env: []
tpu_use_cluster: false
tpu_use_sudo: false
use_cpu: true
"""

P["train_auto"] = r'''
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from model import TinyLM, TokenDataset, lm_loss

distributed = "RANK" in os.environ and "WORLD_SIZE" in os.environ
if distributed:
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    rank, world = dist.get_rank(), dist.get_world_size()
else:
    local_rank, rank, world = 0, 0, 1
device = torch.device("cuda", local_rank)
print(f"rank {rank} world_size {world} device {device} (visible GPUs: {torch.cuda.device_count()})", flush=True)
model = TinyLM(d_model=256, n_layers=4).to(device)
if distributed:
    model = DDP(model, device_ids=[local_rank])
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
ds = TokenDataset(n=2048, seq_len=128)
sampler = torch.utils.data.distributed.DistributedSampler(ds) if distributed else None
loader = torch.utils.data.DataLoader(ds, batch_size=32, sampler=sampler, shuffle=sampler is None)
t = time.time()
for step, (ids, tgt) in enumerate(loader):
    loss = lm_loss(model(ids.to(device)), tgt.to(device))
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 16 == 0:
        print(f"rank {rank} step {step}/{len(loader)} loss {loss.item():.4f}", flush=True)
print(f"rank {rank} epoch done: {len(loader)} steps in {time.time() - t:.1f}s", flush=True)
if distributed:
    dist.destroy_process_group()
'''

P["train_ddp_nosampler"] = r'''
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from model import TinyLM, TokenDataset, lm_loss

dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
rank, world = dist.get_rank(), dist.get_world_size()
model = DDP(TinyLM(d_model=256, n_layers=4).cuda(), device_ids=[local_rank])
opt = torch.optim.AdamW(model.parameters(), lr=3e-4 * world)
loader = torch.utils.data.DataLoader(TokenDataset(n=2048, seq_len=128), batch_size=32, shuffle=True)
print(f"[rank {rank}/{world}] {len(loader.dataset)} samples, {len(loader)} steps per epoch", flush=True)
t = time.time()
for epoch in range(2):
    for step, (ids, tgt) in enumerate(loader):
        loss = lm_loss(model(ids.cuda()), tgt.cuda())
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {rank}] epoch {epoch}: {len(loader)} steps, loss {loss.item():.4f}, {time.time() - t:.1f}s", flush=True)
dist.destroy_process_group()
'''

# ---------------- (d) healthy ----------------
P["healthy_oom_retry"] = r'''
import traceback
from model import TinyLM, lm_loss

model = TinyLM(vocab_size=32000, d_model=512, n_layers=4, max_len=2048).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)

def train_steps(batch_size, steps=3):
    for step in range(steps):
        ids = torch.randint(0, 32000, (batch_size, 2049), device="cuda")
        loss = lm_loss(model(ids[:, :-1]), ids[:, 1:])
        opt.zero_grad(); loss.backward(); opt.step()
    return loss.item()

batch_size = 512
while True:
    try:
        print(f"trying batch_size={batch_size}", flush=True)
        loss = train_steps(batch_size)
        break
    except torch.OutOfMemoryError as e:
        print(f"WARNING: batch_size={batch_size} does not fit, halving. {e}", flush=True)
        opt.zero_grad(set_to_none=True)
        torch.cuda.empty_cache()
        batch_size //= 2
print(f"using batch_size={batch_size}, loss {loss:.4f}", flush=True)
print(f"training with batch_size={batch_size}: ok")
'''

P["healthy_fp16_scaler"] = r'''
from model import TinyLM, TokenDataset, lm_loss

model = TinyLM().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
scaler = torch.amp.GradScaler("cuda", init_scale=2.0 ** 24)
loader = torch.utils.data.DataLoader(TokenDataset(n=2048), batch_size=32, shuffle=True)
for step, (ids, tgt) in enumerate(loader):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = lm_loss(model(ids.cuda()), tgt.cuda())
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scale = scaler.get_scale()
    scaler.step(opt)
    scaler.update()
    if not torch.isfinite(gnorm):
        print(f"step {step}: grad norm {gnorm.item()} at loss scale {scale:.0f} -> step skipped, scale now {scaler.get_scale():.0f}", flush=True)
    elif step % 10 == 0:
        print(f"step {step}: loss {loss.item():.4f} grad norm {gnorm.item():.3f} scale {scale:.0f}", flush=True)
print("epoch done")
'''

P["healthy_graph_breaks"] = r'''
from model import TinyLM, TokenDataset, lm_loss

class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = TinyLM()

    def forward(self, ids):
        logits = self.lm(ids)
        if logits.float().abs().max().item() > 1e4:
            print("warning: large logits")
        return logits

model = Wrapper().cuda()
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = torch.utils.data.DataLoader(TokenDataset(), batch_size=32, drop_last=True)
for step, (ids, tgt) in enumerate(loader):
    loss = lm_loss(cmodel(ids.cuda()), tgt.cuda())
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
print("done")
'''

PROLOG_SH = r'''#!/bin/bash
echo "=== job prolog $(date -u +%FT%TZ) on $(hostname) ==="
nvidia-smi
nvidia-smi topo -m
echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-<unset>}"
echo "=== starting training ==="
exec python3 train.py
'''

HF_TRAIN_OK = r'''
import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments, DataCollatorForLanguageModeling

class Tokens(torch.utils.data.Dataset):
    def __init__(self, n=256, seq_len=64):
        self.ids = torch.randint(0, 1000, (n, seq_len))

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.ids[i].clone()}

config = GPT2Config(vocab_size=1000, n_positions=128, n_embd=128, n_layer=2, n_head=4)
model = GPT2LMHeadModel(config)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, max_steps=30,
                         logging_steps=10, report_to="none", bf16=True, save_strategy="no",
                         dataloader_num_workers=2)
trainer = Trainer(model=model, args=args, train_dataset=Tokens())
trainer.train()
print("finished")
'''

STUB_NCCL_C = r'''
/* libnccl.so.2 left over from an old NCCL 2.18 install */
typedef enum { ncclSuccess = 0 } ncclResult_t;
ncclResult_t ncclGetVersion(int *version) { *version = 21805; return ncclSuccess; }
const char *ncclGetErrorString(int r) { return "unknown"; }
'''

FAKE_NVCC = r'''#!/bin/bash
if [ "$1" = "--version" ] || [ "$1" = "-V" ]; then
cat <<EOF
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2024 NVIDIA Corporation
Built on Thu_Mar_28_02:18:24_PDT_2024
Cuda compilation tools, release 12.4, V12.4.131
Build cuda_12.4.r12.4/compiler.34097967_0
EOF
exit 0
fi
exit 1
'''


SETUP_PY = r"""
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="fused_ops",
    version="0.1.0",
    ext_modules=[CUDAExtension("fused_ops._C", ["csrc/fused_ops.cpp", "csrc/fused_bias_gelu.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
"""
FUSED_CPP = r"""
#include <torch/extension.h>
torch::Tensor fused_bias_gelu(torch::Tensor x, torch::Tensor b);
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("fused_bias_gelu", &fused_bias_gelu); }
"""
FUSED_CU = r"""
#include <torch/extension.h>
__global__ void fused_bias_gelu_kernel(const float* x, const float* b, float* y, int n, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i] + b[i % d]; y[i] = 0.5f * v * (1.f + tanhf(0.79788456f * (v + 0.044715f * v * v * v))); }
}
torch::Tensor fused_bias_gelu(torch::Tensor x, torch::Tensor b) {
  auto y = torch::empty_like(x);
  int n = x.numel(), d = b.numel();
  fused_bias_gelu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), n, d);
  return y;
}
"""


HEADER = "import datetime, math, os, random, sys, time\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
for _k in list(P):
    if "from model import" in P[_k]:
        P[_k] = HEADER + P[_k].lstrip()


def S(prog, cmd=None, env=None, limit=40, prep=None, files=None, gpu1=False):
    return {"prog": prog, "cmd": cmd or "python3 train.py", "env": env or {}, "limit": limit,
            "prep": prep, "files": files or {}, "gpu1": gpu1}


def scenarios():
    s = {}
    # (a)
    s["embed_vocab_cpu"] = S("embed_vocab_cpu")
    s["autocast_head_fp32"] = S("autocast_head_fp32")
    s["compile_recompile_limit"] = S("compile_recompile_limit", limit=60)
    s["ckpt_reentrant_frozen"] = S("ckpt_reentrant_frozen")
    s["loader_worker_native_crash"] = S("loader_worker_native_crash")
    s["collate_varlen"] = S("collate_varlen")
    s["oom_kept_logits"] = S("oom_kept_logits", limit=60, gpu1=True)
    s["safetensors_tied"] = S("safetensors_tied")
    s["optim_state_cpu_resume"] = S("optim_state_cpu_resume", prep="python3 prep.py", files={"prep.py": PREP_OPTIM})
    s["attn_view_noncontig"] = S("attn_view_noncontig")
    s["pin_memory_cuda_dataset"] = S("pin_memory_cuda_dataset")
    s["hf_trainer_no_labels"] = S("hf_trainer_no_labels", env={"HF_HUB_OFFLINE": "1"}, limit=60)
    # (b)
    s["cvd_uuid_typo"] = S("train_plain", env={"CUDA_VISIBLE_DEVICES": "GPU-3f1c9e2a-7b4d-4e8f-9a1b-2c3d4e5f6a7b"})
    s["nccl_topo_file_missing"] = S("train_ddp", env={"NCCL_TOPO_FILE": "/etc/nccl/h100-topo.xml", "NCCL_DEBUG": "WARN",
                                                      "INIT_METHOD": "tcp://127.0.0.1:29711"})
    s["torch_nccl_aeh_true"] = S("train_ddp", env={"TORCH_NCCL_ASYNC_ERROR_HANDLING": "true",
                                                   "INIT_METHOD": "tcp://127.0.0.1:29712"})
    s["nccl_comm_id_stale"] = S("train_ddp", env={"NCCL_COMM_ID": "gpu-node-07:52377",
                                                  "INIT_METHOD": "tcp://127.0.0.1:29713"})
    s["ld_path_stale_nccl"] = S(
        "train_ddp", env={"LD_PRELOAD": "/opt/nccl-2.18.5/lib/libnccl.so.2",
                          "INIT_METHOD": "tcp://127.0.0.1:29714"},
        prep="mkdir -p /opt/nccl-2.18.5/lib && gcc -shared -fPIC -Wl,-soname,libnccl.so.2 -o /opt/nccl-2.18.5/lib/libnccl.so.2 stub.c"
             " && ln -sf libnccl.so.2 /opt/nccl-2.18.5/lib/libnccl.so && ls -l /opt/nccl-2.18.5/lib"
             " && readelf -d $(python3 -c 'import torch,os;print(os.path.join(os.path.dirname(torch.__file__),\"lib\",\"libtorch_cuda.so\"))') | grep -i -E 'path|nccl'",
        files={"stub.c": STUB_NCCL_C})
    s["container_no_libcuda"] = S(
        "train_plain",
        cmd="unshare -m /bin/bash -c 'for f in $(cat libcuda_paths.txt); do mount --bind /dev/null \"$f\"; done; exec python3 train.py'",
        prep="(ldconfig -p | grep -E 'libcuda\\.so' | awk '{print $NF}'; find /usr/lib /usr/lib64 /usr/local /opt -name 'libcuda.so*' 2>/dev/null) | xargs -r readlink -f | sort -u > libcuda_paths.txt; cat libcuda_paths.txt;"
             " ls /usr/local/nvidia/lib64 2>/dev/null | head; echo LD=$LD_LIBRARY_PATH")
    s["triton_cache_readonly"] = S(
        "train_compile", env={"TRITON_CACHE_DIR": "/shared/cache/triton", "TORCHINDUCTOR_CACHE_DIR": "/shared/cache/inductor"},
        limit=60,
        prep="mkdir -p /shared/cache/triton /shared/cache/inductor && mount --bind /shared/cache /shared/cache && mount -o remount,bind,ro /shared/cache && touch /shared/cache/triton/x; echo touch_rc=$?")
    s["nvidia_smi_bad_field"] = S(None, cmd="bash monitor.sh", files={"monitor.sh": MONITOR_SH}, limit=20)
    s["ext_cuda_home_12_4"] = S(
        None, cmd="python3 -m pip install --no-build-isolation --no-deps -v .",
        env={"CUDA_HOME": "/usr/local/cuda-12.4", "PATH": "/usr/local/cuda-12.4/bin:" + os.environ.get("PATH", "")},
        prep="mkdir -p /usr/local/cuda-12.4/bin /usr/local/cuda-12.4/include /usr/local/cuda-12.4/lib64 && cp fake_nvcc /usr/local/cuda-12.4/bin/nvcc && chmod +x /usr/local/cuda-12.4/bin/nvcc && /usr/local/cuda-12.4/bin/nvcc --version",
        files={"fake_nvcc": FAKE_NVCC, "setup.py": SETUP_PY, "csrc/fused_ops.cpp": FUSED_CPP,
               "csrc/fused_bias_gelu.cu": FUSED_CU}, limit=60)
    s["arch_list_hopper"] = S("build_ext", env={"TORCH_CUDA_ARCH_LIST": "Hopper"}, limit=60)
    s["triton_cc_missing"] = S("train_compile", env={"CC": "/opt/rh/gcc-toolset-12/root/usr/bin/gcc",
                                                     "TRITON_CACHE_DIR": "/tmp/p5-triton-cc",
                                                     "TORCHINDUCTOR_CACHE_DIR": "/tmp/p5-inductor-cc"}, limit=60)
    s["hf_offline_no_cache"] = S("hf_load_model", env={"HF_HUB_OFFLINE": "1", "HF_HOME": "/scratch/hf_cache"}, limit=40)
    # (c)
    s["torchrun_ranks_share_gpu0"] = S("train_ddp_gloo_nodevice", cmd="torchrun --nproc-per-node 2 --master-port 29731 train.py", limit=60)
    s["accelerate_use_cpu_config"] = S("train_accel", cmd="accelerate launch --config_file default_config.yaml train.py",
                                       files={"default_config.yaml": ACCEL_CPU_YAML}, limit=60)
    s["python_not_torchrun"] = S("train_auto", limit=60)
    s["ddp_no_distributed_sampler"] = S("train_ddp_nosampler", cmd="torchrun --nproc-per-node 2 --master-port 29733 train.py", limit=60)
    # (d)
    s["healthy_oom_retry"] = S("healthy_oom_retry", limit=60, gpu1=True)
    s["healthy_fp16_scaler"] = S("healthy_fp16_scaler")
    s["healthy_graph_breaks"] = S("healthy_graph_breaks", env={"TORCH_LOGS": "graph_breaks,recompiles"}, limit=60)
    s["healthy_nccl_deprecated_env"] = S("train_ddp", env={"NCCL_ASYNC_ERROR_HANDLING": "1", "NCCL_BLOCKING_WAIT": "1",
                                                           "NCCL_DEBUG": "WARN", "INIT_METHOD": "tcp://127.0.0.1:29715"})
    s["healthy_prolog_nvidia_smi"] = S("train_plain", cmd="bash prolog.sh", files={"prolog.sh": PROLOG_SH})
    s["healthy_hf_trainer"] = S(None, files={"train.py": HF_TRAIN_OK}, env={"HF_HUB_OFFLINE": "1"}, limit=60)
    return s


def run_one(name, sc, d, out):
    if time.time() - T0 > END_BY_S - 20:
        return {"name": name, "cmd": sc["cmd"], "env": sc["env"], "rc": "not started (time)", "seconds": 0}
    limit = int(min(sc["limit"], max(5, END_BY_S - (time.time() - T0))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", **sc["env"])
    if sc["gpu1"]:
        env["CUDA_VISIBLE_DEVICES"] = "1"
    prep_out = None
    if sc["prep"]:
        try:
            p = subprocess.run(sc["prep"], shell=True, executable="/bin/bash", cwd=d, capture_output=True, text=True,
                               env=dict(os.environ, PYTHONUNBUFFERED="1"), timeout=60)
            prep_out = "rc=%s\n%s%s" % (p.returncode, p.stdout[-3000:], p.stderr[-3000:])
        except Exception as exc:  # noqa: BLE001
            prep_out = "prep failed: %r" % exc
    t0 = time.time()
    with open(os.path.join(out, name + ".log"), "wb") as log:
        proc = subprocess.Popen(sc["cmd"], shell=True, executable="/bin/bash", cwd=d, stdout=log,
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
    return {"name": name, "dir": d, "cmd": sc["cmd"], "env": sc["env"], "gpu1": sc["gpu1"], "rc": rc,
            "seconds": round(time.time() - t0, 1), "prep": sc["prep"], "prep_out": prep_out,
            "started_utc": time.strftime("%H:%M:%S", time.gmtime(t0))}


def facts():
    def sh(c):
        try:
            return subprocess.run(c, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
        except Exception as exc:  # noqa: BLE001
            return "unavailable: %s" % exc
    return {
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "nvidia_smi": sh("nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader"),
        "torch": sh("%s -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'" % PY),
        "pkgs": sh("%s -m pip list 2>/dev/null | grep -i -E '^(triton|transformers|accelerate|safetensors|huggingface)'" % PY),
        "nvcc": sh("nvcc --version | tail -2"),
        "gcc": sh("gcc --version | head -1"),
        "python": sys.version.split()[0], "python_path": PY,
        "kernel": sh("uname -r"), "hostname": sh("hostname"), "nproc": sh("nproc"),
        "ulimits": sh("ulimit -a"), "user": sh("id"),
        "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "LD_", "TRITON", "HF_"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p5out"
    os.makedirs(out, exist_ok=True)
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
    os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")
    root = tempfile.mkdtemp(prefix="p5-")
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    dirs = {}
    for i, name in enumerate(want):
        sc = all_sc[name]
        d = os.path.join(root, "job%02d" % (i + 1))
        os.makedirs(d)
        with open(os.path.join(d, "model.py"), "w") as f:
            f.write(MODEL.lstrip())
        if sc["prog"]:
            with open(os.path.join(d, "train.py"), "w") as f:
                f.write(P[sc["prog"]].lstrip())
        for fn, txt in sc["files"].items():
            os.makedirs(os.path.dirname(os.path.join(d, fn)), exist_ok=True)
            with open(os.path.join(d, fn), "w") as f:
                f.write(txt.lstrip() if fn.endswith(".py") else txt)
        dirs[name] = d
    facts0 = facts()
    results = []
    lock = threading.Lock()

    def serial(names):
        for n in names:
            r = run_one(n, all_sc[n], dirs[n], out)
            with lock:
                results.append(r)
            print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)

    g1 = [n for n in want if all_sc[n]["gpu1"]]
    rest = [n for n in want if not all_sc[n]["gpu1"]]
    th = threading.Thread(target=serial, args=(g1,))
    th.start()
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P5_JOBS", "10"))) as pool:
        futs = [pool.submit(run_one, n, all_sc[n], dirs[n], out) for n in rest]
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            with lock:
                results.append(r)
            print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)
    th.join()
    results.sort(key=lambda r: want.index(r["name"]))
    subprocess.run("umount /shared/cache 2>/dev/null", shell=True)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"facts": facts0, "root": root, "wall_s": round(time.time() - T0, 1), "scenarios": results,
                   "programs": P, "model_py": MODEL,
                   "files": {n: all_sc[n]["files"] for n in want}}, f, indent=1)
    subprocess.run("cd %s && tar czf logs.tar.gz *.log && rm -f *.log" % out, shell=True)
    print("done in %.0f s" % (time.time() - T0), flush=True)


if __name__ == "__main__":
    main()
