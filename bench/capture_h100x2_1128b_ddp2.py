# A small real DDP job: 2 ranks, NCCL; rank 0's clock decides the end (all ranks agree every 50 steps).
import os, time, torch, torch.distributed as dist, torch.nn as nn
dist.init_process_group("nccl")
r = dist.get_rank(); torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
m = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096)).cuda()
d = nn.parallel.DistributedDataParallel(m)
opt = torch.optim.SGD(d.parameters(), lr=1e-4)
end = time.time() + float(os.environ.get("SECONDS_RUN", "45")); step = 0
stop = torch.zeros(1, device="cuda")
while True:
    x = torch.randn(512, 4096, device="cuda"); loss = d(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step(); step += 1
    if step % 50 == 0:
        stop.fill_(1.0 if (r == 0 and time.time() > end) else 0.0); dist.all_reduce(stop)
        if stop.item() > 0:
            break
    if step % 1000 == 0 and r == 0:
        print("step", step, "loss", round(loss.item(), 5), flush=True)
dist.barrier(); dist.destroy_process_group()
print("rank", r, "done", step, "steps", flush=True)
