import argparse, os, torch, torch.distributed as dist

p = argparse.ArgumentParser()
p.add_argument("--resume", default=None); p.add_argument("--lr", type=float, default=1e-2)
p.add_argument("--max-steps", type=int, default=400); p.add_argument("--out", default="ckpt_run")
args = p.parse_args()

def save(step):
    final = os.path.join(args.out, f"step_{step}")
    tmp = final + ".tmp"
    os.makedirs(tmp, exist_ok=True)
    torch.save(model.module.state_dict(), os.path.join(tmp, "model.pt"))
    torch.save({"optim": opt.state_dict(), "step": step}, os.path.join(tmp, "trainer_state.pt"))
    os.rename(tmp, final)                     # atomic publish of the finished checkpoint
    with open(os.path.join(args.out, "latest"), "w") as f:
        f.write(f"step_{step}\n")

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)))
opt = torch.optim.SGD(model.parameters(), lr=args.lr)
start = 0
if args.resume:
    model.module.load_state_dict(torch.load(os.path.join(args.resume, "model.pt")))
    st = torch.load(os.path.join(args.resume, "trainer_state.pt"))
    opt.load_state_dict(st["optim"])
    for g in opt.param_groups:
        g["lr"] = args.lr
    start = st["step"]
    if rank == 0:
        print(f"resumed from {args.resume} at step {start}, lr={args.lr}", flush=True)
for step in range(start + 1, args.max_steps + 1):
    x = torch.randn(64, 32); y = x.sum(1, keepdim=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 100 == 0:
        if rank == 0:
            save(step)
            print(f"step {step} loss {loss.item():.4f} -> {args.out}/step_{step}", flush=True)
        dist.barrier()
dist.destroy_process_group()
