#!/usr/bin/env python3
"""Make real PyTorch Flight Recorder dumps for `gpudoctor explain`'s fixtures.

Runs a 2-rank job on CPUs with the gloo backend (torch >= 2.9 records gloo collectives in the
Flight Recorder: `torch._C._distributed_c10d._dump_fr_trace`) with the recorder on
(TORCH_FR_BUFFER_SIZE, the name torch reads before TORCH_NCCL_TRACE_BUFFER_SIZE), plants a
fault, and writes each rank's dump where the NCCL watchdog's dump-on-timeout writes it
(TORCH_NCCL_DEBUG_INFO_TEMP_FILE, default prefix /tmp/nccl_trace_rank_, then the rank):

  skip      rank 1 never calls the third all_reduce; rank 0 waits in it until gloo's timeout
  mismatch  rank 1 calls broadcast where rank 0 calls all_reduce (the fourth collective)

    python bench/explain_flight_recorder.py OUTDIR    # with a torch that has gloo (CPU wheel is enough)

The fixtures in fixtures/flight_recorder/ were made by this script with torch 2.13.0+cpu.
"""

import os
import sys
import tempfile


def worker(rank, case, out, init):
    import datetime

    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=3))
    t = torch.ones(4)
    dist.all_reduce(t)
    dist.all_reduce(t)
    try:
        if case == "skip":
            if rank == 0:
                dist.all_reduce(t)  # rank 1 never arrives: gloo times out here
        elif case == "mismatch":
            dist.all_reduce(t)
            if rank == 0:
                dist.all_reduce(t)
            else:
                dist.broadcast(t, 0)
            dist.barrier()
    except Exception as exc:  # the timeout: what the job's log shows
        print("rank %d: %s: %s" % (rank, type(exc).__name__, str(exc).splitlines()[0]), file=sys.stderr)
    if case == "skip" and rank == 1:
        import time

        time.sleep(5)  # still alive (not crashed) while rank 0 waits: a rank that skipped, not one that died
    data = torch._C._distributed_c10d._dump_fr_trace()
    with open(os.path.join(out, "nccl_trace_rank_%d" % rank), "wb") as f:
        f.write(data)
    os._exit(0)  # no destroy_process_group: the peer may be gone


def main(argv):
    import multiprocessing as mp

    out = argv[1]
    os.environ.setdefault("TORCH_FR_BUFFER_SIZE", "2000")
    for case in ("skip", "mismatch"):
        d = os.path.join(out, case)
        os.makedirs(d, exist_ok=True)
        init = "file://" + os.path.join(tempfile.mkdtemp(), "rdzv")
        ps = [mp.get_context("spawn").Process(target=worker, args=(r, case, d, init)) for r in range(2)]
        for p in ps:
            p.start()
        for p in ps:
            p.join(60)
        print(case, sorted(os.listdir(d)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
