# gpu26/gpu27: a real DDP job whose GPU memory watch.memory judges (bench/capture_h200x2_1128d_mem.py plus
# STRAY=load).
# STRAY=1: every rank makes a tensor on cuda:0 before torch.cuda.set_device(local_rank) (the classic missing
#   set_device: rank 1 keeps a context on GPU 0 beside its own).
# STRAY=load: after set_device, every rank torch.load()s a checkpoint rank 0 saved from cuda:0 with no
#   map_location: torch restores each tensor to the device it was saved from (cuda:0), so rank 1 holds memory and
#   a context on GPU 0 (https://pytorch.org/docs/stable/generated/torch.load.html).
# FILL=1: rank 0 takes all but LEAVE_GIB of its GPU's free memory (torch.cuda.mem_get_info; plain cudaMalloc).
# MEM_GIB: what every other rank holds. Rank 0's clock ends the run (ranks agree every 50 steps).
import os, time, torch, torch.distributed as dist, torch.nn as nn
lr = int(os.environ["LOCAL_RANK"])
if os.environ.get("STRAY") == "1":
    torch.zeros(1, device="cuda:0")  # before set_device: a context on GPU 0
if os.environ.get("STRAY") == "barrier":  # the common form: a barrier before set_device, no device_id
    dist.init_process_group("nccl")
    dist.barrier()
    torch.cuda.set_device(lr)
else:
    torch.cuda.set_device(lr)
    dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
r = dist.get_rank()
if os.environ.get("STRAY") == "load":
    ck = os.environ.get("CKPT", "/tmp/gpu27-ckpt.pt")
    if r == 0:
        torch.save({"w": torch.randn(64 << 20, device="cuda:0")}, ck)  # 256 MiB saved from cuda:0
    dist.barrier()
    state = torch.load(ck)  # no map_location: back onto cuda:0 in every rank
    print("rank", r, "loaded onto", state["w"].device, flush=True)
if r == 0 and os.environ.get("FILL") == "1":
    free, total = torch.cuda.mem_get_info()
    n = free - int(float(os.environ.get("LEAVE_GIB", "2.5")) * (1 << 30))
else:
    n = int(float(os.environ.get("MEM_GIB", "0")) * (1 << 30))
hold = torch.empty(max(n, 0), dtype=torch.uint8, device="cuda")
m = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096)).cuda()
d = nn.parallel.DistributedDataParallel(m)
opt = torch.optim.SGD(d.parameters(), lr=1e-4)
end = time.time() + float(os.environ.get("SECONDS_RUN", "30")); step = 0
stop = torch.zeros(1, device="cuda")
free, total = torch.cuda.mem_get_info()
print("rank", r, "pid", os.getpid(), "holds", torch.cuda.memory_allocated() >> 20, "MiB; device free", free >> 20,
      "of", total >> 20, "MiB", flush=True)
while True:
    x = torch.randn(512, 4096, device="cuda"); loss = d(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step(); step += 1
    if step % 50 == 0:
        stop.fill_(1.0 if (r == 0 and time.time() > end) else 0.0); dist.all_reduce(stop)
        if stop.item() > 0:
            break
dist.barrier(); dist.destroy_process_group()
print("rank", r, "done", step, "steps", flush=True)
