from mpi4py import MPI
import numpy as np
c = MPI.COMM_WORLD
x = np.full(1 << 20, c.rank + 1.0)
y = np.empty_like(x)
c.Allreduce(x, y)
print(f"rank {c.rank}/{c.size} on {MPI.Get_processor_name()}: allreduce sum {y[0]}", flush=True)
