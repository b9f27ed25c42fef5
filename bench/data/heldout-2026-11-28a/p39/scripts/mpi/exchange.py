from mpi4py import MPI
import numpy as np
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
if rank == 0:
    grads = np.ones(1024, dtype=np.float64)
    comm.Send(grads, dest=1, tag=7)
    print("rank 0 sent", grads.size, "values", flush=True)
else:
    buf = np.empty(1024, dtype=np.float32)
    comm.Recv(buf, source=0, tag=7)
    print("rank 1 got", buf[:4], flush=True)
