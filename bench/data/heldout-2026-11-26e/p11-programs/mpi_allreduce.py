# minimal Open MPI program through ctypes (no mpi4py on this cluster image)
import ctypes, socket
mpi = ctypes.CDLL("libmpi.so.40", mode=ctypes.RTLD_GLOBAL)
mpi.MPI_Init(None, None)
world = ctypes.addressof(ctypes.c_int.in_dll(mpi, "ompi_mpi_comm_world"))
rank, size = ctypes.c_int(), ctypes.c_int()
mpi.MPI_Comm_rank(ctypes.c_void_p(world), ctypes.byref(rank))
mpi.MPI_Comm_size(ctypes.c_void_p(world), ctypes.byref(size))
x, s = ctypes.c_double(rank.value + 1.0), ctypes.c_double()
mpi.MPI_Allreduce(ctypes.byref(x), ctypes.byref(s), 1,
                  ctypes.c_void_p(ctypes.addressof(ctypes.c_int.in_dll(mpi, "ompi_mpi_double"))),
                  ctypes.c_void_p(ctypes.addressof(ctypes.c_int.in_dll(mpi, "ompi_mpi_op_sum"))), ctypes.c_void_p(world))
print(f"{socket.gethostname()}: rank {rank.value} of {size.value}: allreduce sum = {s.value}", flush=True)
mpi.MPI_Finalize()
