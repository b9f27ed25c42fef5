# eval-p40 call 2 scenarios
from scen import PRE, INIT, LAZY, MLP, TR

P_RECV_ANY = PRE + INIT + '''# parameter-server style: rank 0 collects gradients from whichever worker finishes first
if rank == 0:
    buf = torch.empty(1 << 20, device="cuda")
    for _ in range(ws - 1):
        sender = dist.recv(buf)
        print(f"got update from rank {sender}", flush=True)
else:
    g = torch.randn(1 << 20, device="cuda")
    dist.send(g, dst=0)
dist.destroy_process_group()
'''

P_GATHER_NOLIST = PRE + INIT + '''torch.manual_seed(rank)
loss = torch.rand(1, device="cuda")
gathered = None
dist.gather(loss, gather_list=gathered, dst=0)
if rank == 0:
    print("per-rank losses", [t.item() for t in gathered], flush=True)
dist.destroy_process_group()
'''

P_AG_CPU = PRE + INIT + '''emb = torch.randn(128, 256, device="cuda")
all_emb = [torch.empty(128, 256) for _ in range(ws)]      # collect on the host for faiss
dist.all_gather(all_emb, emb)
print(f"rank {rank} gathered {sum(e.shape[0] for e in all_emb)} embeddings", flush=True)
dist.destroy_process_group()
'''

P_FRAC_GT1 = PRE + INIT + MLP + '''# leave headroom for the dataloader's pinned buffers: cap torch at 1.5x of ... (meant 0.85)
torch.cuda.set_per_process_memory_fraction(1.5)
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
loss = model(torch.randn(64, 1024, device="cuda")).pow(2).mean(); loss.backward()
print(f"rank {rank} ok", flush=True)
dist.destroy_process_group()
'''

P_DCP_FILE = PRE + INIT + MLP + '''import torch.distributed.checkpoint as dcp
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
os.makedirs("checkpoints", exist_ok=True)
if rank == 0 and not os.path.exists("checkpoints/model.pt"):
    torch.save({}, "checkpoints/model.pt")        # left over from the single-GPU version of this script
dist.barrier()
dcp.save({"model": model.state_dict()}, checkpoint_id="checkpoints/model.pt")
print(f"rank {rank} saved", flush=True)
dist.destroy_process_group()
'''

P_FSDP1_CPU = PRE + INIT + MLP + '''from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
model = FSDP(make_model())          # model still on the CPU, no device_id
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(5):
    loss = model(torch.randn(64, 1024, device="cuda")).pow(2).mean()
    loss.backward(); opt.step(); opt.zero_grad()
    if rank == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_A2A_UNEVEN = PRE + INIT + '''tokens = torch.randn(1001, 512, device="cuda")      # 1001 routed tokens on this rank
out = torch.empty_like(tokens)
dist.all_to_all_single(out, tokens)
print(f"rank {rank} exchanged {out.shape[0]} tokens", flush=True)
dist.destroy_process_group()
'''

P_INFER_AR = PRE + INIT + MLP + '''from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(make_model().cuda(), device_ids=[lr])
model.eval()
with torch.inference_mode():
    correct = torch.zeros(1, device="cuda"); total = torch.zeros(1, device="cuda")
    for _ in range(5):
        out = model(torch.randn(64, 1024, device="cuda"))
        correct += (out.argmax(-1) < 512).sum(); total += out.shape[0]
dist.all_reduce(correct); dist.all_reduce(total)
if rank == 0:
    print(f"val acc {(correct / total).item():.4f}", flush=True)
dist.destroy_process_group()
'''

P_H_FSDP1_FP16 = PRE + INIT + MLP + '''from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler
model = FSDP(make_model(), device_id=torch.cuda.current_device(),
             mixed_precision=MixedPrecision(param_dtype=torch.float16, reduce_dtype=torch.float16, buffer_dtype=torch.float16))
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = ShardedGradScaler()
for step in range(20):
    loss = model(torch.randn(64, 1024, device="cuda")).float().pow(2).mean()
    scaler.scale(loss).backward(); scaler.unscale_(opt)
    model.clip_grad_norm_(1.0)
    scaler.step(opt); scaler.update(); opt.zero_grad()
    if rank == 0 and step % 10 == 9:
        print(f"step {step} loss {loss.item():.5f} scale {scaler.get_scale():.0f}", flush=True)
dist.destroy_process_group()
'''


def scenarios():
    S = {}
    def add(name, prog, cmd=TR, env=None, limit=25, **kw):
        S[name] = dict(prog=prog if isinstance(prog, dict) else {"train.py": prog}, cmd=cmd, env=env or {},
                       limit=limit, **kw)
    add("n01", P_RECV_ANY)
    add("n02", P_GATHER_NOLIST)
    add("n03", P_AG_CPU)
    add("n04", P_FRAC_GT1)
    add("n05", P_DCP_FILE)
    add("n06", P_FSDP1_CPU)
    add("n07", P_A2A_UNEVEN)
    add("n08", P_INFER_AR)
    add("h07", P_H_FSDP1_FP16)
    return S
