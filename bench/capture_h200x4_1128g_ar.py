# gpu29: all_reduce and all_gather bus bandwidth measured the way nccl-tests' all_reduce_perf / all_gather_perf do
# (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md: algbw = bytes / time; all_reduce busbw =
# algbw * 2(n-1)/n, all_gather busbw = algbw * (n-1)/n with bytes the gathered total), with torch.distributed over
# NCCL, float32, 1 MiB to 1 GiB doubling: 5 warm-ups, then ITERS timed calls between two CUDA events, the slowest
# rank's time; printed as nccl-tests prints its table. The same call runs `gpudoctor probe --local` for comparison.
import os, torch, torch.distributed as dist
lr = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(lr)
dist.init_process_group("nccl", device_id=torch.device("cuda", lr))
r, n = dist.get_rank(), dist.get_world_size()
iters = int(os.environ.get("ITERS", "20"))
if r == 0:
    print("# nranks %d  NCCL %s  torch %s  NCCL_P2P_DISABLE=%s NCCL_SHM_DISABLE=%s" % (
        n, ".".join(map(str, torch.cuda.nccl.version())), torch.__version__, os.environ.get("NCCL_P2P_DISABLE"),
        os.environ.get("NCCL_SHM_DISABLE")))
for op in ("all_reduce", "all_gather"):
    if r == 0:
        print("# %s\n# %12s %12s %8s %10s %10s %10s" % (op, "size(B)", "count", "type", "time(us)", "algbw", "busbw"))
    size = 1 << 20
    while size <= 1 << 30:
        if op == "all_reduce":
            t = torch.ones(size // 4, device="cuda")
            fn = lambda: dist.all_reduce(t)
        else:
            out = torch.zeros(size // 4, device="cuda"); inp = torch.ones(size // 4 // n, device="cuda")
            fn = lambda: dist.all_gather_into_tensor(out, inp)
        for _ in range(5):
            fn()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize(); dist.barrier(); torch.cuda.synchronize()
        a.record()
        for _ in range(iters):
            fn()
        b.record(); torch.cuda.synchronize()
        us = a.elapsed_time(b) * 1000.0 / iters
        mx = torch.tensor([us], device="cuda"); dist.all_reduce(mx, op=dist.ReduceOp.MAX); us = mx.item()
        algbw = size / (us * 1e-6) / 1e9
        f = 2.0 * (n - 1) / n if op == "all_reduce" else (n - 1.0) / n
        if r == 0:
            print("  %12d %12d %8s %10.1f %10.2f %10.2f" % (size, size // 4, "float", us, algbw, algbw * f), flush=True)
        size *= 2
dist.barrier(); dist.destroy_process_group()
