#!/usr/bin/env python3
"""Make real PyTorch Flight Recorder dumps of an NCCL job on two GPUs (the GPU counterpart of
bench/explain_flight_recorder.py; fixtures/flight_recorder/nccl-h100x2-*/).

Each case is a 2-rank job (mp.spawn, NCCL backend, one GPU per rank, init timeout 15 s) with the recorder on
(TORCH_NCCL_TRACE_BUFFER_SIZE=2000) and the watchdog's dump on timeout (TORCH_NCCL_DUMP_ON_TIMEOUT=1, files at
TORCH_NCCL_DEBUG_INFO_TEMP_FILE + rank, https://pytorch.org/docs/stable/torch.distributed.html#debugging-torch-distributed-applications
and https://docs.pytorch.org/tutorials/unstable/flight_recorder_tutorial.html):

  skip      rank 1 never calls the third all_reduce (it sleeps, alive); rank 0's watchdog times out there
  mismatch  at the fourth collective rank 0 calls all_reduce, rank 1 all_gather_into_tensor

    python bench/flight_recorder_nccl_h100x2.py OUTDIR      # on a host with 2 GPUs and torch with NCCL

NVLink SHARP stays off (NCCL_NVLS_ENABLE=0). Each rank's stderr goes to OUTDIR/CASE/rankN.log.
"""

import os
import sys
import time


def worker(rank, case, out):
    sys.stderr = open(os.path.join(out, "rank%d.log" % rank), "w", buffering=1)
    import datetime

    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=2, timeout=datetime.timedelta(seconds=15),
                            device_id=torch.device("cuda", rank))
    t = torch.ones(1 << 16, device="cuda")
    dist.all_reduce(t)
    dist.all_reduce(t)
    torch.cuda.synchronize()
    if case == "skip":
        if rank == 0:
            dist.all_reduce(t)
            torch.cuda.synchronize()
        else:
            time.sleep(45)  # alive, never arrives
    elif case == "mismatch":
        dist.all_reduce(t)
        if rank == 0:
            dist.all_reduce(t)
        else:
            dist.all_gather_into_tensor(torch.empty(2 << 16, device="cuda"), t)
        dist.barrier()
        torch.cuda.synchronize()
        time.sleep(40)
    print("rank %d: reached the end" % rank, file=sys.stderr)
    os._exit(0)


def main(argv):
    import torch.multiprocessing as mp

    root = argv[1]
    for case in argv[2:] or ["skip", "mismatch"]:
        out = os.path.join(root, case)
        os.makedirs(out, exist_ok=True)
        os.environ.update({
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(29610 + len(case)),
            "TORCH_NCCL_TRACE_BUFFER_SIZE": "2000", "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
            "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": os.path.join(out, "nccl_trace_rank_"),
            "NCCL_NVLS_ENABLE": "0",
        })
        ctx = mp.get_context("spawn")
        procs = [ctx.Process(target=worker, args=(r, case, out)) for r in range(2)]
        for p in procs:
            p.start()
        deadline = time.time() + 110
        for p in procs:
            p.join(max(1, deadline - time.time()))
        for p in procs:
            if p.is_alive():
                p.kill()
        print(case, [p.exitcode for p in procs], sorted(os.listdir(out)), flush=True)


if __name__ == "__main__":
    main(sys.argv)
