"""A data-parallel training step on every GPU of one host, for `gpudoctor watch` (bench/watch_h100x4.sh).

Run under torchrun (one process a GPU). Each step: bf16 8192x8192 matrix products (the forward and backward
stand-in), then an all_reduce of a 256 MiB fp32 "gradient bucket" over NCCL, as DDP does after backward. With
NCCL's P2P and SHM on, the GPUs of one host talk over NVLink and the step is mostly compute; with
NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 they talk over sockets and the step waits on the network.
Rank 0 writes READY_FILE after the warm-up steps; every rank runs until SECONDS have passed.

    torchrun --nproc-per-node 4 bench/watch_ddp_workload.py SECONDS READY_FILE
"""

import os
import sys
import time

import torch
import torch.distributed as dist

seconds, ready = float(sys.argv[1]), sys.argv[2]
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
dist.init_process_group("nccl", device_id=torch.device("cuda", local))
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
grad = torch.ones(64 << 20, device="cuda", dtype=torch.float32)  # 256 MiB


def step():
    for _ in range(4):
        a @ a
    dist.all_reduce(grad)


for _ in range(3):
    step()
torch.cuda.synchronize()
dist.barrier()
if dist.get_rank() == 0:
    open(ready, "w").close()
end = time.time() + seconds
n = 0
while True:
    step()
    n += 1
    flag = torch.tensor([1 if time.time() < end else 0], device="cuda")
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)  # every rank stops at the same step
    if not flag.item():
        break
torch.cuda.synchronize()
if dist.get_rank() == 0:
    print("steps", n, "in", seconds, "s", flush=True)
dist.destroy_process_group()
