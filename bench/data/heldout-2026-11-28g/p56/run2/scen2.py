# eval-p56 call 2 scenarios
from scen import TR, HDR, INIT, DDPIMP, TRAIN
G01 = HDR + INIT + '''# int8 weight-only-quantized projection for the decode step (W8A8 via torch._int_mm)
torch.manual_seed(0)
K, N = 4096, 4096
w = torch.randn(N, K, device="cuda") * 0.02
sw = w.abs().amax(dim=1, keepdim=True) / 127
w8 = torch.round(w / sw).to(torch.int8)                       # [N, K]
for batch in (8,):
    x = torch.randn(batch, K, device="cuda")
    sx = x.abs().amax(dim=1, keepdim=True) / 127
    x8 = torch.round(x / sx).to(torch.int8)                   # [batch, K]
    print(f"[rank{rank}] decode batch {batch}: x8 {tuple(x8.shape)} w8^T {tuple(w8.t().shape)}", flush=True)
    acc = torch._int_mm(x8, w8.t())                           # int32 [batch, N]
    y = acc.float() * sx * sw.t()
    print(f"[rank{rank}] y {tuple(y.shape)} err {((y - x @ w.t()).norm() / (x @ w.t()).norm()).item():.4f}", flush=True)
dist.destroy_process_group()
'''

G02 = HDR + DDPIMP + INIT + '''AMP = "fp16"
if rank == 0:
    print(f"config: amp={AMP} d_model=256 heads=1 seq=128", flush=True)
torch.manual_seed(0)
class Attn(nn.Module):
    def __init__(self, d=256):
        super().__init__(); self.qkv = nn.Linear(d, 3 * d); self.out = nn.Linear(d, 10)
    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, -1)
        att = torch.softmax(q @ k.transpose(-1, -2), dim=-1)     # attention scores
        return self.out((att @ v).mean(1))
model = DDP(Attn().cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
for step in range(12):
    x = torch.randn(32, 128, 256, device="cuda") * (1 + step * 8.0)   # features are not normalized; scale grows over the data
    y = torch.randint(0, 10, (32,), device="cuda")
    with torch.autocast("cuda", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward(); scaler.step(opt); scaler.update(); opt.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f} scale {scaler.get_scale():.0f}", flush=True)
dist.destroy_process_group()
'''

K03 = HDR + INIT + '''import threading
# background thread computes running feature statistics on the GPU while the main loop trains
torch.manual_seed(0)
stats = {}
def stat_worker(feats):
    cov = feats.t() @ feats / feats.shape[0]
    stats["trace"] = cov.diagonal().sum().item()
model = nn.Linear(512, 512).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(10):
    x = torch.randn(256, 512, device="cuda")
    t = threading.Thread(target=stat_worker, args=(x,)); t.start()
    loss = model(x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    for p in model.parameters():
        dist.all_reduce(p.data); p.data /= ws
    t.join()
    if rank == 0 and step % 3 == 0:
        print(f"step {step} loss {loss.item():.4f} feat-trace {stats['trace']:.1f}", flush=True)
if rank == 0:
    print("done", flush=True)
dist.destroy_process_group()
'''

K04 = HDR + INIT + '''# FP8 linear with row-wise scales: scale_a [M,1] per token, scale_b [1,N] per output channel
torch.manual_seed(0)
M, K, N = 4096, 4096, 11008
x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) * 0.02
fmax = torch.finfo(torch.float8_e4m3fn).max
sx = x.abs().amax(dim=1, keepdim=True).float() / fmax     # [M, 1]
sw = w.abs().amax(dim=1, keepdim=True).float() / fmax     # [N, 1]
x8 = (x / sx).to(torch.float8_e4m3fn)
w8 = (w / sw).to(torch.float8_e4m3fn)
for it in range(3):
    y = torch._scaled_mm(x8, w8.t(), scale_a=sx, scale_b=sw.t(), out_dtype=torch.bfloat16)
torch.cuda.synchronize(); t0 = time.time()
for it in range(50):
    y = torch._scaled_mm(x8, w8.t(), scale_a=sx, scale_b=sw.t(), out_dtype=torch.bfloat16)
torch.cuda.synchronize(); dt = (time.time() - t0) / 50
ref = x @ w.t()
print(f"[rank{rank}] fp8 rowwise {M}x{K}x{N}: {2*M*K*N/dt/1e12:.0f} TFLOP/s, rel err {((y - ref).float().norm() / ref.float().norm()).item():.4f}", flush=True)
dist.barrier()
dist.destroy_process_group()
'''

K05 = HDR + DDPIMP + INIT + '''torch.manual_seed(0)
model = nn.Sequential(*[nn.Sequential(nn.Linear(1024, 1024), nn.GELU()) for _ in range(6)], nn.Linear(1024, 10)).cuda()
model = DDP(torch.compile(model), device_ids=[lr], bucket_cap_mb=8)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(256, 1024, device="cuda"); y = torch.randint(0, 10, (256,), device="cuda")
    loss = F.cross_entropy(model(x), y); loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0 and step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
if rank == 0:
    print("training finished", flush=True)
dist.destroy_process_group()
'''

K06 = HDR + DDPIMP + INIT + TRAIN


def scenarios():
    def sc(prog, env=None, cmd=TR, limit=40):
        e = {"NCCL_NVLS_ENABLE": "0"}; e.update(env or {})
        return {"prog": {"train.py": prog}, "env": e, "cmd": cmd, "limit": limit}
    return {
        "g01": sc(G01),
        "g02": sc(G02),
        "k03": sc(K03),
        "k04": sc(K04),
        "k05": sc(K05, {"TORCH_LOGS": "ddp_graphs"}),
        "k06": sc(K06, {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,garbage_collection_threshold:0.8"}),
    }
