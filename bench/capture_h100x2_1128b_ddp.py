# A small real DDP job: 2 ranks, NCCL, runs until SECONDS have passed (default 45), prints a step line now and then.
import os, sys, time, torch, torch.distributed as dist, torch.nn as nn
dist.init_process_group("nccl")
r = dist.get_rank(); torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
m = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096)).cuda()
d = nn.parallel.DistributedDataParallel(m)
opt = torch.optim.SGD(d.parameters(), lr=1e-4)
end = time.time() + float(os.environ.get("SECONDS_RUN", "45")); step = 0
while time.time() < end:
    x = torch.randn(512, 4096, device="cuda"); loss = d(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step(); step += 1
    if step % 500 == 0 and r == 0:
        torch.cuda.synchronize(); print("step", step, "loss", round(loss.item(), 5), flush=True)
dist.barrier(); dist.destroy_process_group()
print("rank", r, "done", step, "steps", flush=True)
