from mpi4py import MPI
import numpy as np
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
table = np.zeros((1000, 64), dtype=np.float32)   # embedding table, rows = tokens
if rank == 0:
    table[:] = np.random.default_rng(0).standard_normal(table.shape)
# every rank needs the bias column
bias = table[:, 0]
comm.Bcast(bias, root=0)
print(f"rank {rank}: bias mean {bias.mean():.4f}", flush=True)
