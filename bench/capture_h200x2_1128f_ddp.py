# gpu28: a real 2-rank DDP job for `gpudoctor watch` (bf16 matrix products, a 512 MiB bf16 gradient all_reduce per
# step), as it comes or with one rank made slow:
#   MODE=healthy   every rank computes and all-reduces;
#   MODE=cpuspin   rank SLOW_RANK spins on its CPU for SLOW_S seconds before each step (CPU-bound Python in the loop:
#                  augmentation, tokenisation on the main thread); the others wait for it inside the all_reduce;
#   MODE=sleep     rank SLOW_RANK sleeps SLOW_S seconds before each step (a data loader stall: the batch is not ready);
# NCCL's own variables (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE) come from the harness. Every rank logs its pid, GPU and,
# at the end, its steps, seconds per step and seconds spent slowed: the ground truth watch is compared with.
# The run ends when the harness creates STOP (rank 0 reads it; the ranks agree through an all_reduce) or at MAX_S.
import os, time, torch, torch.distributed as dist, torch.nn as nn
lr = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(lr)
dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
r, n = dist.get_rank(), dist.get_world_size()
mode, slow_rank, slow_s = os.environ.get("MODE", "healthy"), int(os.environ.get("SLOW_RANK", "1")), float(os.environ.get("SLOW_S", "0.3"))
width, batch = 8192, int(os.environ.get("BATCH", "8192"))
m = nn.Sequential(*[nn.Linear(width, width, bias=False) for _ in range(4)]).cuda().to(torch.bfloat16)
d = nn.parallel.DistributedDataParallel(m, bucket_cap_mb=128)
opt = torch.optim.SGD(d.parameters(), lr=1e-6)
x = torch.randn(batch, width, device="cuda", dtype=torch.bfloat16)
print("rank", r, "pid", os.getpid(), "gpu", lr, "mode", mode, "slow" if (mode != "healthy" and r == slow_rank) else "",
      "holds", torch.cuda.memory_allocated() >> 20, "MiB", flush=True)
stop_file, max_end = os.environ.get("STOP", "/tmp/gpu28-stop"), time.time() + float(os.environ.get("MAX_S", "60"))
flag = torch.zeros(1, device="cuda")
t0, step, slowed = time.time(), 0, 0.0
every = 2 if mode != "healthy" else 10
while True:
    if mode != "healthy" and r == slow_rank:
        s = time.perf_counter()
        if mode == "cpuspin":
            while time.perf_counter() - s < slow_s:
                pass
        else:
            time.sleep(slow_s)
        slowed += time.perf_counter() - s
    loss = d(x).float().pow(2).mean()
    opt.zero_grad(set_to_none=True); loss.backward(); opt.step(); step += 1
    loss.item()  # what a training loop logs: one sync a step
    if step % every == 0:
        flag.fill_(1.0 if (r == 0 and (os.path.exists(stop_file) or time.time() > max_end)) else 0.0)
        dist.all_reduce(flag)
        if flag.item() > 0:
            break
el = time.time() - t0
print("rank", r, "done", step, "steps in %.1f s, %.3f s a step, %.1f s slowed (%s)" % (el, el / max(step, 1), slowed, mode), flush=True)
dist.barrier(); dist.destroy_process_group()
