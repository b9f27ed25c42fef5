# eval-p51 second round
from scen import HDR, MLP, TR2
S16 = HDR + MLP + '''# enable TF32 tensor cores for fp32 matmuls (H200)
torch.backends.cuda.matmul.fp32_precision = "TF32"
model = make_model().cuda(); opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(512, 1024, device="cuda"); loss = (model(x) - x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.5f}", flush=True)
'''
S16B = HDR + MLP + '''# enable TF32 tensor cores for fp32 matmuls (H200)
torch.set_float32_matmul_precision("tf32")
model = make_model().cuda(); opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(5):
    x = torch.randn(512, 1024, device="cuda"); loss = (model(x) - x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad()
    print(f"step {step} loss {loss.item():.5f}", flush=True)
'''
S17 = '''import os, torch, torch.distributed as dist
dist.init_process_group("gloo")
rank, ws = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(0)
# toy MoE dispatch: every rank sends 4 tokens to each expert rank
tokens = torch.randn(4 * ws, 256, device="cuda") + rank
out = torch.empty_like(tokens)
print(f"rank {rank}: dispatch {tuple(tokens.shape)} on {tokens.device}", flush=True)
dist.all_to_all_single(out, tokens)
print(f"rank {rank}: got {tuple(out.shape)} mean {out.mean().item():.3f}", flush=True)
dist.destroy_process_group()
'''
S18 = '''import os, torch, torch.distributed as dist
dist.init_process_group("gloo")
rank, ws = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(0)
# ZeRO-1 style: reduce-scatter the flat gradient, each rank keeps its shard
flat_grad = torch.full((ws * 1024,), float(rank + 1), device="cuda")
shard = torch.empty(1024, device="cuda")
print(f"rank {rank}: reduce_scatter {flat_grad.numel()} -> {shard.numel()} on {flat_grad.device}", flush=True)
dist.reduce_scatter_tensor(shard, flat_grad)
print(f"rank {rank}: shard sum {shard.sum().item():.1f}", flush=True)
dist.destroy_process_group()
'''
S19 = HDR + MLP + '''model = make_model().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
sample = torch.randn(256, 1024, device="cuda")
with torch.autocast("cuda", dtype=torch.bfloat16):
    print("graphing the model under bf16 autocast ...", flush=True)
    gmodel = torch.cuda.make_graphed_callables(model, (sample,))
    for step in range(5):
        x = torch.randn(256, 1024, device="cuda")
        loss = (gmodel(x).float() - x).pow(2).mean(); loss.backward(); opt.step(); opt.zero_grad(set_to_none=False)
        print(f"step {step} loss {loss.item():.5f}", flush=True)
'''
S22 = HDR + '''q = torch.randn(8, 16, 1024, 64, device="cuda", dtype=torch.bfloat16)
k, v = torch.randn_like(q), torch.randn_like(q)
with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print("attn out", tuple(y.shape), y.dtype)
'''
S23 = HDR + MLP + '''model = make_model().cuda()
x = torch.randn(256, 1024, device="cuda"); model(x).sum().backward()
print(f"allocated {torch.cuda.memory_allocated()/2**20:.0f} MiB cached {torch.cuda.memory_cached()/2**20:.0f} MiB", flush=True)
'''
S24 = '''#!/bin/bash
# prolog: record the GPU assigned to this task
echo "task ${SLURM_LOCALID} on $(hostname)"
nvidia-smi -i ${SLURM_LOCALID} --query-gpu=index,name,memory.used,memory.total --format=csv
'''
def scenarios():
    S = {}
    def add(name, prog, cmd="python train.py", env=None, limit=40, **kw):
        e = {"NCCL_NVLS_ENABLE": "0"}; e.update(env or {})
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=e, limit=limit, **kw)
    add("s16", S16); add("s16b", S16B)
    add("s17", S17, cmd=TR2, limit=45); add("s18", S18, cmd=TR2, limit=45)
    add("s19", S19); add("s22", S22); add("s23", S23)
    add("s24", {"prolog.sh": S24}, cmd="bash prolog.sh", env={"SLURM_LOCALID": "1"})
    return S
