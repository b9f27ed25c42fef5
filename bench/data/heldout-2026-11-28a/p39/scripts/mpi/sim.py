from mpi4py import MPI
import numpy as np, time
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
state = np.zeros(256)
for it in range(1, 31):
    time.sleep(0.5)                       # local update
    state += rank + 1
    comm.Allreduce(MPI.IN_PLACE, state, op=MPI.SUM)
    if rank == 0 and it % 5 == 0:
        print(f"iteration {it}/30 checksum {state.sum():.3e}", flush=True)
if rank == 0:
    print("simulation finished", flush=True)
