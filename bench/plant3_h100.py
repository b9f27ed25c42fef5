#!/usr/bin/env python3
"""P3: plant one-bug torch programs / launcher and environment mistakes on a real H100, keep
verbatim logs, for an independent held-out set for `gpudoctor explain` (issue 18).

Made by the planted-3 evaluator. None of these bugs was planted before (bench/plant_h100.py,
bench/plant_h100x2.py, bench/plant2_h100.py). Self-contained: writes the programs to
/tmp/p3-XXXX/ (neutral file names, no trailing comments on lines a traceback could show),
runs an optional hidden preparation step per scenario (its output goes to the manifest, not to
the log), then the scenario's command under a wall-clock limit (whole process group killed at
the limit), saving stdout+stderr verbatim to <out>/<name>.log, plus <out>/manifest.json
(command, extra env, exit status, seconds, machine facts, program sources). Logs are packed into
<out>/logs.tar.gz (the device tool brings back at most 8 files).

Two NCCL ranks share the one GPU: each sets NCCL_HOSTID=node<rank> before init, so NCCL takes
them for two nodes (NCCL src/misc/utils.cc getHostHash), as bench/plant2_h100.py did.
NCCL_NVLS_ENABLE=0 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1 are set if absent, never unset.

Kept exactly as it ran (the record of bench/data/explain_heldout_2026-11-26p3.jsonl): its runner,
process-group kill and machine facts repeat bench/plant2_h100.py's on purpose, so that one file carries to the
GPU machine alone and the set's logs stay reproducible from this file as it was.

    OUT=/tmp/out python3 plant3_h100.py [NAMES]
"""
import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PY = sys.executable

COMMON = r'''
import datetime, os, sys, time
import torch
import torch.distributed as dist
RANK = int(os.environ.get("RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))
def init(backend, fake_hosts=False, seconds=20):
    if fake_hosts:
        os.environ["NCCL_HOSTID"] = "node%d" % RANK
    if backend == "nccl":
        torch.cuda.set_device(0)
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=seconds))
'''

PROGS = {
    # ================= (a) user code / data =================
    # FSDP (v1) over a module with a frozen first layer, use_orig_params left False
    "train_fsdp.py": COMMON + r'''
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
init("nccl", fake_hosts=True)
model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
for p in model[0].parameters():
    p.requires_grad_(False)
model = FSDP(model, device_id=torch.cuda.current_device())
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(3):
    loss = model(torch.randn(32, 128, device="cuda")).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    # FSDP2 sharded state_dict copied into a plain (unsharded) model for evaluation
    "train_fsdp2.py": COMMON + r'''
import torch.nn as nn
from torch.distributed.fsdp import fully_shard
init("nccl", fake_hosts=True)
def build():
    return nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 64))
model = build().cuda()
for layer in model:
    if isinstance(layer, nn.Linear):
        fully_shard(layer)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(3):
    loss = model(torch.randn(16, 64, device="cuda")).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
if RANK == 0:
    print("running evaluation on rank 0", flush=True)
    eval_model = build().cuda()
    eval_model.load_state_dict(model.state_dict())
    with torch.no_grad():
        print("eval loss", eval_model(torch.randn(16, 64, device="cuda")).pow(2).mean().item(), flush=True)
dist.barrier()
dist.destroy_process_group()
''',
    # DDP(static_graph=True) with a head that is chosen per step
    "train_multitask.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo")
class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(32, 64), nn.ReLU())
        self.cls_head = nn.Linear(64, 5)
        self.reg_head = nn.Linear(64, 1)
    def forward(self, x, task):
        h = self.trunk(x)
        if task == "cls":
            return self.cls_head(h)
        return self.reg_head(h)
model = DDP(MultiTask(), static_graph=True)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
tasks = ["cls", "cls", "reg", "cls"]
for step, task in enumerate(tasks):
    out = model(torch.randn(16, 32), task)
    loss = out.pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} task {task} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    # a layer used only when the batch has images: rank 1 gets a text-only batch
    "train_mm.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo", seconds=20)
class MultiModal(nn.Module):
    def __init__(self):
        super().__init__()
        self.text = nn.Linear(32, 32)
        self.vision = nn.Linear(48, 32)
        self.out = nn.Linear(32, 2)
    def forward(self, tokens, pixels=None):
        h = self.text(tokens)
        if pixels is not None:
            h = h + self.vision(pixels)
        return self.out(torch.relu(h))
model = DDP(MultiModal())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    tokens = torch.randn(8, 32)
    has_images = not (RANK == 1 and step == 1)
    pixels = torch.randn(8, 48) if has_images else None
    loss = model(tokens, pixels).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    # rank 0 writes the checkpoint; the others poll for the file and load it at once
    "train_resume.py": COMMON + r'''
import torch.nn as nn
init("gloo", seconds=60)
torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(4096, 4096) for _ in range(4)])
path = os.path.join("checkpoints", "last.pt")
if RANK == 0:
    os.makedirs("checkpoints", exist_ok=True)
    print("rank 0: saving", path, flush=True)
    torch.save({"model": model.state_dict(), "step": 1000}, path)
    print("rank 0: saved", path, flush=True)
else:
    while not os.path.exists(path):
        time.sleep(0.05)
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    print(f"rank {RANK}: resumed from step {ckpt['step']}", flush=True)
dist.barrier()
dist.destroy_process_group()
''',
    # hidden prep: a checkpoint whose storages are tagged cuda:7 (as saved by rank 7 of an 8-GPU job)
    "prep_ckpt.py": r'''
import io, zipfile, torch, torch.nn as nn
model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
torch.save(model.state_dict(), "tmp_cuda0.pt")
zin = zipfile.ZipFile("tmp_cuda0.pt")
with zipfile.ZipFile("ckpt_node07_rank7.pt", "w", zipfile.ZIP_STORED) as zout:
    for info in zin.infolist():
        data = zin.read(info.filename)
        if info.filename.endswith("data.pkl"):
            assert b"cuda:0" in data
            data = data.replace(b"cuda:0", b"cuda:7")
        zout.writestr(info.filename, data)
sd = torch.load("ckpt_node07_rank7.pt", map_location="cpu")
print("prep ok:", list(sd)[:2])
''',
    "evaluate.py": r'''
import torch, torch.nn as nn
model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 10))
state = torch.load("ckpt_node07_rank7.pt")
model.load_state_dict(state)
model = model.cuda().eval()
with torch.no_grad():
    print(model(torch.randn(4, 128, device="cuda")).argmax(-1))
''',
    # the run config (with a lambda collate function) broadcast from rank 0
    "train_cfg.py": COMMON + r'''
init("gloo")
if RANK == 0:
    config = {"lr": 3e-4, "epochs": 2, "collate_fn": lambda batch: torch.stack(batch)}
else:
    config = None
payload = [config]
dist.broadcast_object_list(payload, src=0)
config = payload[0]
print(f"rank {RANK} got config lr={config['lr']}", flush=True)
dist.destroy_process_group()
''',
    # halo exchange: every rank receives from its neighbour before it sends
    "halo.py": COMMON + r'''
init("gloo", seconds=15)
peer = (RANK + 1) % WORLD
left = (RANK - 1) % WORLD
boundary = torch.full((4096,), float(RANK))
halo = torch.empty(4096)
print(f"rank {RANK}: exchanging halo with {left} and {peer}", flush=True)
dist.recv(halo, src=left)
dist.send(boundary, dst=peer)
print(f"rank {RANK}: halo {halo[0].item()}", flush=True)
dist.destroy_process_group()
''',
    # attention over the full document length; rank 1 gets a very long document at step 1
    "train_longdoc.py": COMMON + r'''
init("nccl", fake_hosts=True, seconds=30)
w = torch.randn(1024, 1024, device="cuda")
for step in range(3):
    seq = 2048 if not (RANK == 1 and step == 1) else 262144
    x = torch.randn(seq, 1024, device="cuda")
    q = x @ w
    scores = q @ q.T
    attn = torch.softmax(scores / 32.0, dim=-1)
    out = attn @ x
    grad = torch.ones(1 << 20, device="cuda") * out.mean()
    dist.all_reduce(grad)
    torch.cuda.synchronize()
    print(f"rank {RANK} step {step} seq {seq} ok", flush=True)
dist.destroy_process_group()
''',
    # contrastive loss on pairwise distances, anomaly detection on
    "train_contrastive.py": r'''
import torch, torch.nn as nn
torch.autograd.set_detect_anomaly(True)
torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16)).cuda()
opt = torch.optim.Adam(enc.parameters(), lr=1e-3)
for step in range(3):
    x = torch.randn(8, 32, device="cuda")
    z = enc(x)
    diff = z[:, None, :] - z[None, :, :]
    dist = diff.pow(2).sum(-1).sqrt()
    loss = torch.relu(1.0 - dist).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, "loss", loss.item(), flush=True)
''',
    # torch.distributed.checkpoint saved with one model version, loaded into the next one
    "train_dcp.py": COMMON + r'''
import torch.nn as nn
import torch.distributed.checkpoint as dcp
init("gloo", seconds=30)
class Model(nn.Module):
    def __init__(self, with_proj=False):
        super().__init__()
        self.encoder = nn.Linear(32, 64)
        self.decoder = nn.Linear(64, 32)
        if with_proj:
            self.proj = nn.Linear(64, 64)
    def forward(self, x):
        return self.decoder(torch.relu(self.encoder(x)))
ckpt_dir = os.path.join("ckpt_dcp", "step_500")
dcp.save({"model": Model().state_dict()}, checkpoint_id=ckpt_dir)
if RANK == 0:
    print("saved", ckpt_dir, flush=True)
dist.barrier()
model = Model(with_proj=True)
state = {"model": model.state_dict()}
dcp.load(state, checkpoint_id=ckpt_dir)
model.load_state_dict(state["model"])
print(f"rank {RANK} resumed", flush=True)
dist.destroy_process_group()
''',
    # a 2-D (data x tensor parallel) mesh laid out for 8 GPUs
    "train_tp.py": COMMON + r'''
from torch.distributed.device_mesh import init_device_mesh
init("nccl", fake_hosts=True)
mesh = init_device_mesh("cuda", (2, 4), mesh_dim_names=("dp", "tp"))
print(f"rank {RANK} mesh {mesh}", flush=True)
dist.destroy_process_group()
''',
    # column-wise sharding of a 2-D weight written as Shard(2)
    "shard_weights.py": COMMON + r'''
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import distribute_tensor, Shard
init("nccl", fake_hosts=True)
mesh = init_device_mesh("cuda", (WORLD,))
weight = torch.randn(1024, 512, device="cuda")
dweight = distribute_tensor(weight, mesh, [Shard(2)])
print(f"rank {RANK} local shard {tuple(dweight.to_local().shape)}", flush=True)
dist.destroy_process_group()
''',
    # torch.compile(fullgraph=True) of a DDP model whose forward logs a Python scalar
    "train_compiled.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("nccl")
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 256)
        self.fc2 = nn.Linear(256, 10)
    def forward(self, x):
        h = torch.relu(self.fc1(x))
        if h.abs().max().item() > 1e4:
            print("warning: large activations")
        return self.fc2(h)
model = DDP(Net().cuda(), device_ids=[0])
model = torch.compile(model, fullgraph=True)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    loss = model(torch.randn(64, 256, device="cuda")).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    # DistributedSampler plus shuffle=True in the DataLoader
    "train_loader.py": COMMON + r'''
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
init("gloo")
ds = TensorDataset(torch.randn(256, 16), torch.randint(0, 4, (256,)))
sampler = DistributedSampler(ds)
loader = DataLoader(ds, batch_size=32, sampler=sampler, shuffle=True, num_workers=2)
for epoch in range(2):
    for x, y in loader:
        pass
    print(f"rank {RANK} epoch {epoch} done", flush=True)
dist.destroy_process_group()
''',
    # a helper module that sets up distributed again after the script already did
    "train_setup.py": r'''
import datetime, os, torch, torch.distributed as dist
def setup_distributed():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    return dist.get_rank(), dist.get_world_size()
def main():
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    model = torch.nn.Linear(8, 8)
    rank, world = setup_distributed()
    print(f"rank {rank}/{world} ready", flush=True)
if __name__ == "__main__":
    main()
''',
    # SyncBatchNorm in a CPU (gloo) DDP job
    "train_bn.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo")
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 2))
net = nn.SyncBatchNorm.convert_sync_batchnorm(net)
model = DDP(net)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(4, 3, 16, 16)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    # MoE token dispatch: per-destination counts computed by integer division
    "moe_dispatch.py": COMMON + r'''
init("nccl", fake_hosts=True)
n_tokens = 9 if RANK == 0 else 11
tokens = torch.randn(n_tokens, 64, device="cuda")
send_counts = [n_tokens // WORLD] * WORLD
recv_counts = [4, 5] if RANK == 0 else [4, 5]
out = torch.empty(sum(recv_counts), 64, device="cuda")
dist.all_to_all_single(out, tokens, output_split_sizes=recv_counts, input_split_sizes=send_counts)
torch.cuda.synchronize()
print(f"rank {RANK} received {out.shape[0]} tokens", flush=True)
dist.destroy_process_group()
''',
    # a model method called through the DDP wrapper
    "train_cls.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo")
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
    def forward(self, x):
        return self.net(x)
    def predict(self, x):
        return self.forward(x).argmax(-1)
model = DDP(Classifier())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    x, y = torch.randn(8, 16), torch.randint(0, 3, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
acc = (model.predict(x) == y).float().mean()
print(f"rank {RANK} train acc {acc.item():.2f}", flush=True)
dist.destroy_process_group()
''',
    # truncated BPTT: the LSTM state is carried into the next batch
    "train_lstm.py": r'''
import torch, torch.nn as nn
torch.manual_seed(0)
rnn = nn.LSTM(16, 32, batch_first=True).cuda()
head = nn.Linear(32, 1).cuda()
opt = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-3)
state = None
for step in range(3):
    x = torch.randn(4, 20, 16, device="cuda")
    y = torch.randn(4, 20, 1, device="cuda")
    out, state = rnn(x, state)
    loss = (head(out) - y).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, "loss", loss.item(), flush=True)
''',
    # the training step keeps the decorator of the evaluation step it was copied from
    "train_step.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo")
model = DDP(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
@torch.no_grad()
def compute_loss(batch, target):
    return nn.functional.mse_loss(model(batch), target)
for step in range(3):
    loss = compute_loss(torch.randn(8, 16), torch.randn(8, 1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"rank {RANK} step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
    # rank 1 reduces its metric in half precision (TORCH_DISTRIBUTED_DEBUG=DETAIL set)
    "eval_metrics.py": COMMON + r'''
init("nccl", fake_hosts=True)
correct = torch.tensor([37.0, 64.0], device="cuda")
if RANK == 1:
    correct = correct.half()
dist.all_reduce(correct)
torch.cuda.synchronize()
print(f"rank {RANK} accuracy {(correct[0] / correct[1]).item():.3f}", flush=True)
dist.destroy_process_group()
''',
    # ================= (b) environment / configuration =================
    # rank 0 builds the dataset cache while the other ranks wait at a barrier
    "train_prep.py": COMMON + r'''
init("nccl", fake_hosts=True, seconds=10)
x = torch.ones(1 << 16, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print(f"rank {RANK}: process group up", flush=True)
if RANK == 0:
    print("rank 0: tokenizing corpus and writing the dataset cache ...", flush=True)
    for shard in range(8):
        time.sleep(5)
        print(f"rank 0: cached shard {shard}/8", flush=True)
dist.barrier()
print(f"rank {RANK}: dataset ready", flush=True)
dist.destroy_process_group()
''',
    "gpu_job.py": r'''
import os, torch
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
torch.cuda.set_device(local_rank)
model = torch.nn.Linear(4096, 4096).cuda()
x = torch.randn(256, 4096, device="cuda")
for step in range(3):
    y = model(x).relu().sum()
    y.backward()
    print("step", step, y.item(), flush=True)
''',
    # a small compiled model (TORCHINDUCTOR_CACHE_DIR points to a full file system in one scenario)
    "train_inductor.py": r'''
import torch, torch.nn as nn
model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 512)).cuda()
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(3):
    loss = cmodel(torch.randn(64, 512, device="cuda")).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, "loss", round(loss.item(), 4), flush=True)
''',
    # every rank loads its own data shard (rank 1's shard file is missing)
    "train_shards.py": COMMON + r'''
init("gloo", seconds=30)
shard = os.path.join("data", "train-%05d-of-00002.pt" % RANK)
print(f"rank {RANK}: loading {shard}", flush=True)
data = torch.load(shard)
g = data.float().mean().reshape(1)
dist.all_reduce(g)
print(f"rank {RANK}: mean {g.item():.3f}", flush=True)
dist.destroy_process_group()
''',
    "prep_shards.py": r'''
import os, torch
os.makedirs("data", exist_ok=True)
torch.save(torch.arange(1000), os.path.join("data", "train-00000-of-00002.pt"))
print("prep ok")
''',
    "allreduce.py": COMMON + r'''
backend = sys.argv[1] if len(sys.argv) > 1 else "nccl"
init(backend, fake_hosts=os.environ.get("FAKE_HOSTS") == "1", seconds=int(os.environ.get("PG_TIMEOUT", "20")))
dev = "cuda" if backend == "nccl" else "cpu"
x = torch.ones(1 << 20, device=dev)
for i in range(3):
    dist.all_reduce(x)
if dev == "cuda":
    torch.cuda.synchronize()
print(f"rank {RANK}: all_reduce ok {x[0].item()}", flush=True)
dist.destroy_process_group()
''',
    # the launcher passes --local-rank; the script's parser knows --local_rank only
    "train_legacy.py": r'''
import argparse, torch, torch.distributed as dist
parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=0)
parser.add_argument("--batch_size", type=int, default=32)
args = parser.parse_args()
torch.cuda.set_device(args.local_rank)
dist.init_process_group("nccl")
print("rank", dist.get_rank(), "ready", flush=True)
dist.destroy_process_group()
''',
    # a training script with its own options
    "train_cli.py": r'''
import argparse, os, torch
parser = argparse.ArgumentParser(description="train a small model")
parser.add_argument("--epochs", type=int, default=1)
parser.add_argument("--lr", type=float, default=1e-3)
args = parser.parse_args()
print("rank", os.environ.get("RANK"), "epochs", args.epochs, flush=True)
''',
    # ================= (c) healthy =================
    "healthy_ddp.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
backend = sys.argv[1] if len(sys.argv) > 1 else "nccl"
init(backend, fake_hosts=(backend == "nccl"))
dev = "cuda" if backend == "nccl" else "cpu"
model = DDP(nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1)).to(dev))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(5):
    loss = model(torch.randn(32, 64, device=dev)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if RANK == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
print(f"rank {RANK} done", flush=True)
''',
    # deprecated torch.cuda.amp spellings, gloo DDP on the GPU, 2 ranks
    "healthy_amp.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("gloo")
model = DDP(nn.Sequential(nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 1)).cuda())
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.cuda.amp.GradScaler()
for step in range(4):
    with torch.cuda.amp.autocast():
        loss = model(torch.randn(32, 128, device="cuda")).float().pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    if RANK == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
print(f"rank {RANK} finished", flush=True)
''',
    # NCCL job that never calls destroy_process_group()
    "healthy_nodestroy.py": COMMON + r'''
init("nccl")
x = torch.randn(1 << 20, device="cuda")
for step in range(3):
    dist.all_reduce(x)
    torch.cuda.synchronize()
    print(f"step {step} norm {x.norm().item():.1f}", flush=True)
print("training finished", flush=True)
''',
    # more DataLoader workers than the machine's cores
    "healthy_loader.py": r'''
import torch
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.randn(512, 32), torch.randint(0, 10, (512,)))
loader = DataLoader(ds, batch_size=16, num_workers=32, shuffle=True)
model = torch.nn.Linear(32, 10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    total = 0.0
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad(); loss.backward(); opt.step()
        total += loss.item()
    print(f"epoch {epoch} mean loss {total / len(loader):.4f}", flush=True)
''',
    # run 2: a custom CUDA op compiled at startup (TORCH_CUDA_ARCH_LIST set in the job's environment)
    "fused_op.py": r'''
import torch
from torch.utils.cpp_extension import load_inline
cuda_src = """
#include <c10/cuda/CUDAException.h>
__global__ void scale_bias_kernel(const float* x, float* y, float s, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * s + b;
}
torch::Tensor scale_bias(torch::Tensor x, double s, double b) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    scale_bias_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), (float)s, (float)b, n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""
cpp_src = "torch::Tensor scale_bias(torch::Tensor x, double s, double b);"
ext = load_inline(name="fused_scale_bias", cpp_sources=cpp_src, cuda_sources=cuda_src,
                  functions=["scale_bias"], extra_cuda_cflags=["-O2"], verbose=True)
x = torch.randn(1 << 20, device="cuda")
y = ext.scale_bias(x, 2.0, 1.0)
print("max err", (y - (x * 2 + 1)).abs().max().item(), flush=True)
''',
    # run 2: the model compiled with fullgraph=True before DDP wraps it
    "train_compiled2.py": COMMON + r'''
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
init("nccl")
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 256)
        self.fc2 = nn.Linear(256, 10)
    def forward(self, x):
        h = torch.relu(self.fc1(x))
        if h.abs().max().item() > 1e4:
            print("warning: large activations")
        return self.fc2(h)
net = torch.compile(Net().cuda(), fullgraph=True)
model = DDP(net, device_ids=[0])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(3):
    loss = model(torch.randn(64, 256, device="cuda")).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
''',
}


def torchrun(n, port, prog, *args, extra=""):
    return "%s -m torch.distributed.run %s--nproc_per_node %d --master_port %d %s %s" % (
        PY, extra, n, port, prog, " ".join(args))


def scenarios():
    tr = torchrun
    nodbg = {"TORCH_NCCL_DUMP_ON_TIMEOUT": "0"}
    # name: (command run in the programs' folder, extra env, limit s[, hidden prep command])
    return {
        # ---- long ones first ----
        "nccl_barrier_timeout_blocking_wait": (tr(2, 29801, "train_prep.py"), {"TORCH_NCCL_BLOCKING_WAIT": "1"}, 100),
        "inductor_cache_dir_full": ("%s train_inductor.py" % PY,
                                    {"TORCHINDUCTOR_CACHE_DIR": "/tmp/p3scratch/inductor_cache"}, 150,
                                    "mkdir -p /tmp/p3scratch && mount -t tmpfs -o size=1m tmpfs /tmp/p3scratch && "
                                    "(dd if=/dev/zero of=/tmp/p3scratch/.fill bs=64k count=64 2>&1 || true) && df -h /tmp/p3scratch"),
        "healthy_compile_tf32": ("%s train_inductor.py" % PY, {}, 150),
        "torchrun_max_restarts_missing_shard": (tr(2, 29802, "train_shards.py", extra="--max-restarts 2 "), {}, 120,
                                                "rm -rf data && %s prep_shards.py" % PY),
        "torchrun_standalone_nnodes2": ("%s -m torch.distributed.run --standalone --nnodes 2 --nproc_per_node 1 "
                                        "--rdzv_conf join_timeout=20 allreduce.py gloo" % PY, {}, 75),
        "ddp_unused_on_one_rank": (tr(2, 29803, "train_mm.py"), {}, 75),
        "p2p_recv_before_send": (tr(2, 29804, "halo.py"), {}, 75),
        "oom_one_rank_long_seq": (tr(2, 29805, "train_longdoc.py"), dict(nodbg), 90),
        "compile_fullgraph_item": (tr(1, 29806, "train_compiled.py"), {}, 120),
        # ---- (a) user code ----
        "fsdp_frozen_mixed_requires_grad": (tr(2, 29810, "train_fsdp.py"), {}, 75),
        "fsdp2_sharded_sd_into_plain": (tr(2, 29811, "train_fsdp2.py"), dict(nodbg), 75),
        "ddp_static_graph_changed": (tr(2, 29812, "train_multitask.py"), {}, 60),
        "ckpt_loaded_while_written": (tr(2, 29813, "train_resume.py"), {}, 90, "rm -rf checkpoints"),
        "ckpt_cuda7_no_map_location": ("%s evaluate.py" % PY, {}, 60, "%s prep_ckpt.py" % PY),
        "broadcast_object_unpicklable": (tr(2, 29814, "train_cfg.py"), {}, 60),
        "contrastive_sqrt_nan_anomaly": ("%s train_contrastive.py" % PY, {}, 60),
        "dcp_load_missing_key": (tr(2, 29815, "train_dcp.py"), {}, 75, "rm -rf ckpt_dcp"),
        "device_mesh_larger_than_world": (tr(2, 29816, "train_tp.py"), {}, 60),
        "dtensor_shard_dim_out_of_range": (tr(2, 29817, "shard_weights.py"), {}, 60),
        "sampler_and_shuffle": (tr(2, 29818, "train_loader.py"), {}, 60),
        "init_process_group_twice": (tr(2, 29819, "train_setup.py"), {}, 60),
        "syncbn_on_cpu_gloo": (tr(2, 29820, "train_bn.py"), {}, 60),
        "all_to_all_split_sizes": (tr(2, 29821, "moe_dispatch.py"), {}, 60),
        "ddp_method_not_forwarded": (tr(2, 29822, "train_cls.py"), {}, 60),
        "lstm_state_not_detached": ("%s train_lstm.py" % PY, {}, 60),
        "no_grad_decorator_on_train_step": (tr(2, 29823, "train_step.py"), {}, 60),
        "dtype_mismatch_detail": (tr(2, 29824, "eval_metrics.py"), {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}, 60),
        # ---- (b) environment / configuration ----
        "alloc_conf_equals_typo": ("%s gpu_job.py" % PY, {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments=True"}, 60),
        "master_port_out_of_range": (tr(2, 295000, "allreduce.py", "gloo"), {}, 60),
        "master_addr_ipv6_unreachable": ("%s allreduce.py gloo" % PY,
                                         {"MASTER_ADDR": "fd12:3456:789a:1::17", "MASTER_PORT": "29500", "RANK": "1",
                                          "WORLD_SIZE": "2", "LOCAL_RANK": "0", "PG_TIMEOUT": "15"}, 60),
        "nccl_buffsize_huge": (tr(2, 29830, "allreduce.py"), {"FAKE_HOSTS": "1", "NCCL_BUFFSIZE": "1099511627776"}, 75),
        "launch_local_rank_dash": ("%s -m torch.distributed.launch --nproc_per_node 1 --master_port 29831 train_legacy.py"
                                   % PY, {}, 60),
        "torchrun_options_after_script": ("%s -m torch.distributed.run --master_port 29832 train_cli.py --nproc_per_node 2 "
                                          "--epochs 3" % PY, {}, 60),
        "nccl_net_plugin_missing": (tr(2, 29833, "allreduce.py"),
                                    {"FAKE_HOSTS": "1", "NCCL_NET_PLUGIN": "aws-ofi", "NCCL_DEBUG": "INFO"}, 75),
        "omp_num_threads_zero": (tr(2, 29834, "healthy_ddp.py", "gloo"), {"OMP_NUM_THREADS": "0"}, 60),
        # ---- (c) healthy ----
        "healthy_nccl_debug_subsys_all": (tr(2, 29840, "healthy_ddp.py", "nccl"),
                                          {"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "ALL"}, 90),
        "healthy_tdd_info_gloo": (tr(2, 29841, "healthy_ddp.py", "gloo"),
                                  {"TORCH_DISTRIBUTED_DEBUG": "INFO", "TORCH_CPP_LOG_LEVEL": "INFO"}, 60),
        "healthy_torchrun_omp_amp_deprecations": (tr(2, 29842, "healthy_amp.py"), {}, 75),
        "healthy_nccl_no_destroy": (tr(1, 29843, "healthy_nodestroy.py"), {}, 60),
        "healthy_loader_32_workers": ("%s healthy_loader.py" % PY, {}, 90),
        # ---- run 2 ----
        "ext_built_for_sm80": ("%s fused_op.py" % PY, {"TORCH_CUDA_ARCH_LIST": "8.0", "MAX_JOBS": "8"}, 240),
        "compile_fullgraph_item_inner": (tr(1, 29850, "train_compiled2.py"), {}, 120),
        "nccl_barrier_timeout_default": (tr(2, 29851, "train_prep.py"), {}, 100),
        "nccl_buffsize_huge_warn": (tr(2, 29852, "allreduce.py"), {"FAKE_HOSTS": "1", "NCCL_BUFFSIZE": "1099511627776",
                                                                  "NCCL_DEBUG": "WARN"}, 75),
        "nccl_proto_all_excluded": (tr(2, 29853, "allreduce.py"), {"FAKE_HOSTS": "1", "NCCL_PROTO": "^Simple,LL,LL128"}, 75),
        "torchrun_node_rank_out_of_range": ("%s -m torch.distributed.run --nnodes 2 --node_rank 2 --nproc_per_node 1 "
                                            "--master_addr 127.0.0.1 --master_port 29854 allreduce.py gloo" % PY,
                                            {"PG_TIMEOUT": "20"}, 60),
        "torchrun_rdzv_etcd_missing": ("%s -m torch.distributed.run --nnodes 1 --nproc_per_node 1 --rdzv_backend etcd "
                                       "--rdzv_endpoint 127.0.0.1:2379 --rdzv_id job7 allreduce.py gloo" % PY, {}, 60),
        "torchrun_nproc_gpu_no_cuda": ("%s -m torch.distributed.run --nproc_per_node gpu --master_port 29855 gpu_job.py" % PY,
                                       {"CUDA_VISIBLE_DEVICES": ""}, 60),
    }


T_START = time.time()
START_BY_S = float(os.environ.get("P3_START_BY_S", "280"))  # no scenario starts after this
END_BY_S = float(os.environ.get("P3_END_BY_S", "325"))  # every scenario is cut here


def run_one(name, spec, d, out):
    cmd, env_add, limit = spec[:3]
    prep = spec[3] if len(spec) > 3 else None
    if time.time() - T_START > START_BY_S:
        return {"name": name, "cmd": cmd, "env": env_add, "rc": "not started (time)", "seconds": 0,
                "prep": prep, "prep_out": None}
    limit = int(min(limit, max(5, END_BY_S - (time.time() - T_START))))
    env = dict(os.environ, PYTHONUNBUFFERED="1", **env_add)
    prep_out = None
    if prep:
        p = subprocess.run(prep, shell=True, executable="/bin/bash", cwd=d, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONUNBUFFERED="1"), timeout=120)
        prep_out = "rc=%s\n%s%s" % (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
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
    # leftovers of the group (ranks outliving torchrun) are ended too
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return {"name": name, "cmd": cmd, "env": env_add, "rc": rc, "seconds": round(time.time() - t0, 1),
            "prep": prep, "prep_out": prep_out}


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
        "triton": sh("%s -c 'import triton; print(triton.__version__)'" % PY),
        "python": sys.version.split()[0],
        "python_path": PY,
        "kernel": sh("uname -r"),
        "hostname": sh("hostname"),
        "nproc": sh("nproc"),
        "ip": sh("ip -br addr 2>&1"),
        "infiniband": sh("ls /dev/infiniband 2>&1"),
        "ulimits": sh("ulimit -a"),
        "user": sh("id"),
        "env": {k: v for k, v in os.environ.items() if k.startswith(("NCCL_", "TORCH_", "CUDA_", "NVSHMEM", "OMP_"))},
    }


def main():
    out = os.environ.get("OUT") or "/tmp/p3out"
    os.makedirs(out, exist_ok=True)
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
    d = tempfile.mkdtemp(prefix="p3-")
    for name, src in PROGS.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(src.lstrip())
    all_sc = scenarios()
    want = sys.argv[1:] or list(all_sc)
    t_start = T_START
    results = []
    with concurrent.futures.ThreadPoolExecutor(int(os.environ.get("P3_JOBS", "8"))) as pool:
        futs = [pool.submit(run_one, k, all_sc[k], d, out) for k in want]
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            results.append(r)
            print({k: r[k] for k in ("name", "rc", "seconds")}, flush=True)
    results.sort(key=lambda r: want.index(r["name"]))
    subprocess.run("umount /tmp/p3scratch 2>/dev/null", shell=True)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"facts": facts(), "programs_dir": d, "wall_s": round(time.time() - t_start, 1),
                   "scenarios": results, "programs": PROGS}, f, indent=1)
    subprocess.run("cd %s && tar czf logs.tar.gz *.log && rm -f *.log" % out, shell=True)
    print("done in %.0f s" % (time.time() - t_start), flush=True)


if __name__ == "__main__":
    main()
