import argparse, os, torch, torch.distributed as dist

p = argparse.ArgumentParser(); p.add_argument("--steps", type=int, default=300); p.add_argument("--resume", action="store_true")
args = p.parse_args()
CKPT = "checkpoints"

def save(step):
    d = os.path.join(CKPT, f"step_{step}")
    os.makedirs(d, exist_ok=True)
    torch.save({"model": model.module.state_dict(), "optim": opt.state_dict(), "step": step}, os.path.join(d, "state.pt"))
    link = os.path.join(CKPT, "latest")
    if os.path.islink(link):
        os.remove(link)
    os.symlink(os.path.basename(d), link)

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
start = 0
if args.resume:
    st = torch.load(os.path.join(CKPT, "latest", "state.pt"))
    model.module.load_state_dict(st["model"]); opt.load_state_dict(st["optim"]); start = st["step"]
    if rank == 0:
        print(f"resumed at step {start}", flush=True)
for step in range(start + 1, args.steps + 1):
    x = torch.randn(32, 16)
    loss = (model(x) - x.sum(1, keepdim=True)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 100 == 0:
        if rank == 0:
            save(step)
            print(f"step {step} loss {loss.item():.4f} saved", flush=True)
        dist.barrier()
dist.destroy_process_group()
