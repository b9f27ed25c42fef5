# gpu27: real GPU failures for explain, one per KIND, run under torchrun (every rank sets its device and joins
# an NCCL group first, as a training script does); the failing rank is rank LAST (the highest).
# assert: nll_loss/cross_entropy with a label equal to the class count (a label off by one): CUDA's device-side
#   assert (aten/src/ATen/native/cuda/Loss.cu's `t >= 0 && t < n_classes`) and the RuntimeError after it.
# oom: the failing rank holds all but 6 GiB of its GPU, then a forward whose activation (16 GiB for the first
#   Linear's output) does not fit in what is left (torch.OutOfMemoryError inside F.linear).
# device: the batch left on the CPU while the model is on the GPU (the same-device RuntimeError).
#   It does not fail under DDP with device_ids: DDP's forward moves its inputs to that device (the real run,
#   fixtures/recorded/h200x2-2026-11-28e/fail-device.log, trained on).
# duplicate: every rank calls torch.cuda.set_device(0) (RANK/LOCAL_RANK mixed up): NCCL refuses two ranks on one
#   GPU (ncclInvalidUsage, "Duplicate GPU detected"); needs 2 GPUs.
import os, sys, torch, torch.distributed as dist, torch.nn as nn, torch.nn.functional as F
kind = os.environ["KIND"]
lr = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(0 if kind == "duplicate" else lr)
dist.init_process_group("nccl")
r, last = dist.get_rank(), dist.get_world_size() - 1
dev = torch.device("cuda", torch.cuda.current_device())
model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 10)).to(dev)
ddp = nn.parallel.DistributedDataParallel(model, device_ids=[dev.index])
print("rank %d on %s: step 0" % (r, dev), flush=True)
for step in range(1, 4):
    x = torch.randn(256, 1024, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)
    if step == 3 and r == last:
        if kind == "assert":
            y[7] = 10  # 10 classes: labels 0..9
        elif kind == "oom":
            free, _total = torch.cuda.mem_get_info()
            hold = torch.empty(free - (6 << 30), dtype=torch.uint8, device=dev)
            x = torch.randn(1 << 20, 1024, device=dev)  # 4 GiB; the first Linear's output is 16 GiB
            y = torch.randint(0, 10, (1 << 20,), device=dev)
        elif kind == "device":
            x = torch.randn(256, 1024)  # left on the CPU
    loss = F.cross_entropy(ddp(x), y)
    loss.backward()
    print("rank %d step %d loss %.4f" % (r, step, loss.item()), flush=True)
dist.destroy_process_group()
