from mpi4py import MPI
import numpy as np, socket, time
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
print(f"rank {rank}/{size} on {socket.gethostname()} (MPI {MPI.Get_version()}, {MPI.Get_library_version().splitlines()[0]})", flush=True)
rng = np.random.default_rng(rank)
w = np.zeros(1000)
t0 = time.time()
for step in range(1, 301):
    g = rng.normal(size=1000) + w
    avg = np.empty_like(g)
    comm.Allreduce(g, avg, op=MPI.SUM)
    w -= 0.1 * avg / size
    if rank == 0 and step % 100 == 0:
        print(f"step {step} |w|={np.linalg.norm(w):.4f} ({time.time() - t0:.2f}s)", flush=True)
chk = comm.gather(float(w.sum()), root=0)
if rank == 0:
    print("weights agree on all ranks:", np.allclose(chk, chk[0]), flush=True)
