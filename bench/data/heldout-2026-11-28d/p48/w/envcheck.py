import os, sys
from mpi4py import MPI
r = MPI.COMM_WORLD.Get_rank()
d = os.environ["DATA_DIR"]
print(f"rank {r}: data from {d}", flush=True)
