# eval-p56 scenarios: two-GPU (2x H200) planted failures + healthy runs (memory/precision/compile/CUDA runtime)
TR = "torchrun --standalone --nproc-per-node 2 train.py"
HDR = '''import os, sys, time, datetime, math, torch, torch.nn as nn, torch.nn.functional as F
import torch.distributed as dist
rank = int(os.environ.get("RANK", 0)); lr = int(os.environ.get("LOCAL_RANK", 0)); ws = int(os.environ.get("WORLD_SIZE", 1))
'''
INIT = '''torch.cuda.set_device(lr)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=25), device_id=torch.device("cuda", lr))
if rank == 0:
    print(f"world {ws} | torch {torch.__version__} | nccl {'.'.join(map(str, torch.cuda.nccl.version()))} | {torch.cuda.get_device_name()}", flush=True)
'''
DDPIMP = "from torch.nn.parallel import DistributedDataParallel as DDP\n"
TRAIN = '''torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 10)).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(30):
    x = torch.randn(256, 512, device="cuda"); y = torch.randint(0, 10, (256,), device="cuda")
    loss = F.cross_entropy(model(x), y)
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 10 == 0 and rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
if rank == 0:
    print(f"done, peak mem {torch.cuda.max_memory_allocated()/2**20:.0f} MiB", flush=True)
dist.destroy_process_group()
'''
F01 = HDR + DDPIMP + INIT + TRAIN

F02 = HDR + INIT + '''# FP8 weight-gradient GEMM: dW = grad_out^T @ activations, both quantized to e5m2 (wide range for gradients)
torch.manual_seed(rank)
def quant(t, dt):
    amax = t.abs().amax().float().clamp(min=1e-12)
    s = amax / torch.finfo(dt).max
    return (t / s).to(dt), s
for step in range(3):
    gout = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16) * 1e-3   # [tokens, out]
    act = torch.randn(8192, 2048, device="cuda", dtype=torch.bfloat16)           # [tokens, in]
    g8, sg = quant(gout.t().contiguous(), torch.float8_e5m2)   # [out, tokens] row-major
    a8, sa = quant(act, torch.float8_e5m2)                     # [tokens, in] -> need column-major
    a8 = a8.t().contiguous().t()
    print(f"[rank{rank}] step {step}: g8 {tuple(g8.shape)} {g8.dtype}, a8 {tuple(a8.shape)} {a8.dtype} stride {a8.stride()}", flush=True)
    dw = torch._scaled_mm(g8, a8, scale_a=sg, scale_b=sa, out_dtype=torch.bfloat16)
    dist.all_reduce(dw)
    print(f"[rank{rank}] dW {tuple(dw.shape)} norm {dw.float().norm().item():.3e}", flush=True)
dist.destroy_process_group()
'''

F03 = HDR + DDPIMP + '''import json
CFG = json.loads('{"batch_size": 256, "lr": 0.001, "gpu_memory_fraction": 1.2, "epochs": 1}')
''' + INIT + '''if rank == 0:
    print("config:", CFG, flush=True)
# leave room for the other tenant of the node: cap this process's caching allocator
torch.cuda.set_per_process_memory_fraction(CFG["gpu_memory_fraction"])
''' + TRAIN

F04 = HDR + DDPIMP + INIT + '''torch.manual_seed(0)
net = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
model = DDP(net, device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=0.05)
ema = [p.detach().clone() for p in model.parameters()]
def train(steps, start):
    for step in range(start, start + steps):
        x = torch.randn(128, 256, device="cuda"); y = torch.randint(0, 10, (128,), device="cuda")
        loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
        with torch.no_grad():
            for e, p in zip(ema, model.parameters()):
                e.lerp_(p, 0.01)
        if step % 5 == 0:
            print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
train(10, 0)
if rank == 0:
    torch.save({"model": model.module.state_dict(), "ema": ema, "opt": opt.state_dict(), "step": 10}, "ckpt_step10.pt")
    print("saved ckpt_step10.pt", flush=True)
dist.barrier()
# --- resume (same code path as a restarted job) ---
ck = torch.load("ckpt_step10.pt")
model.module.load_state_dict(ck["model"]); opt.load_state_dict(ck["opt"]); ema = ck["ema"]
print(f"[rank{rank}] resumed from step {ck['step']}", flush=True)
train(10, ck["step"])
print(f"[rank{rank}] done", flush=True)
dist.destroy_process_group()
'''

F05 = HDR + INIT + '''# FP8 linear with row-wise scales (one scale per token row of x, one per output column of w)
torch.manual_seed(0)
M, K, N = 4096, 4096, 11008
x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) * 0.02
fmax = torch.finfo(torch.float8_e4m3fn).max
sx = x.abs().amax(dim=1).float() / fmax          # [M]
sw = w.abs().amax(dim=1).float() / fmax          # [N]
x8 = (x / sx[:, None]).to(torch.float8_e4m3fn)
w8 = (w / sw[:, None]).to(torch.float8_e4m3fn)
print(f"[rank{rank}] x8 {tuple(x8.shape)} sx {tuple(sx.shape)} | w8 {tuple(w8.shape)} sw {tuple(sw.shape)}", flush=True)
y = torch._scaled_mm(x8, w8.t(), scale_a=sx, scale_b=sw, out_dtype=torch.bfloat16)
ref = x @ w.t()
print(f"[rank{rank}] rel err {((y - ref).float().norm() / ref.float().norm()).item():.4f}", flush=True)
dist.destroy_process_group()
'''

F06 = HDR + DDPIMP + INIT + '''torch.autograd.set_detect_anomaly(True)
torch.manual_seed(0)
class Enc(nn.Module):
    def __init__(self):
        super().__init__(); self.emb = nn.Embedding(1000, 128, padding_idx=0); self.proj = nn.Linear(128, 128)
    def forward(self, ids):
        h = self.emb(ids).sum(1)                     # bag of token embeddings
        h = h / h.norm(dim=-1, keepdim=True)         # unit-normalize before the projection
        return self.proj(h)
model = DDP(Enc().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    ids = torch.randint(1, 1000, (64, 16), device="cuda")
    if step == 7 and rank == 1:
        ids[5] = 0          # an all-padding row (empty document) in rank 1's batch
    a = model(ids); b = model(ids.roll(1, 0))
    loss = (1 - F.cosine_similarity(a, b)).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if step % 5 == 0:
        print(f"[rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

F09 = HDR + DDPIMP + '''class StepTimer:
    def __init__(self):
        self.start = torch.cuda.Event(enable_timing=True); self.end = torch.cuda.Event(enable_timing=True)
    def begin(self): self.start.record()
    def stop(self):
        self.end.record(); self.end.synchronize(); return self.start.elapsed_time(self.end)
timer = StepTimer()
# warm up cuBLAS/cuDNN handles before the process group comes up
timer.begin(); torch.randn(1024, 1024, device="cuda") @ torch.randn(1024, 1024, device="cuda"); print(f"[rank{rank}] warmup {timer.stop():.2f} ms", flush=True)
''' + INIT + '''torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 10)).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    timer.begin()
    x = torch.randn(256, 512, device="cuda"); y = torch.randint(0, 10, (256,), device="cuda")
    loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    ms = timer.stop()
    if step % 5 == 0:
        print(f"[rank{rank}] step {step} loss {loss.item():.4f} {ms:.2f} ms", flush=True)
dist.destroy_process_group()
'''

F10 = HDR + INIT + '''torch.manual_seed(rank)
V = 128256
lm_head = nn.Linear(1024, V, bias=False, device="cuda", dtype=torch.bfloat16)
all_logits, all_labels = [], []
with torch.no_grad():
    for b in range(40):
        h = torch.randn(8192, 1024, device="cuda", dtype=torch.bfloat16)
        labels = torch.randint(0, V, (8192,), device="cuda")
        logits = lm_head(h).float()
        # collect the full-vocabulary logits of every rank on rank 0 for exact perplexity / top-k metrics
        gl = [torch.empty_like(logits) for _ in range(ws)] if rank == 0 else None
        dist.gather(logits, gl, dst=0)
        gy = [torch.empty_like(labels) for _ in range(ws)] if rank == 0 else None
        dist.gather(labels, gy, dst=0)
        if rank == 0:
            all_logits += gl; all_labels += gy
            print(f"eval batch {b}: collected {len(all_logits)} logit blocks, allocated {torch.cuda.memory_allocated()/2**30:.1f} GiB", flush=True)
if rank == 0:
    logits = torch.cat(all_logits); labels = torch.cat(all_labels)
    print("ppl", torch.exp(F.cross_entropy(logits, labels)).item(), flush=True)
dist.destroy_process_group()
'''

F11 = HDR + DDPIMP + '''torch.use_deterministic_algorithms(True)   # bitwise-reproducible runs for the ablation
torch.backends.cudnn.benchmark = False
''' + INIT + TRAIN

F12 = HDR + DDPIMP + INIT + '''COMPILE_MODE = os.environ.get("COMPILE_MODE", "max_autotune")
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 10)).cuda()
model = DDP(torch.compile(model, mode=COMPILE_MODE), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    x = torch.randn(256, 512, device="cuda"); y = torch.randint(0, 10, (256,), device="cuda")
    loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0 and step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

F13 = HDR + DDPIMP + INIT + '''# catch accidental host syncs in the hot loop (added while profiling)
torch.cuda.set_sync_debug_mode("error")
''' + TRAIN

H01 = HDR + DDPIMP + INIT + '''torch.manual_seed(0)
model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 10)).cuda()
model = DDP(torch.compile(model), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
N = 256 * 7 + 100   # last batch of the epoch is short (100 rows)
for epoch in range(2):
    for i in range(0, N, 256):
        bs = min(256, N - i)
        x = torch.randn(bs, 512, device="cuda"); y = torch.randint(0, 10, (bs,), device="cuda")
        loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}", flush=True)
if rank == 0:
    print("training finished", flush=True)
dist.destroy_process_group()
'''

H02 = HDR + INIT + '''# CUDA-graph a fixed-size all_reduce + scale (gradient sync of a small static buffer)
buf = torch.full((1 << 20,), float(rank + 1), device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        dist.all_reduce(buf); buf.div_(ws)
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    dist.all_reduce(buf); buf.div_(ws)
torch.cuda.synchronize()
for it in range(20):
    buf.fill_(float(rank + 1)); g.replay()
torch.cuda.synchronize()
print(f"[rank{rank}] graph replayed 20x, buf[0]={buf[0].item():.3f} (expect {sum(range(1, ws+1))/ws:.3f})", flush=True)
dist.barrier()
dist.destroy_process_group()
'''

H03 = HDR + DDPIMP + '''torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
''' + INIT + '''torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)).cuda(), device_ids=[lr])
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(30):
    x = torch.randn(64, 3, 32, 32, device="cuda"); y = torch.randint(0, 10, (64,), device="cuda")
    loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    if step % 10 == 0 and rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
if rank == 0:
    print("done", flush=True)
dist.destroy_process_group()
'''


def scenarios():
    def sc(prog, env=None, cmd=TR, limit=40):
        e = {"NCCL_NVLS_ENABLE": "0"}; e.update(env or {})
        return {"prog": {"train.py": prog}, "env": e, "cmd": cmd, "limit": limit}
    return {
        "f01": sc(F01, {"PYTORCH_CUDA_ALLOC_CONF": "backend:cudaMallocAsnyc"}),
        "f02": sc(F02),
        "f03": sc(F03),
        "f04": sc(F04),
        "f05": sc(F05),
        "f06": sc(F06),
        "f09": sc(F09),
        "f10": sc(F10),
        "f11": sc(F11, {"CUBLAS_WORKSPACE_CONFIG": None}),
        "f12": sc(F12),
        "f13": sc(F13),
        "h01": sc(H01, {"TORCH_LOGS": "recompiles"}),
        "h02": sc(H02),
        "h03": sc(H03),
    }
