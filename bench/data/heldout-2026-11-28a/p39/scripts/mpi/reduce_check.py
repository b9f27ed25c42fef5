from mpi4py import MPI
import numpy as np
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
shard = np.arange(rank * 1000, (rank + 1) * 1000, dtype=np.float64)
local = np.array([shard.sum(), shard.size], dtype=np.float64)
glob = np.zeros_like(local)
comm.Allreduce(local, glob, op=MPI.SUM)
if rank == 0:
    print(f"ranks={size} mean={glob[0] / glob[1]:.1f} (expected {(size * 1000 - 1) / 2:.1f})")
print(f"host {MPI.Get_processor_name()} rank {rank} ok")
