/* A global every rank adds itself to: with a private copy per rank (vmc mpirun's default)
 * each rank sees only its own addition; with one copy for all (--privatize none) the sum of
 * every rank's, once all have added (the addition is atomic: this program is thread-safe).
 * Rank 0 prints what it sees after a barrier. */
#include <mpi.h>
#include <stdio.h>

static int g_sum = 0;

int main(int argc, char** argv) {
  int rank = 0, size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  __atomic_fetch_add(&g_sum, rank + 1, __ATOMIC_SEQ_CST);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d sees %d\n", rank, __atomic_load_n(&g_sum, __ATOMIC_SEQ_CST));
  MPI_Finalize();
  return 0;
}
