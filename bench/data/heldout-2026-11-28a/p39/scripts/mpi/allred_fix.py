from mpi4py import MPI
import numpy as np
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
params = np.random.default_rng(rank).standard_normal((4, 8)).astype(np.float32)
grad = params * 0.1
avg = np.zeros((4, 8), dtype=np.float32)            # one row per layer
comm.Allreduce(grad, avg, op=MPI.SUM)
avg /= size
print(f"rank {rank}: averaged grad norm {np.linalg.norm(avg):.4f}", flush=True)
