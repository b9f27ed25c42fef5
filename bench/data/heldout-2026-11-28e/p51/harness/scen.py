# eval-p51 scenarios: single-GPU (H200) planted failures + healthy runs
HDR = '''import os, sys, time, math, torch, torch.nn as nn, torch.nn.functional as F
print(f"torch {torch.__version__} cuda {torch.version.cuda} device {torch.cuda.get_device_name(0)}", flush=True)
'''
MLP = '''def make_model(d=1024, h=4096):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(d, h), nn.GELU(), nn.Linear(h, d))
'''

# s01a: new TF32 API set, later a helper reads the legacy flag
S01A = HDR + MLP + '''# TF32 for matmuls and convs (new per-backend API)
torch.backends.cuda.matmul.fp32_precision = "tf32"
torch.backends.cudnn.conv.fp32_precision = "tf32"

def log_run_config(model):
    n = sum(p.numel() for p in model.parameters())
    print(f"params {n/1e6:.1f}M | tf32 matmul={torch.backends.cuda.matmul.allow_tf32} "
          f"cudnn={torch.backends.cudnn.allow_tf32} | amp=off", flush=True)

model = make_model().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
log_run_config(model)
for step in range(20):
    x = torch.randn(512, 1024, device="cuda")
    loss = (model(x) - x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.5f}", flush=True)
'''
# s01b: new API set to ieee (reproducibility), legacy set_float32_matmul_precision("high") elsewhere, then read
S01B = HDR + MLP + '''import contextlib
def setup_reproducibility(seed=1234):
    torch.manual_seed(seed)
    torch.backends.cuda.matmul.fp32_precision = "ieee"
    torch.backends.cudnn.conv.fp32_precision = "ieee"
    torch.backends.cudnn.benchmark = False

def setup_speed():
    # from our old trainer utils
    torch.set_float32_matmul_precision("high")

setup_reproducibility()
setup_speed()
model = make_model().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
print(f"matmul precision: {torch.get_float32_matmul_precision()} allow_tf32={torch.backends.cuda.matmul.allow_tf32}", flush=True)
for step in range(10):
    x = torch.randn(512, 1024, device="cuda")
    loss = (model(x) - x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.5f}", flush=True)
'''
# h05: new TF32 API only, healthy
H05 = HDR + MLP + '''torch.backends.cuda.matmul.fp32_precision = "tf32"
torch.backends.cudnn.conv.fp32_precision = "tf32"
print(f"fp32 precision: matmul={torch.backends.cuda.matmul.fp32_precision} conv={torch.backends.cudnn.conv.fp32_precision}", flush=True)
model = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
torch.manual_seed(0)
X = torch.randn(64, 3, 64, 64, device="cuda"); Y = torch.randint(0, 10, (64,), device="cuda")
t0 = time.time()
for step in range(30):
    loss = F.cross_entropy(model(X), Y)
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 10 == 0 or step == 29:
        torch.cuda.synchronize()
        print(f"step {step} loss {loss.item():.4f} {1e3*(time.time()-t0)/(step+1):.1f} ms/step", flush=True)
print("done", flush=True)
'''
# s02: whole model cast to float8 and run like bf16
S02 = HDR + MLP + '''model = make_model().cuda().eval()
print("bf16 reference ...", flush=True)
x = torch.randn(256, 1024, device="cuda")
with torch.no_grad():
    ref = model.to(torch.bfloat16)(x.to(torch.bfloat16))
print(f"bf16 out {tuple(ref.shape)} mean|y| {ref.float().abs().mean().item():.4f}", flush=True)
# Hopper has FP8 tensor cores: store weights and activations in e4m3 to halve memory again
model = model.to(torch.float8_e4m3fn)
print(f"weights now {next(model.parameters()).dtype}, {sum(p.numel() for p in model.parameters())/2**20:.1f} MiB", flush=True)
with torch.no_grad():
    y = model(x.to(torch.float8_e4m3fn))
print("fp8 out", y.dtype, y.shape)
'''
# s03: _scaled_mm with row-major mat2
S03 = HDR + '''class FP8Linear(nn.Module):
    def __init__(self, lin):
        super().__init__()
        w = lin.weight.detach()                      # [out, in]
        self.w_scale = (w.abs().max() / 448.0).float().reshape(())
        self.w8 = (w / self.w_scale).to(torch.float8_e4m3fn).t().contiguous()   # store as [in, out]
        self.bias = lin.bias.detach().to(torch.bfloat16)
    def forward(self, x):
        xs = (x.abs().max() / 448.0).float().reshape(())
        x8 = (x / xs).to(torch.float8_e4m3fn)
        return torch._scaled_mm(x8, self.w8, scale_a=xs, scale_b=self.w_scale, bias=self.bias, out_dtype=torch.bfloat16)

torch.manual_seed(0)
lin = nn.Linear(4096, 4096).cuda()
q = FP8Linear(lin)
x = torch.randn(512, 4096, device="cuda")
print("fp8 linear: x", tuple(x.shape), "w8", tuple(q.w8.shape), q.w8.dtype, "stride", q.w8.stride(), flush=True)
y = q(x)
print("out", y.shape)
'''
# h03: _scaled_mm used correctly
H03 = HDR + '''class FP8Linear(nn.Module):
    def __init__(self, lin):
        super().__init__()
        w = lin.weight.detach()                      # [out, in], row-major
        self.w_scale = (w.abs().max() / 448.0).float().reshape(())
        self.w8 = (w / self.w_scale).to(torch.float8_e4m3fn)
        self.bias = lin.bias.detach().to(torch.bfloat16)
    def forward(self, x):
        xs = (x.abs().max() / 448.0).float().reshape(())
        x8 = (x / xs).to(torch.float8_e4m3fn)
        return torch._scaled_mm(x8, self.w8.t(), scale_a=xs, scale_b=self.w_scale, bias=self.bias, out_dtype=torch.bfloat16)

torch.manual_seed(0)
lin = nn.Linear(4096, 4096).cuda()
q = FP8Linear(lin)
x = torch.randn(512, 4096, device="cuda")
ref = lin(x)
y = q(x)
rel = ((y.float() - ref).norm() / ref.norm()).item()
print(f"fp8 linear out {tuple(y.shape)} {y.dtype} rel err vs fp32 {rel:.4f}", flush=True)
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn); b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device="cuda")
    for _ in range(3): torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    torch.cuda.synchronize(); t = time.time()
    for _ in range(20): torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    torch.cuda.synchronize(); dt = (time.time() - t) / 20
    print(f"fp8 gemm {n}x{n}x{n}: {dt*1e3:.2f} ms, {2*n**3/dt/1e12:.0f} TFLOP/s", flush=True)
'''
# s05: swap to a pluggable allocator after CUDA memory was already used
ALLOC_CU = r'''#include <sys/types.h>
#include <cuda_runtime_api.h>
extern "C" {
void* pool_malloc(ssize_t size, int device, cudaStream_t stream) { void* p = nullptr; cudaMalloc(&p, size); return p; }
void pool_free(void* ptr, ssize_t size, int device, cudaStream_t stream) { cudaFree(ptr); }
}
'''
S05 = HDR + MLP + '''model = make_model().cuda()
print(f"model on {next(model.parameters()).device}, allocated {torch.cuda.memory_allocated()/2**20:.0f} MiB", flush=True)
# route allocations through our pool allocator (shared with the inference server code)
alloc = torch.cuda.memory.CUDAPluggableAllocator("./alloc.so", "pool_malloc", "pool_free")
torch.cuda.memory.change_current_allocator(alloc)
print("allocator swapped", flush=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(256, 1024, device="cuda")
    loss = model(x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
'''
# s06: config lists two GPUs in one device string
S06 = HDR + MLP + '''cfg = {"model": "mlp-1024", "device": os.environ.get("TRAIN_DEVICE", "cuda:0,1"), "batch_size": 256, "lr": 3e-4}
print("config:", cfg, flush=True)
device = torch.device(cfg["device"])
model = make_model().to(device)
print("model on", device)
'''
# s07: CUDA tensor received from one process is put on a queue to another process
S07 = '''import os, time, queue, torch, torch.multiprocessing as mp

def loader(q_raw, n):
    torch.cuda.set_device(0)
    for i in range(n):
        img = torch.rand(8, 3, 224, 224, device="cuda")       # decode + resize on GPU
        q_raw.put((i, img))
    print(f"[loader pid {os.getpid()}] produced {n} batches", flush=True)
    time.sleep(15)                                           # keep tensors alive until consumed

def augment(q_raw, q_aug, n):
    torch.cuda.set_device(0)
    for _ in range(n):
        i, img = q_raw.get()
        if i % 2:
            img = img.flip(-1)                               # random flip
        q_aug.put((i, img))                                  # forward to the trainer
    print(f"[augment pid {os.getpid()}] forwarded {n} batches", flush=True)
    time.sleep(15)

if __name__ == "__main__":
    mp.set_start_method("spawn")
    n = 4
    q_raw, q_aug = mp.Queue(), mp.Queue()
    procs = [mp.Process(target=loader, args=(q_raw, n)), mp.Process(target=augment, args=(q_raw, q_aug, n))]
    for p in procs: p.start()
    for k in range(n):
        try:
            i, img = q_aug.get(timeout=12)
        except queue.Empty:
            print(f"[trainer] no batch after 12 s (got {k} of {n})", flush=True)
            break
        print(f"[trainer] batch {i} {tuple(img.shape)} mean {img.mean().item():.3f}", flush=True)
    for p in procs: p.terminate(); p.join()
    print("[trainer] exit", flush=True)
'''
# s08: resume restores RNG states from a checkpoint loaded with map_location="cuda"
S08 = HDR + MLP + '''import argparse
ap = argparse.ArgumentParser(); ap.add_argument("--epochs", type=int, default=2); ap.add_argument("--resume", default="")
args = ap.parse_args()
model = make_model().cuda(); opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
start = 0
if args.resume:
    ckpt = torch.load(args.resume, map_location="cuda")
    model.load_state_dict(ckpt["model"]); opt.load_state_dict(ckpt["optim"]); start = ckpt["epoch"] + 1
    torch.set_rng_state(ckpt["rng_cpu"])
    torch.cuda.set_rng_state(ckpt["rng_cuda"])
    print(f"resumed from {args.resume} at epoch {start}", flush=True)
for epoch in range(start, start + args.epochs):
    for it in range(10):
        x = torch.randn(256, 1024, device="cuda")
        loss = (model(x) - x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    print(f"epoch {epoch} loss {loss.item():.5f}", flush=True)
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": epoch,
                "rng_cpu": torch.get_rng_state(), "rng_cuda": torch.cuda.get_rng_state()}, "ckpt_last.pt")
    print(f"saved ckpt_last.pt (epoch {epoch})", flush=True)
'''
# s09: rotary cache built under inference_mode, then used in training
S09 = HDR + '''class Rotary(nn.Module):
    def __init__(self, dim, max_len=2048):
        super().__init__()
        self.dim = dim
        self.build_cache(max_len)
    @torch.inference_mode()
    def build_cache(self, n):
        inv = 1.0 / (10000 ** (torch.arange(0, self.dim, 2, device="cuda").float() / self.dim))
        f = torch.outer(torch.arange(n, device="cuda").float(), inv)
        self.cos, self.sin = f.cos().repeat(1, 2), f.sin().repeat(1, 2)
    def forward(self, x):
        T = x.shape[-2]
        x1, x2 = x.chunk(2, -1)
        return x * self.cos[:T] + torch.cat((-x2, x1), -1) * self.sin[:T]

class Attn(nn.Module):
    def __init__(self, d=512, h=8):
        super().__init__(); self.h = h; self.qkv = nn.Linear(d, 3 * d); self.o = nn.Linear(d, d); self.rope = Rotary(d // h)
    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, D // self.h).permute(2, 0, 3, 1, 4)
        q, k = self.rope(q), self.rope(k)
        return self.o(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, D))

model = nn.Sequential(nn.Embedding(32000, 512), Attn(), nn.Linear(512, 32000)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
print(f"params {sum(p.numel() for p in model.parameters())/1e6:.1f}M", flush=True)
for step in range(5):
    ids = torch.randint(0, 32000, (8, 256), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(ids)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, 32000).float(), ids[:, 1:].reshape(-1))
    loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}", flush=True)
'''
# s10: padding mask and is_causal=True together
S10 = HDR + '''class Block(nn.Module):
    def __init__(self, d=512, h=8):
        super().__init__(); self.h = h; self.qkv = nn.Linear(d, 3 * d); self.o = nn.Linear(d, d)
    def forward(self, x, pad_mask):
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, D // self.h).permute(2, 0, 3, 1, 4)
        attn_mask = pad_mask[:, None, None, :]            # [B,1,1,T] True = keep
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, is_causal=True)
        return self.o(y.transpose(1, 2).reshape(B, T, D))

emb = nn.Embedding(32000, 512).cuda(); blk = Block().cuda(); head = nn.Linear(512, 32000).cuda()
params = [*emb.parameters(), *blk.parameters(), *head.parameters()]
opt = torch.optim.AdamW(params, lr=3e-4)
lengths = torch.tensor([256, 200, 180, 256, 97, 256, 130, 64], device="cuda")
ids = torch.randint(1, 32000, (8, 256), device="cuda")
pad_mask = torch.arange(256, device="cuda")[None, :] < lengths[:, None]
print(f"batch {tuple(ids.shape)}, real tokens {int(pad_mask.sum())}", flush=True)
with torch.autocast("cuda", dtype=torch.bfloat16):
    logits = head(blk(emb(ids), pad_mask))
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, 32000).float(), ids[:, 1:].reshape(-1))
loss.backward(); opt.step()
print(f"loss {loss.item():.4f}")
'''
# s11: make_graphed_callables on a module with a forward hook registered
S11 = HDR + MLP + '''model = make_model().cuda()
act_stats = {}
def log_act(name):
    def hook(mod, inp, out):
        act_stats[name] = out.detach().abs().mean()
    return hook
for name, m in model.named_modules():
    if isinstance(m, nn.Linear):
        m.register_forward_hook(log_act(name))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
sample = torch.randn(256, 1024, device="cuda")
print("graphing the model with torch.cuda.make_graphed_callables ...", flush=True)
model = torch.cuda.make_graphed_callables(model, (sample,))
for step in range(10):
    x = torch.randn(256, 1024, device="cuda")
    loss = (model(x) - x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad(set_to_none=False)
    print(f"step {step} loss {loss.item():.5f}", flush=True)
'''
# s12 / h02: whole-step CUDA graph capture with Adam (capturable False / True)
def graph_step(capturable):
    cap = ", capturable=True" if capturable else ""
    return HDR + MLP + '''model = make_model().cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3%s)
static_x = torch.randn(512, 1024, device="cuda")
def step():
    loss = (model(static_x) - static_x).pow(2).mean()
    loss.backward()
    opt.step()
    return loss
s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):          # warmup on a side stream
    for _ in range(3):
        opt.zero_grad(set_to_none=True); step()
torch.cuda.current_stream().wait_stream(s)
print("warmup done, capturing the full train step", flush=True)
g = torch.cuda.CUDAGraph()
opt.zero_grad(set_to_none=True)
with torch.cuda.graph(g):
    static_loss = step()
print("captured", flush=True)
t0 = time.time()
for it in range(200):
    static_x.copy_(torch.randn(512, 1024, device="cuda"))
    g.replay()
    if it %% 50 == 0 or it == 199:
        torch.cuda.synchronize()
        print(f"iter {it} loss {static_loss.item():.5f} {1e3*(time.time()-t0)/(it+1):.3f} ms/iter", flush=True)
''' % cap
# s13: manual capture_begin on the default stream
S13 = HDR + MLP + '''model = make_model().cuda().eval()
static_in = torch.randn(64, 1024, device="cuda")
with torch.no_grad():
    for _ in range(3):
        model(static_in)          # warmup
torch.cuda.synchronize()
g = torch.cuda.CUDAGraph()
print("capturing inference graph", flush=True)
with torch.no_grad():
    g.capture_begin()
    static_out = model(static_in)
    g.capture_end()
for i in range(5):
    static_in.copy_(torch.randn(64, 1024, device="cuda")); g.replay()
    print(f"replay {i} out mean {static_out.mean().item():.5f}", flush=True)
'''
# s14: TRITON_PTXAS_PATH from an old module file
S14 = HDR + MLP + '''model = torch.compile(make_model().cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(256, 1024, device="cuda")
    loss = (model(x) - x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.5f}", flush=True)
'''
# s15: autocast device_type given a device string with index
S15 = HDR + MLP + '''device = os.environ.get("DEVICE", "cuda:0")
model = make_model().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
for step in range(5):
    x = torch.randn(256, 1024, device=device)
    with torch.autocast(device_type=device, dtype=torch.float16):
        loss = (model(x) - x).pow(2).mean()
    scaler.scale(loss).backward(); scaler.step(opt); scaler.update(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.5f}", flush=True)
'''
# s20: DDP over gloo with bf16 params, 2 ranks sharing one GPU
S20 = '''import os, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank, ws = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(0)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 1024)).cuda().to(torch.bfloat16)
model = DDP(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16)
    loss = (model(x) - x).float().pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0: print(f"step {step} loss {loss.item():.5f}", flush=True)
dist.destroy_process_group()
'''
# h01: DDP over gloo with fp32 CUDA tensors, 2 ranks on one GPU
H01 = '''import os, time, torch, torch.nn as nn, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
dist.init_process_group("gloo")
rank, ws = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(0)
print(f"rank {rank}/{ws} on {torch.cuda.get_device_name(0)} (cuda:0 shared)", flush=True)
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(512, 512), nn.GELU(), nn.Linear(512, 512)).cuda())
opt = torch.optim.SGD(model.parameters(), lr=0.05)
torch.manual_seed(rank)
t0 = time.time()
for step in range(10):
    x = torch.randn(64, 512, device="cuda")
    loss = (model(x) - x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0 and step % 3 == 0: print(f"step {step} loss {loss.item():.5f} {1e3*(time.time()-t0)/(step+1):.1f} ms/step", flush=True)
w = torch.cat([p.detach().flatten() for p in model.parameters()]); c = w.clone(); dist.broadcast(c, 0)
print(f"rank {rank} params equal to rank 0: {torch.equal(w, c)}", flush=True)
dist.destroy_process_group()
'''
# h04: GPU selected by UUID + bf16 autocast + flash SDPA
H04 = HDR + '''from torch.nn.attention import sdpa_kernel, SDPBackend
print("CUDA_VISIBLE_DEVICES =", os.environ.get("CUDA_VISIBLE_DEVICES"), "| device_count", torch.cuda.device_count(), flush=True)
class Blk(nn.Module):
    def __init__(s, d=1024, h=16):
        super().__init__(); s.h = h; s.qkv = nn.Linear(d, 3 * d); s.o = nn.Linear(d, d); s.ln = nn.LayerNorm(d)
    def forward(s, x):
        B, T, D = x.shape
        q, k, v = s.qkv(s.ln(x)).view(B, T, 3, s.h, D // s.h).permute(2, 0, 3, 1, 4)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + s.o(y.transpose(1, 2).reshape(B, T, D))
model = nn.Sequential(*[Blk() for _ in range(4)]).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)
t0 = time.time()
for step in range(20):
    x = torch.randn(8, 1024, 1024, device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if step % 5 == 0 or step == 19:
        torch.cuda.synchronize()
        print(f"step {step} loss {loss.item():.4f} {1e3*(time.time()-t0)/(step+1):.1f} ms/step "
              f"peak {torch.cuda.max_memory_allocated()/2**30:.2f} GiB", flush=True)
'''

TR2 = "torchrun --standalone --nproc-per-node 2 train.py"


def scenarios():
    S = {}
    def add(name, prog, cmd="python train.py", env=None, limit=40, **kw):
        e = {"NCCL_NVLS_ENABLE": "0"}; e.update(env or {})
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=e, limit=limit, **kw)
    add("s01a", S01A)
    add("s01b", S01B)
    add("s02", S02)
    add("s03", S03)
    add("s05", {"train.py": S05, "alloc.cu": ALLOC_CU},
        cmd="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc) -shared -Xcompiler -fPIC -o alloc.so alloc.cu && python train.py",
        env={"PATH": "/usr/local/cuda/bin:" + __import__("os").environ.get("PATH", "")})
    add("s06", S06)
    add("s07", S07, limit=45)
    add("s08", S08, cmd="python train.py --epochs 2 && python train.py --resume ckpt_last.pt --epochs 2")
    add("s09", S09)
    add("s10", S10)
    add("s11", S11)
    add("s12", graph_step(False))
    add("s13", S13)
    add("s14", S14, env={"TRITON_PTXAS_PATH": "/usr/local/cuda-11.8/bin/ptxas"}, limit=90)
    add("s15", S15)
    add("s20", S20, cmd=TR2, limit=45)
    add("h01", H01, cmd=TR2, limit=45)
    add("h02", graph_step(True))
    add("h03", H03)
    add("h04", H04, cmd='export CUDA_VISIBLE_DEVICES=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1); python train.py')
    add("h05", H05)
    return S
