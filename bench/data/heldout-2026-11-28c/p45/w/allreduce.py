from mpi4py import MPI
import os, numpy as np
comm = MPI.COMM_WORLD
r, n = comm.Get_rank(), comm.Get_size()
buf = np.full(4, r + 1.0); out = np.empty(4)
comm.Allreduce(buf, out, op=MPI.SUM)
print(f"rank {r}/{n} on {MPI.Get_processor_name()} cpus {sorted(os.sched_getaffinity(0))} sum {out[0]}", flush=True)
