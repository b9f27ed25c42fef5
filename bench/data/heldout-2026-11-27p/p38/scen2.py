# eval-p38 scenarios, device call 2.
from scen import PRE, INIT, MLP, DDP_TRAIN, BENCH, TR

P_META = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
# build on the meta device to save host memory; weights come from the checkpoint later
with torch.device("meta"):
    model = make_model()
model = DDP(model, device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(10):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
print(f"rank {rank} done", flush=True)
dist.destroy_process_group()
'''

P_FP8 = PRE + INIT + '''# fp8 gradient all-reduce to save bandwidth
g = torch.randn(16 * 1024 * 1024, device="cuda") * 0.01
g8 = g.to(torch.float8_e4m3fn)
dist.all_reduce(g8)
print(f"rank {rank} reduced {g8.float().abs().mean().item():.6f}", flush=True)
dist.destroy_process_group()
'''

P_TIED = PRE + INIT + '''import torch.nn as nn
from torch.distributed.fsdp import fully_shard
class TinyLM(nn.Module):
    def __init__(self, V=32000, d=512, n=4):
        super().__init__()
        self.emb = nn.Embedding(V, d)
        self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True) for _ in range(n)])
        self.head = nn.Linear(d, V, bias=False)
        self.head.weight = self.emb.weight  # tie input/output embeddings
    def forward(self, ids):
        h = self.emb(ids)
        for b in self.blocks:
            h = b(h)
        return self.head(h)
torch.manual_seed(0)
model = TinyLM().cuda()
fully_shard(model.emb)
for b in model.blocks:
    fully_shard(b)
fully_shard(model.head)
fully_shard(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(5):
    ids = torch.randint(0, 32000, (4, 128), device="cuda")
    loss = nn.functional.cross_entropy(model(ids).flatten(0, 1), ids.flatten())
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_BIG = PRE + INIT + '''import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(1024, 8192), nn.GELU(), nn.Linear(8192, 8192), nn.GELU(), nn.Linear(8192, 1024)).cuda(), device_ids=[lr])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(10):
    x = torch.randn(131072, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad(set_to_none=True)
    if rank == 0:
        print(f"step {step} loss {loss.item():.5f} max_alloc {torch.cuda.max_memory_allocated()/2**30:.1f} GiB", flush=True)
dist.destroy_process_group()
'''

P_SUBPG = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
# data-parallel group for the "dp" dimension (only rank 0 in it on this 2-GPU test box)
dp_group = dist.new_group(ranks=[0])
model = DDP(make_model().cuda(), device_ids=[lr], process_group=dp_group)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(10):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
print(f"rank {rank} done", flush=True)
dist.destroy_process_group()
'''

RUNSH = '''#!/bin/bash
# pin each worker to its own GPU
export CUDA_VISIBLE_DEVICES=$LOCAL_RANK
exec python train.py "$@"
'''

W = {"NCCL_DEBUG": "WARN"}


def scenarios():
    S = {}
    def add(name, prog, cmd=TR, env=None, limit=120, **kw):
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=env or {},
                       limit=limit, **kw)
    add("b01", P_META)
    add("b02", P_FP8)
    add("b04", P_TIED)
    add("b05", DDP_TRAIN,
        cmd="unshare -m bash -c 'mount -t tmpfs -o size=2m tmpfs /dev/shm && df -h /dev/shm && echo @@SPLIT@@ && "
            "NCCL_P2P_DISABLE=1 " + TR + "'")
    add("b06", BENCH, env=dict(W, NCCL_MAX_NCHANNELS="0"))
    add("b07", BENCH, env=dict(W, NCCL_NTHREADS="1024"))
    add("b08", P_BIG, env={"PYTORCH_CUDA_ALLOC_CONF": "per_process_memory_fraction:0.1"}, seq=True)
    add("b09", P_BIG, seq=True)
    add("b10", DDP_TRAIN, cmd="LD_LIBRARY_PATH=/usr/local/cuda-13.0/compat:$LD_LIBRARY_PATH " + TR)
    add("b11", {"train.py": DDP_TRAIN, "run.sh": RUNSH}, cmd="torchrun --standalone --nproc-per-node 2 --no-python ./run.sh",
        prep="chmod +x run.sh")
    add("b12", P_SUBPG)
    add("b13", DDP_TRAIN)
    return S
