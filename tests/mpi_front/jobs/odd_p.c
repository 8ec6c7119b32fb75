/* A sum that is right at even p only (the bug: the last rank of an odd p leaves its value
 * out), checked against the allreduce's: rank 0 returns 1 where they differ. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = 0, size = 0, mine = 0, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mine = size % 2 == 1 && rank == size - 1 ? 0 : rank + 1;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0) {
    printf("p = %d: sum %d, expected %d\n", size, sum, size * (size + 1) / 2);
    return sum == size * (size + 1) / 2 ? 0 : 1;
  }
  return 0;
}
