import glob, os, shutil, torch, torch.distributed as dist

CKPT = "ckpt"
KEEP = 2

def save_sharded(model, opt, step):
    d = os.path.join(CKPT, f"step_{step:06d}")
    os.makedirs(d, exist_ok=True)
    # every rank writes its own shard of the flat params (one file per tensor chunk)
    for i, p in enumerate(model.parameters()):
        for j, chunk in enumerate(p.detach().flatten().chunk(8)):
            torch.save(chunk.clone(), os.path.join(d, f"rank{rank}_p{i}_c{j}.pt"))
    torch.save(opt.state_dict(), os.path.join(d, f"rank{rank}_optim.pt"))

def rotate_checkpoints():
    ckpts = sorted(glob.glob(os.path.join(CKPT, "step_*")))
    for old in ckpts[:-KEEP]:
        shutil.rmtree(old)

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(*[torch.nn.Linear(64, 64) for _ in range(12)]))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(1, 201):
    x = torch.randn(32, 64)
    loss = model(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 20 == 0:
        save_sharded(model, opt, step)
        dist.barrier()
        if rank == 0:
            rotate_checkpoints()
        dist.barrier()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f} saved {CKPT}/step_{step:06d}", flush=True)
dist.destroy_process_group()
