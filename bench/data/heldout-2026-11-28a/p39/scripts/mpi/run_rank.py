#!/usr/bin/env python3
from mpi4py import MPI
print("rank", MPI.COMM_WORLD.Get_rank(), "of", MPI.COMM_WORLD.Get_size(), flush=True)
