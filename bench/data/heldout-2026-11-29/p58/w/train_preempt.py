import os, signal, time
import torch, torch.distributed as dist

STOP = False
def on_sigterm(signum, frame):
    global STOP
    STOP = True
signal.signal(signal.SIGTERM, on_sigterm)

def save_checkpoint(model, rank, step, ckpt_dir="ckpt"):
    # 8 shards per rank; the shared file system in this cluster writes ~1 shard / 5 s
    os.makedirs(ckpt_dir, exist_ok=True)
    sd = model.module.state_dict()
    for shard in range(8):
        torch.save(sd, os.path.join(ckpt_dir, f"step{step}-rank{rank}-shard{shard}.pt"))
        time.sleep(5)
        print(f"[rank{rank}] wrote shard {shard + 1}/8 of step {step}", flush=True)
    open(os.path.join(ckpt_dir, f"step{step}-rank{rank}.done"), "w").close()
    print(f"[rank{rank}] checkpoint step {step} complete", flush=True)

dist.init_process_group("gloo")
rank = dist.get_rank()
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 8))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
step = 0
while True:
    step += 1
    x = torch.randn(32, 64); y = torch.randint(0, 8, (32,))
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    if rank == 0 and step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}", flush=True)
    stop = torch.tensor(1.0 if STOP else 0.0)
    dist.all_reduce(stop)
    if stop.item() > 0:
        print(f"[rank{rank}] SIGTERM received, saving preemption checkpoint at step {step}", flush=True)
        save_checkpoint(model, rank, step)
        break
    time.sleep(0.05)
dist.destroy_process_group()
