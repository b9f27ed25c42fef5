import argparse, os, shutil
import torch, torch.distributed as dist

p = argparse.ArgumentParser()
p.add_argument("--out-dir", default="runs/exp1")
p.add_argument("--steps", type=int, default=40)
p.add_argument("--overwrite", action="store_true")
args = p.parse_args()

dist.init_process_group("gloo")
rank = dist.get_rank()
if rank == 0 and os.path.isdir(args.out_dir) and os.listdir(args.out_dir):
    if not args.overwrite:
        ans = input(f"{args.out_dir} already holds {len(os.listdir(args.out_dir))} checkpoint(s). Delete them and start over? [y/N] ")
        if ans.strip().lower() != "y":
            raise SystemExit("aborted by user")
    shutil.rmtree(args.out_dir)
dist.barrier()
os.makedirs(args.out_dir, exist_ok=True)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(1, args.steps + 1):
    x = torch.randn(16, 32); y = torch.randint(0, 4, (16,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 10 == 0 and rank == 0:
        torch.save(model.module.state_dict(), os.path.join(args.out_dir, f"step{step}.pt"))
        print(f"step {step} loss {loss.item():.4f} saved", flush=True)
dist.destroy_process_group()
