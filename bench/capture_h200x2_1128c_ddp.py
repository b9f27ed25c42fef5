# A small real DDP job: 2 ranks, NCCL; rank 0's clock decides the end (all ranks agree every 50 steps).
# MEM_GIB: a buffer each rank holds on its GPU, so the memory watch samples is the job's, not only the model's.
import os, time, torch, torch.distributed as dist, torch.nn as nn
dist.init_process_group("nccl")
r = dist.get_rank(); torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
hold = torch.empty(int(float(os.environ.get("MEM_GIB", "0")) * (1 << 30)), dtype=torch.uint8, device="cuda")
m = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096)).cuda()
d = nn.parallel.DistributedDataParallel(m)
opt = torch.optim.SGD(d.parameters(), lr=1e-4)
end = time.time() + float(os.environ.get("SECONDS_RUN", "45")); step = 0
stop = torch.zeros(1, device="cuda")
print("rank", r, "holds", torch.cuda.memory_allocated() >> 20, "MiB", flush=True)
while True:
    x = torch.randn(512, 4096, device="cuda"); loss = d(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step(); step += 1
    if step % 50 == 0:
        stop.fill_(1.0 if (r == 0 and time.time() > end) else 0.0); dist.all_reduce(stop)
        if stop.item() > 0:
            break
dist.barrier(); dist.destroy_process_group()
print("rank", r, "done", step, "steps", flush=True)
