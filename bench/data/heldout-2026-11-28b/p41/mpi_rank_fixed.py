from mpi4py import MPI
import numpy as np
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
# each rank sends its gradient shard to the next rank in the ring
shard = np.full(1024, rank, dtype=np.float32)
out = np.empty_like(shard)
req = comm.Isend(shard, dest=(rank + 1) % size)
comm.Recv(out, source=(rank - 1) % size)
req.Wait()
print(f"rank {rank}/{size} received shard from {int(out[0])}", flush=True)
