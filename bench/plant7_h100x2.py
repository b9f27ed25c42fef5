#!/usr/bin/env python3
"""P7: failures planted on 2 real GPUs (single-GPU and 2-rank jobs), verbatim logs, for an independent
held-out set for `gpudoctor explain` (issue 18). Made by the eval-p7 evaluator.

Self-contained: each scenario gets its own neutral job folder /tmp/p7-XXXX/jobNN/ holding the program(s)
it runs (train.py etc.; no case name in any path), runs its shell command under a wall-clock limit (whole
process group killed), saves stdout+stderr verbatim to <out>/<name>.log, then packs the logs into
<out>/logs.tar.gz and writes <out>/manifest.json (command, extra env, exit status, seconds, machine facts
incl. nvidia-smi topo -m, program sources). NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and
NVSHMEM_DISABLE_NVLS=1 are forced (multicast off). No GPU setting is changed.

    OUT=/tmp/out python3 plant7.py [NAMES]
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

HDR = r'''
import datetime, math, os, random, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
RANK = int(os.environ.get("RANK", "0"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
def setup(seconds=20):
    torch.cuda.set_device(LOCAL_RANK)
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=seconds))
    return torch.device("cuda", LOCAL_RANK)
class Block(nn.Module):
    def __init__(self, d=256):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.ln(x))))
class Net(nn.Module):
    def __init__(self, d=256, n=4, out=10):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(d) for _ in range(n)])
        self.head = nn.Linear(d, out)
    def forward(self, x):
        return self.head(self.blocks(x))
'''

# ---------------------------------------------------------------- programs, one dict per scenario
P = {}

# (a) user code ------------------------------------------------------------------------------------
# regression in pure fp16 (model.half(), no autocast, no GradScaler), targets not normalised
P["fp16_pure_overflow"] = {"train.py": HDR + r'''
torch.manual_seed(0)
dev = torch.device("cuda")
model = Net(out=1).to(dev).half()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
print("model dtype", next(model.parameters()).dtype, "params", sum(p.numel() for p in model.parameters()), flush=True)
for step in range(50):
    x = torch.randn(64, 256, device=dev, dtype=torch.float16)
    y = (x[:, :8].sum(1, keepdim=True) * 60 + 250).half()   # house prices in k$, not normalised
    pred = model(x)
    loss = F.mse_loss(pred, y)
    if not torch.isfinite(loss):
        raise FloatingPointError(f"loss is {loss.item()} at step {step}, stopping")
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.2f}", flush=True)
print("done", flush=True)
'''}

# FSDP full state dict gathered inside `if rank == 0` -> rank 0 all-gathers, rank 1 waits in barrier
P["fsdp_state_dict_rank0_only"] = {"train_fsdp.py": HDR + r'''
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, StateDictType, FullStateDictConfig
dev = setup(seconds=20)
torch.manual_seed(0)
model = FSDP(Net().to(dev), device_id=dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(32, 256, device=dev)
    loss = F.cross_entropy(model(x), torch.randint(0, 10, (32,), device=dev))
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank{RANK}] step {step} loss {loss.item():.4f}", flush=True)
if RANK == 0:
    print("[rank0] saving checkpoint ...", flush=True)
    cfg = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
        sd = model.state_dict()
    torch.save(sd, "model_final.pt")
    print("[rank0] saved model_final.pt", flush=True)
dist.barrier()
print(f"[rank{RANK}] finished", flush=True)
dist.destroy_process_group()
'''}

# load a (locally saved) causal LM with device_map="auto" and a max_memory budget smaller than the model
P["device_map_max_memory_disk"] = {"infer.py": r'''
import os, torch
from transformers import LlamaConfig, LlamaForCausalLM, AutoModelForCausalLM
ckpt = "checkpoints/llama-small"
if not os.path.isdir(ckpt):
    cfg = LlamaConfig(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                      num_attention_heads=16, num_key_value_heads=16)
    LlamaForCausalLM(cfg).save_pretrained(ckpt)
    print("wrote", ckpt, flush=True)
max_memory = {0: "200MiB", "cpu": "200MiB"}
print("loading with max_memory", max_memory, flush=True)
model = AutoModelForCausalLM.from_pretrained(ckpt, device_map="auto", max_memory=max_memory, torch_dtype=torch.bfloat16)
print(model.hf_device_map, flush=True)
ids = torch.randint(0, 32000, (1, 16), device="cuda")
print(model.generate(ids, max_new_tokens=8), flush=True)
'''}

# padding mask from the tokenizer (int64 0/1) passed straight to scaled_dot_product_attention
P["sdpa_long_mask"] = {"train.py": HDR + r'''
class Attn(nn.Module):
    def __init__(self, d=256, h=8):
        super().__init__()
        self.h = h; self.qkv = nn.Linear(d, 3 * d); self.o = nn.Linear(d, d)
    def forward(self, x, attention_mask):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, C // self.h).permute(2, 0, 3, 1, 4)
        mask = attention_mask[:, None, None, :]          # (B, 1, 1, T) from the tokenizer
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.o(y.transpose(1, 2).reshape(B, T, C))
dev = torch.device("cuda")
emb = nn.Embedding(1000, 256).to(dev); att = Attn().to(dev); head = nn.Linear(256, 2).to(dev)
params = list(emb.parameters()) + list(att.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=1e-4)
for step in range(3):
    input_ids = torch.randint(1, 1000, (8, 64), device=dev)
    lengths = torch.randint(16, 65, (8,), device=dev)
    attention_mask = (torch.arange(64, device=dev)[None, :] < lengths[:, None]).long()
    labels = torch.randint(0, 2, (8,), device=dev)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        h = att(emb(input_ids), attention_mask)
        loss = F.cross_entropy(head(h[:, 0]), labels)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
'''}

# evaluation after converting the model to half to save memory; features stay float32
P["eval_half_model_float_input"] = {"train.py": HDR + r'''
dev = torch.device("cuda")
torch.manual_seed(0)
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(128, 256, device=dev); y = torch.randint(0, 10, (128,), device=dev)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
print(f"train done, last loss {loss.item():.4f}", flush=True)
model.eval().half()                      # halve memory for the big eval set
correct = 0
with torch.no_grad():
    for i in range(10):
        feats = torch.randn(512, 256).to(dev)      # float32 features from the eval loader
        pred = model(feats).argmax(-1)
        correct += (pred == torch.randint(0, 10, (512,), device=dev)).sum().item()
print("eval acc", correct / 5120, flush=True)
'''}

# metrics computed with numpy on tensors still on the GPU
P["metrics_numpy_on_cuda"] = {"train.py": HDR + r'''
import numpy as np
dev = torch.device("cuda")
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
def f1_macro(pred, target, n=10):
    p = pred.numpy(); t = target.numpy()
    scores = []
    for c in range(n):
        tp = np.sum((p == c) & (t == c)); fp = np.sum((p == c) & (t != c)); fn = np.sum((p != c) & (t == c))
        scores.append(2 * tp / max(1, 2 * tp + fp + fn))
    return float(np.mean(scores))
for epoch in range(2):
    for step in range(10):
        x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} train loss {loss.item():.4f}", flush=True)
    model.eval()
    with torch.no_grad():
        x = torch.randn(256, 256, device=dev); y = torch.randint(0, 10, (256,), device=dev)
        pred = model(x).argmax(-1)
    print(f"epoch {epoch} val f1 {f1_macro(pred, y):.4f}", flush=True)
    model.train()
'''}

# a model split over cuda:0 and cuda:1 (naive model parallel) wrapped in DDP with device_ids=[local_rank]
P["ddp_module_on_two_gpus"] = {"train_mp.py": HDR + r'''
class TwoGPU(nn.Module):
    def __init__(self):
        super().__init__()
        self.part1 = nn.Sequential(Block(), Block()).to("cuda:0")
        self.part2 = nn.Sequential(Block(), nn.Linear(256, 10)).to("cuda:1")
    def forward(self, x):
        return self.part2(self.part1(x.to("cuda:0")).to("cuda:1"))
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=20))
print(f"rank {RANK}/{WORLD} visible gpus {torch.cuda.device_count()}", flush=True)
model = TwoGPU()
model = nn.parallel.DistributedDataParallel(model, device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(3):
    out = model(torch.randn(32, 256))
    loss = F.cross_entropy(out, torch.randint(0, 10, (32,), device="cuda:1"))
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''}

# AMP loop: clip helper unscales, and the loop unscales again before stepping
P["gradscaler_unscale_twice"] = {"train.py": HDR + r'''
dev = torch.device("cuda")
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
def clip_gradients(model, opt, max_norm=1.0):
    scaler.unscale_(opt)
    return torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
for step in range(10):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    gn = clip_gradients(model, opt)
    scaler.unscale_(opt)        # "make sure grads are unscaled before the step"
    scaler.step(opt)
    scaler.update()
    print(f"step {step} loss {loss.item():.4f} grad_norm {gn.item():.3f}", flush=True)
'''}

# tokenizer without a pad token used with DataCollatorWithPadding
P["tokenizer_no_pad_token"] = {"train.py": r'''
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast, DataCollatorWithPadding
words = "the a cat dog sat on mat ran fast slow red blue big small house tree <unk> </s>".split()
tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
tk.pre_tokenizer = pre_tokenizers.Whitespace()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", eos_token="</s>")
texts = ["the cat sat on the mat", "a dog ran fast", "the big red house", "a small blue tree ran"] * 16
features = [dict(tokenizer(t), labels=i % 2) for i, t in enumerate(texts)]
loader = torch.utils.data.DataLoader(features, batch_size=8, collate_fn=DataCollatorWithPadding(tokenizer))
emb = torch.nn.EmbeddingBag(len(words), 64).cuda(); head = torch.nn.Linear(64, 2).cuda()
opt = torch.optim.AdamW(list(emb.parameters()) + list(head.parameters()), lr=1e-3)
for step, batch in enumerate(loader):
    batch = {k: v.cuda() for k, v in batch.items()}
    loss = torch.nn.functional.cross_entropy(head(emb(batch["input_ids"])), batch["labels"])
    opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, "loss", round(loss.item(), 4), flush=True)
'''}

# patch embedding: (B, C, H, W) -> transpose -> view instead of reshape
P["view_after_transpose"] = {"train.py": HDR + r'''
class PatchEmbed(nn.Module):
    def __init__(self, p=4, d=256):
        super().__init__()
        self.proj = nn.Conv2d(3, d, kernel_size=p, stride=p)
    def forward(self, img):
        x = self.proj(img)                       # B, d, H/p, W/p
        B, D, H, W = x.shape
        return x.transpose(1, 3).view(B, H * W, D)  # tokens
dev = torch.device("cuda")
pe = PatchEmbed().to(dev); body = nn.Sequential(Block(), Block()).to(dev); head = nn.Linear(256, 10).to(dev)
opt = torch.optim.AdamW([*pe.parameters(), *body.parameters(), *head.parameters()], lr=1e-3)
for step in range(3):
    img = torch.randn(16, 3, 32, 32, device=dev)
    loss = F.cross_entropy(head(body(pe(img)).mean(1)), torch.randint(0, 10, (16,), device=dev))
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
'''}

# sampling with temperature 0.0 from the eval config -> softmax(logits / 0) -> nan probabilities
P["sample_temperature_zero"] = {"sample.py": HDR + r'''
dev = torch.device("cuda")
torch.manual_seed(0)
vocab = 5000
emb = nn.Embedding(vocab, 256).to(dev); body = nn.Sequential(Block(), Block()).to(dev); lm_head = nn.Linear(256, vocab).to(dev)
cfg = {"max_new_tokens": 16, "temperature": float(os.environ.get("GEN_TEMPERATURE", "0.0")), "top_k": 0}
print("generation config", cfg, flush=True)
ids = torch.randint(0, vocab, (4, 8), device=dev)
with torch.no_grad():
    for t in range(cfg["max_new_tokens"]):
        logits = lm_head(body(emb(ids)))[:, -1, :]
        probs = torch.softmax(logits / cfg["temperature"], dim=-1)
        nxt = torch.multinomial(probs, num_samples=1)
        ids = torch.cat([ids, nxt], dim=1)
print("sampled", ids[:, 8:].tolist(), flush=True)
'''}

# each rank checks its own loss for NaN and raises; a bad record sits in rank 1's shard only
P["nan_guard_one_rank"] = {"train_ddp.py": HDR + r'''
dev = setup(seconds=20)
torch.manual_seed(0)
model = nn.parallel.DistributedDataParallel(Net().to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
g = torch.Generator().manual_seed(100 + RANK)
for step in range(8):
    x = torch.randn(32, 256, generator=g)
    if RANK == 1 and step == 4:
        x[3, 17] = float("nan")            # shard-00001: one record has a missing feature
    x = x.to(dev); y = torch.randint(0, 10, (32,), device=dev)
    loss = F.cross_entropy(model(x), y)
    if torch.isnan(loss):
        raise FloatingPointError(f"[rank {RANK}] NaN loss detected at step {step}; aborting")
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {RANK}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''}

# (b) environment / configuration ------------------------------------------------------------------
ALLREDUCE = HDR + r'''
dev = setup(seconds=20)
model = nn.parallel.DistributedDataParallel(Net().to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 5 == 0 and RANK == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
big = torch.ones(1 << 24, device=dev)
dist.all_reduce(big)
torch.cuda.synchronize()
if RANK == 0:
    print("all_reduce check", big[0].item(), flush=True)
dist.destroy_process_group()
'''
P["nccl_graph_file_missing"] = {"train_ddp.py": ALLREDUCE}
P["nccl_nthreads_invalid"] = {"train_ddp.py": ALLREDUCE}
P["nccl_p2p_level_invalid"] = {"train_ddp.py": ALLREDUCE}
P["nccl_min_nchannels_huge"] = {"train_ddp.py": ALLREDUCE}

SIMPLE = HDR + r'''
dev = torch.device("cuda")
torch.manual_seed(0)
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(30):
    x = torch.randn(128, 256, device=dev); y = torch.randint(0, 10, (128,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} mem {torch.cuda.memory_allocated() / 2**20:.1f} MiB", flush=True)
print("done", flush=True)
'''
P["alloc_conf_gc_threshold_gt1"] = {"train.py": SIMPLE}
P["alloc_conf_async_expandable"] = {"train.py": SIMPLE}
P["cuda_module_loading_bogus"] = {"train.py": SIMPLE}

# job script expects MIG instances on the node
P["mig_instances_expected"] = {"job.sh": r'''#!/bin/bash
set -euo pipefail
echo "[job] $(date -u +%FT%TZ) host $(hostname) selecting MIG instance for this job"
nvidia-smi --query-gpu=index,name,mig.mode.current,mig.mode.pending --format=csv
nvidia-smi mig -lgi
MIG_DEV=$(nvidia-smi -L | grep -o 'MIG-[0-9a-f-]*' | head -1)
export CUDA_VISIBLE_DEVICES=$MIG_DEV
exec python3 train.py
''', "train.py": SIMPLE}

# TRITON_PTXAS_PATH left over from an older CUDA install
P["triton_ptxas_path_stale"] = {"train.py": HDR + r'''
dev = torch.device("cuda")
model = Net().to(dev)
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    loss = F.cross_entropy(cmodel(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
'''}

# TORCH_DISTRIBUTED_DEBUG set to a value torch does not accept
P["tdd_value_verbose"] = {"train_ddp.py": ALLREDUCE}

# deterministic mode without CUBLAS_WORKSPACE_CONFIG
P["deterministic_no_cublas_workspace"] = {"train.py": HDR + r'''
import numpy as np
def seed_everything(seed=1234):
    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed); torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True)
seed_everything()
dev = torch.device("cuda")
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
'''}

# pretrained torchvision weights on a compute node with no internet access
P["torchvision_weights_offline"] = {"train.py": r'''
import torch, torchvision
print("torch", torch.__version__, "torchvision", torchvision.__version__, flush=True)
model = torchvision.models.resnet50(weights=torchvision.models.ResNet50_Weights.IMAGENET1K_V2)
model.fc = torch.nn.Linear(model.fc.in_features, 37)
model = model.cuda()
print("model ready", flush=True)
'''}

# resume from a checkpoint folder that does not exist on this node
P["hf_resume_path_missing"] = {"finetune.py": r'''
import os, torch
from transformers import AutoModelForSequenceClassification
init = os.environ.get("INIT_CHECKPOINT", "/scratch/runs/bert-ft/checkpoint-1500")
print("loading", init, flush=True)
model = AutoModelForSequenceClassification.from_pretrained(init, num_labels=3).cuda()
print("loaded", flush=True)
'''}

# (c) told in words --------------------------------------------------------------------------------
# optimizer built from the parameters before FSDP wrapping (FSDP1 flattens them)
P["w_fsdp_optimizer_before_wrap"] = {"train_fsdp.py": HDR + r'''
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
dev = setup(seconds=30)
torch.manual_seed(0)
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
model = FSDP(model, device_id=dev)
g = torch.Generator(device=dev).manual_seed(7)
X = torch.randn(256, 256, device=dev, generator=g); Y = torch.randint(0, 10, (256,), device=dev, generator=g)
for step in range(60):
    loss = F.cross_entropy(model(X), Y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0 and RANK == 0:
        print(f"step {step:3d} loss {loss.item():.4f}", flush=True)
if RANK == 0:
    print("training finished", flush=True)
dist.destroy_process_group()
'''}

# DistributedSampler without set_epoch: same order every epoch
P["w_sampler_no_set_epoch"] = {"train_ddp.py": HDR + r'''
from torch.utils.data import DataLoader, TensorDataset, DistributedSampler
dev = setup(seconds=30)
torch.manual_seed(0)
ds = TensorDataset(torch.arange(64), torch.randn(64, 256), torch.randint(0, 10, (64,)))
sampler = DistributedSampler(ds, shuffle=True)
loader = DataLoader(ds, batch_size=8, sampler=sampler)
model = nn.parallel.DistributedDataParallel(Net().to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(3):
    first = None
    for idx, x, y in loader:
        if first is None:
            first = idx.tolist()
        loss = F.cross_entropy(model(x.to(dev)), y.to(dev))
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"[rank {RANK}] epoch {epoch} first batch ids {first} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''}

# every rank loads the checkpoint without map_location -> tensors land on cuda:0 for all ranks
P["w_resume_all_on_gpu0"] = {"train_ddp.py": HDR + r'''
import subprocess
dev = setup(seconds=30)
if RANK == 0 and not os.path.exists("ckpt.pt"):
    torch.save({"model": Net().cuda(0).state_dict(), "extra": torch.randn(256, 1024, 1024, device="cuda:0")}, "ckpt.pt")
dist.barrier()
state = torch.load("ckpt.pt")                     # resume
model = Net().to(dev)
model.load_state_dict(state["model"])
model = nn.parallel.DistributedDataParallel(model, device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
torch.cuda.synchronize()
dist.barrier()
if RANK == 0:
    print(subprocess.run(["nvidia-smi", "--query-compute-apps=pid,gpu_bus_id,used_memory", "--format=csv"],
                         capture_output=True, text=True).stdout, flush=True)
    print(subprocess.run(["nvidia-smi", "--query-gpu=index,pci.bus_id,memory.used", "--format=csv"],
                         capture_output=True, text=True).stdout, flush=True)
print(f"[rank {RANK}] resumed, step 20 loss {loss.item():.4f}", flush=True)
dist.barrier()
dist.destroy_process_group()
'''}

# CUDA_VISIBLE_DEVICES set from inside the script after torch has initialised CUDA
P["w_cvd_set_in_script_late"] = {"train.py": HDR + r'''
import subprocess
print(f"torch {torch.__version__}, cuda available: {torch.cuda.is_available()}, gpus: {torch.cuda.device_count()}", flush=True)
os.environ["CUDA_VISIBLE_DEVICES"] = "1"      # GPU 0 is for the other experiment
dev = torch.device("cuda:0")
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(200):
    x = torch.randn(512, 256, device=dev); y = torch.randint(0, 10, (512,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 50 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
torch.cuda.synchronize()
print(subprocess.run(["nvidia-smi", "--query-compute-apps=pid,gpu_bus_id,used_memory", "--format=csv"],
                     capture_output=True, text=True).stdout, flush=True)
print(subprocess.run(["nvidia-smi", "--query-gpu=index,pci.bus_id,memory.used", "--format=csv"],
                     capture_output=True, text=True).stdout, flush=True)
'''}

# data shuffled with Python's random, which is never seeded (only torch is)
P["w_loss_differs_runs"] = {"train.py": HDR + r'''
torch.manual_seed(42); torch.cuda.manual_seed_all(42)
dev = torch.device("cuda")
data = [(torch.randn(256), i % 10) for i in range(512)]
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(2):
    random.shuffle(data)
    for i in range(0, len(data), 64):
        xb = torch.stack([d[0] for d in data[i:i + 64]]).to(dev)
        yb = torch.tensor([d[1] for d in data[i:i + 64]], device=dev)
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"seed 42 epoch {epoch} loss {loss.item():.6f}", flush=True)
'''}

# gradient accumulation with no_sync on every micro-batch (the last one included): ranks drift apart
P["w_no_sync_every_micro_step"] = {"train_ddp.py": HDR + r'''
dev = setup(seconds=30)
torch.manual_seed(0)
model = nn.parallel.DistributedDataParallel(Net().to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
accum = 4
g = torch.Generator(device=dev).manual_seed(1000 + RANK)
for step in range(40):
    for micro in range(accum):
        x = torch.randn(16, 256, device=dev, generator=g); y = torch.randint(0, 10, (16,), device=dev, generator=g)
        with model.no_sync():
            loss = F.cross_entropy(model(x), y) / accum
            loss.backward()
    opt.step(); opt.zero_grad()
    if step % 10 == 0:
        print(f"[rank {RANK}] step {step} loss {loss.item() * accum:.4f}", flush=True)
with torch.no_grad():
    s = sum(p.double().sum().item() for p in model.parameters())
print(f"[rank {RANK}] final weights checksum {s:.6f}", flush=True)
dist.destroy_process_group()
'''}

# (d) healthy --------------------------------------------------------------------------------------
P["healthy_scheduler_before_step_warning"] = {"train.py": HDR + r'''
dev = torch.device("cuda")
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=100)
scaler = torch.amp.GradScaler("cuda", init_scale=2.0 ** 24)
for step in range(100):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt); scaler.update(); sched.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e} scale {scaler.get_scale():.0f}", flush=True)
print("done", flush=True)
'''}

P["healthy_nvidia_smi_q_prolog"] = {"job.sh": r'''#!/bin/bash
echo "=== prolog: GPU state ==="
nvidia-smi -q -d PERFORMANCE,CLOCK,ECC,POWER -i 0
nvidia-smi --query-gpu=index,persistence_mode,mig.mode.current,compute_mode --format=csv
echo "=== training ==="
exec python3 train.py
''', "train.py": SIMPLE}

P["healthy_max_autotune"] = {"train.py": HDR + r'''
dev = torch.device("cuda")
model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 512)).to(dev)
cmodel = torch.compile(model, mode="max-autotune-no-cudagraphs")
x = torch.randn(256, 512, device=dev)
for i in range(3):
    y = cmodel(x)
torch.cuda.synchronize()
print("compiled ok", y.shape, flush=True)
'''}

P["healthy_sync_debug_warn"] = {"train.py": HDR + r'''
dev = torch.device("cuda")
torch.cuda.set_sync_debug_mode("warn")
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(12):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 4 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
torch.cuda.set_sync_debug_mode(0)
print("done", flush=True)
'''}

P["healthy_elastic_restart_recovered"] = {"train_ddp.py": HDR + r'''
dev = setup(seconds=30)
marker = "stage_ok.flag"
if RANK == 1 and not os.path.exists(marker):
    open(marker, "w").write("x")
    raise RuntimeError("shard /data/train-00001.bin not yet staged on this node (attempt failed, will be retried)")
model = nn.parallel.DistributedDataParallel(Net().to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
if RANK == 0:
    print(f"restart {os.environ.get('TORCHELASTIC_RESTART_COUNT')} finished 10 steps, loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''}

P["healthy_fsdp_full_state_dict"] = {"train_fsdp.py": HDR + r'''
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, StateDictType, FullStateDictConfig
dev = setup(seconds=30)
torch.manual_seed(0)
model = FSDP(Net().to(dev), device_id=dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(32, 256, device=dev)
    loss = F.cross_entropy(model(x), torch.randint(0, 10, (32,), device=dev))
    opt.zero_grad(); loss.backward(); opt.step()
cfg = FullStateDictConfig(offload_to_cpu=True, rank0_only=True)
with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
    sd = model.state_dict()
if RANK == 0:
    torch.save(sd, "model_final.pt")
    print(f"[rank0] saved model_final.pt with {len(sd)} tensors", flush=True)
dist.barrier()
dist.destroy_process_group()
'''}

P["healthy_ddp_join_uneven"] = {"train_ddp.py": HDR + r'''
from torch.distributed.algorithms.join import Join
dev = setup(seconds=30)
model = nn.parallel.DistributedDataParallel(Net().to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
n_batches = 10 + 3 * RANK        # uneven shards
with Join([model]):
    for step in range(n_batches):
        x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
print(f"[rank {RANK}] done {n_batches} batches loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''}


# ---------------------------------------------------------------- run 2 (added after run 1; run 1's programs above are unchanged)
# (a) user code
# mixup / label smoothing code path: one-hot labels stay int64 and go to cross_entropy as class probabilities
P["onehot_long_target"] = {"train.py": HDR + r"""
dev = torch.device("cuda")
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
def soft_targets(y, n=10, smoothing=0.0):
    t = F.one_hot(y, n)
    if smoothing > 0:
        t = t * (1 - smoothing) + smoothing / n
    return t
for step in range(5):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    loss = F.cross_entropy(model(x), soft_targets(y, smoothing=float(os.environ.get("LABEL_SMOOTHING", "0"))))
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
"""}

# validation accuracy: integer counts averaged across ranks with ReduceOp.AVG
P["allreduce_avg_int_counts"] = {"train_ddp.py": HDR + r"""
dev = setup(seconds=20)
model = nn.parallel.DistributedDataParallel(Net().to(dev), device_ids=[LOCAL_RANK])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
model.eval()
with torch.no_grad():
    x = torch.randn(500, 256, device=dev); y = torch.randint(0, 10, (500,), device=dev)
    correct = (model(x).argmax(-1) == y).sum()
    stats = torch.stack([correct, torch.tensor(500, device=dev)])
    dist.all_reduce(stats, op=dist.ReduceOp.AVG)
    torch.cuda.synchronize()
print(f"[rank {RANK}] val acc {stats[0].item() / stats[1].item():.4f}", flush=True)
dist.destroy_process_group()
"""}

# BatchNorm head, DataLoader without drop_last: the last batch of the epoch has one sample
P["batchnorm_last_batch_one"] = {"train.py": HDR + r"""
from torch.utils.data import DataLoader, TensorDataset
dev = torch.device("cuda")
ds = TensorDataset(torch.randn(1025, 256), torch.randint(0, 10, (1025,)))
loader = DataLoader(ds, batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(256, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Linear(512, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(dev)), y.to(dev))
        opt.zero_grad(); loss.backward(); opt.step()
    print(f"epoch {epoch} steps {i + 1} loss {loss.item():.4f}", flush=True)
"""}

# (b) environment / configuration
# reproducibility switch on (CUBLAS_WORKSPACE_CONFIG set as the docs say) with a CNN using adaptive pooling
P["deterministic_adaptive_pool"] = {"train.py": HDR + r"""
import numpy as np
random.seed(0); np.random.seed(0); torch.manual_seed(0)
torch.use_deterministic_algorithms(True)
torch.backends.cudnn.benchmark = False
dev = torch.device("cuda")
model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
                      nn.AdaptiveAvgPool2d((7, 7)), nn.Flatten(), nn.Linear(64 * 49, 10)).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(5):
    x = torch.randn(32, 3, 64, 64, device=dev); y = torch.randint(0, 10, (32,), device=dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
"""}

P["torch_logs_typo"] = {"train.py": SIMPLE}
P["cvd_list_with_space"] = {"train_ddp.py": ALLREDUCE}

# accelerate: mixed precision taken from the environment (fp8 exported in the job template)
P["accelerate_fp8_from_env"] = {"train.py": r"""
import torch, torch.nn as nn, torch.nn.functional as F
from accelerate import Accelerator
accelerator = Accelerator()
print("mixed precision:", accelerator.mixed_precision, "device:", accelerator.device, flush=True)
model = nn.Sequential(nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 10))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
model, opt = accelerator.prepare(model, opt)
for step in range(5):
    x = torch.randn(64, 256, device=accelerator.device); y = torch.randint(0, 10, (64,), device=accelerator.device)
    loss = F.cross_entropy(model(x), y)
    accelerator.backward(loss); opt.step(); opt.zero_grad()
    accelerator.print(f"step {step} loss {loss.item():.4f}")
"""}

CKPT = HDR + r"""
dev = torch.device("cuda")
model = Net().to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
os.makedirs("checkpoints", exist_ok=True)
for epoch in range(3):
    for step in range(20):
        x = torch.randn(64, 256, device=dev); y = torch.randint(0, 10, (64,), device=dev)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    path = f"checkpoints/epoch_{epoch}.pt"
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": opt.state_dict()}, path)
    print(f"epoch {epoch} loss {loss.item():.4f} saved {path} ({os.path.getsize(path) / 2**20:.1f} MiB)", flush=True)
"""
P["ckpt_dir_quota_full"] = {"train.py": CKPT}
P["ulimit_fsize_ckpt"] = {"train.py": CKPT}
P["nccl_work_fifo_not_pow2"] = {"train_ddp.py": ALLREDUCE}


def tr(port, prog, nproc=2, extra=""):
    return "%s -m torch.distributed.run --nproc-per-node %d --master-port %d %s%s" % (PY, nproc, port, extra, prog)


def scenarios():
    W = {"NCCL_DEBUG": "WARN"}
    py = PY
    return {
        # ---- long ones first (hangs / compile) ----
        "fsdp_state_dict_rank0_only": (tr(29701, "train_fsdp.py"), dict(W), 90),
        "nan_guard_one_rank": (tr(29702, "train_ddp.py"), dict(W), 70),
        "triton_ptxas_path_stale": ("%s train.py" % py, {"TRITON_PTXAS_PATH": "/usr/local/cuda-11.8/bin/ptxas"}, 120),
        "healthy_max_autotune": ("%s train.py" % py, {}, 150),
        "healthy_elastic_restart_recovered": (tr(29703, "train_ddp.py", extra="--max-restarts 1 "), dict(W), 90),
        "device_map_max_memory_disk": ("%s infer.py" % py, {}, 90),
        # ---- (a) user code ----
        "fp16_pure_overflow": ("%s train.py" % py, {}, 60),
        "sdpa_long_mask": ("%s train.py" % py, {}, 60),
        "eval_half_model_float_input": ("%s train.py" % py, {}, 60),
        "metrics_numpy_on_cuda": ("%s train.py" % py, {}, 60),
        "ddp_module_on_two_gpus": (tr(29704, "train_mp.py", nproc=1), dict(W), 60),
        "gradscaler_unscale_twice": ("%s train.py" % py, {}, 60),
        "tokenizer_no_pad_token": ("%s train.py" % py, {}, 60),
        "view_after_transpose": ("%s train.py" % py, {}, 60),
        "sample_temperature_zero": ("%s sample.py" % py, {}, 60),
        # ---- (b) environment ----
        "nccl_graph_file_missing": (tr(29710, "train_ddp.py"), dict(W, NCCL_GRAPH_FILE="/opt/nccl/graphs/dgx-h100-graph.xml"), 70),
        "nccl_nthreads_invalid": (tr(29711, "train_ddp.py"), dict(W, NCCL_NTHREADS="100"), 70),
        "nccl_p2p_level_invalid": (tr(29712, "train_ddp.py"), dict(W, NCCL_P2P_LEVEL="NVLINK"), 70),
        "nccl_min_nchannels_huge": (tr(29713, "train_ddp.py"), dict(W, NCCL_MIN_NCHANNELS="256"), 70),
        "alloc_conf_gc_threshold_gt1": ("%s train.py" % py, {"PYTORCH_CUDA_ALLOC_CONF": "garbage_collection_threshold:1.5,max_split_size_mb:512"}, 60),
        "alloc_conf_async_expandable": ("%s train.py" % py, {"PYTORCH_CUDA_ALLOC_CONF": "backend:cudaMallocAsync,expandable_segments:True"}, 60),
        "cuda_module_loading_bogus": ("%s train.py" % py, {"CUDA_MODULE_LOADING": "FAST"}, 60),
        "mig_instances_expected": ("bash job.sh", {}, 60),
        "tdd_value_verbose": (tr(29714, "train_ddp.py"), dict(W, TORCH_DISTRIBUTED_DEBUG="VERBOSE"), 70),
        "deterministic_no_cublas_workspace": ("%s train.py" % py, {}, 60),
        "torchvision_weights_offline": ("%s train.py" % py, {"TORCH_HOME": "/tmp/p7-torch-home-empty"}, 60),
        "hf_resume_path_missing": ("%s finetune.py" % py, {}, 60),
        # ---- (c) words ----
        "w_fsdp_optimizer_before_wrap": (tr(29720, "train_fsdp.py"), dict(W), 90),
        "w_sampler_no_set_epoch": (tr(29721, "train_ddp.py"), dict(W), 70),
        "w_resume_all_on_gpu0": (tr(29722, "train_ddp.py"), dict(W), 80),
        "w_cvd_set_in_script_late": ("%s train.py" % py, {}, 60),
        "w_loss_differs_runs": ("%s train.py; %s train.py" % (py, py), {}, 80),
        "w_no_sync_every_micro_step": (tr(29723, "train_ddp.py"), dict(W), 80),
        # ---- (d) healthy ----
        "healthy_scheduler_before_step_warning": ("%s train.py" % py, {}, 60),
        "healthy_nvidia_smi_q_prolog": ("bash job.sh", {}, 60),
        "healthy_sync_debug_warn": ("%s train.py" % py, {}, 60),
        "healthy_fsdp_full_state_dict": (tr(29724, "train_fsdp.py"), dict(W), 80),
        "healthy_ddp_join_uneven": (tr(29725, "train_ddp.py"), {"TORCH_DISTRIBUTED_DEBUG": "INFO", "NCCL_DEBUG": "WARN"}, 80),
        # ---- run 2 ----
        "onehot_long_target": ("%s train.py" % py, {}, 60),
        "allreduce_avg_int_counts": (tr(29730, "train_ddp.py"), dict(W), 70),
        "batchnorm_last_batch_one": ("%s train.py" % py, {}, 60),
        "deterministic_adaptive_pool": ("%s train.py" % py, {"CUBLAS_WORKSPACE_CONFIG": ":4096:8"}, 60),
        "torch_logs_typo": ("%s train.py" % py, {"TORCH_LOGS": "+dynamo,guards,recompile"}, 60),
        "cvd_list_with_space": (tr(29731, "train_ddp.py"), dict(W, CUDA_VISIBLE_DEVICES="0, 1"), 70),
        "accelerate_fp8_from_env": ("%s train.py" % py, {"ACCELERATE_MIXED_PRECISION": "fp8"}, 60),
        "ckpt_dir_quota_full": ("mkdir -p checkpoints && unshare -m sh -c 'mount -t tmpfs -o size=40m tmpfs checkpoints && exec %s train.py'" % py, {}, 60),
        "ulimit_fsize_ckpt": ("ulimit -f 20480; %s train.py" % py, {}, 60),
        "nccl_work_fifo_not_pow2": (tr(29732, "train_ddp.py"), dict(W, NCCL_WORK_FIFO_BYTES="1000000"), 70),
    }


T_START = time.time()
START_BY_S = float(os.environ.get("P7_START_BY_S", "230"))
END_BY_S = float(os.environ.get("P7_END_BY_S", "300"))


def run_one(name, spec, d, out):
    cmd, env_add, limit = spec
    if time.time() - T_START > START_BY_S:
        return {"name": name, "cmd": cmd, "env": env_add, "rc": "not started (time)", "seconds": 0, "dir": d}
    limit = int(min(limit, max(5, END_BY_S - (time.time() - T_START))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
    t0 = time.time()
    with open(os.path.join(out, name + ".log"), "wb") as log:
        proc = subprocess.Popen(cmd, shell=True, executable="/bin/bash", cwd=d, stdout=log,
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
    return {"name": name, "cmd": cmd, "env": env_add, "rc": rc, "seconds": round(time.time() - t0, 1),
            "start_utc": time.strftime("%H:%M:%S", time.gmtime(t0)), "dir": d}


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
        "libs": sh("%s -m pip list 2>/dev/null | grep -iE '^(torch|torchvision|transformers|accelerate|triton|tokenizers|numpy|nvidia-nccl)'" % PY),
        "python": sys.version.split()[0],
        "python_path": PY,
        "kernel": sh("uname -r"),
        "hostname": sh("hostname"),
        "nproc": sh("nproc"),
        "mem": sh("free -g | head -2"),
        "overcommit": sh("cat /proc/sys/vm/overcommit_memory"),
        "ulimit": sh("ulimit -a"),
        "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_", "PYTORCH", "TRITON", "HF_"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p7out"
    os.makedirs(out, exist_ok=True)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    os.environ["NVSHMEM_DISABLE_NVLS"] = "1"
    os.makedirs("/tmp/p7-torch-home-empty", exist_ok=True)
    base = tempfile.mkdtemp(prefix="p7-")
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    dirs = {}
    for i, name in enumerate(want):
        d = os.path.join(base, "job%02d" % i)
        os.makedirs(d)
        for fn, src in P[name].items():
            with open(os.path.join(d, fn), "w") as f:
                f.write(src.lstrip() if fn.endswith(".py") else src)
        dirs[name] = d
    results = []
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P7_JOBS", "10"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], dirs[k], out) for k in want]
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results.append(r)
            print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)
    results.sort(key=lambda r: want.index(r["name"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"facts": facts(), "programs_dir": base, "wall_s": round(time.time() - T_START, 1),
                   "scenarios": results, "programs": {k: P[k] for k in want}}, f, indent=1)
    subprocess.run("cd %s && tar czf logs.tar.gz *.log && rm -f *.log" % out, shell=True)
    print("done in %.0f s" % (time.time() - T_START), flush=True)


if __name__ == "__main__":
    main()
