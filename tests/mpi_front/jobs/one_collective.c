/* One MPI collective and nothing else, for comparing its run with vmc's own of the same call:
 * argv[1] is "allreduce" (MPI_Allreduce, MPI_SUM of argv[2] doubles) or "bcast" (MPI_Bcast of
 * argv[2] doubles from root argv[3]). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 2 ? atoi(argv[2]) : 1;
  double* x = malloc(sizeof(double) * (n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) x[i] = i;
  if (strcmp(argv[1], "allreduce") == 0) {
    MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else {
    MPI_Bcast(x, n, MPI_DOUBLE, argc > 3 ? atoi(argv[3]) : 0, MPI_COMM_WORLD);
  }
  free(x);
  MPI_Finalize();
  return 0;
}
