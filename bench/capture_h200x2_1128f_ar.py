# gpu28: all_reduce bus bandwidth measured the way nccl-tests' all_reduce_perf does
# (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md: algbw = bytes / time,
# busbw = algbw * 2(n-1)/n), with torch.distributed over NCCL, float32, in place (torch's all_reduce is; nccl-tests
# reports both), 1 MiB to 1 GiB doubling: 5 warm-ups, then ITERS timed calls between two CUDA events;
# printed as nccl-tests prints its table. The same call runs `gpudoctor probe --local` for comparison.
import os, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
r, n = dist.get_rank(), dist.get_world_size()
iters = int(os.environ.get("ITERS", "20"))
if r == 0:
    print("# nranks %d  NCCL %s  torch %s  NCCL_P2P_DISABLE=%s NCCL_SHM_DISABLE=%s" % (
        n, ".".join(map(str, torch.cuda.nccl.version())), torch.__version__, os.environ.get("NCCL_P2P_DISABLE"),
        os.environ.get("NCCL_SHM_DISABLE")))
    print("# %12s %12s %8s %10s %10s %10s" % ("size(B)", "count", "type", "time(us)", "algbw", "busbw"))
size = 1 << 20
while size <= 1 << 30:
    t = torch.ones(size // 4, device="cuda")
    for _ in range(5):
        dist.all_reduce(t)
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
    a.record()
    for _ in range(iters):
        dist.all_reduce(t)
    b.record(); torch.cuda.synchronize()
    us = a.elapsed_time(b) * 1000.0 / iters
    mx = torch.tensor([us], device="cuda"); dist.all_reduce(mx, op=dist.ReduceOp.MAX); us = mx.item()  # slowest rank
    algbw = size / (us * 1e-6) / 1e9
    if r == 0:
        print("  %12d %12d %8s %10.1f %10.2f %10.2f" % (size, size // 4, "float", us, algbw, algbw * 2 * (n - 1) / n), flush=True)
    del t; size *= 2
dist.barrier(); dist.destroy_process_group()
