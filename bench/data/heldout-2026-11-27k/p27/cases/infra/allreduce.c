#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
  int r, w; double v, s; char h[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &w);
  gethostname(h, sizeof h); v = r + 1;
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  printf("%s rank %d of %d: sum=%g\n", h, r, w, s);
  MPI_Finalize(); return 0;
}
