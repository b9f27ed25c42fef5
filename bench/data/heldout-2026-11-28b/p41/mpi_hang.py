from mpi4py import MPI
import numpy as np, json, sys
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
cfg = {"lr": 0.1, "steps": 5}
if rank == 1:
    cfg = json.load(open("configs/rank1_overrides.json"))   # missing on this node
w = np.zeros(4)
for step in range(cfg["steps"]):
    g = np.full(4, rank + 1.0)
    tot = np.empty(4)
    comm.Allreduce(g, tot, op=MPI.SUM)
    w -= cfg["lr"] * tot / comm.Get_size()
    if rank == 0:
        print(f"step {step} w[0]={w[0]:.3f}", flush=True)
