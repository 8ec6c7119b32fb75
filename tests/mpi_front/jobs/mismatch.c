/* Ranks whose calls of one collective differ, coming to it in an order of the host's that
 * argv[2] (a number k) changes: rank r sleeps ((r + k) % p) ms first, so that another rank comes
 * first on each k. argv[1]:
 *   two    ranks 3 and 6 call MPI_Bcast, the others MPI_Allreduce
 *   zero   rank 0 calls MPI_Bcast, the others MPI_Allreduce
 *   never  as "two", but rank 5 first waits for a message that rank 3 sends only after its
 *          call: it never comes to the call (a deadlock)
 * vmc mpirun's report must be the same whatever k and the engine (mpirun_test.cpp). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int r, p, x = 1, y = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const char* what = argc > 1 ? argv[1] : "two";
  const int k = argc > 2 ? atoi(argv[2]) : 0;
  usleep(1000 * (unsigned)((r + k) % p));
  const int bcast = strcmp(what, "zero") == 0 ? r == 0 : r == 3 || r == 6;
  if (strcmp(what, "never") == 0 && r == 5) {
    MPI_Recv(&y, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (bcast) {
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
  } else {
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  if (strcmp(what, "never") == 0 && r == 3) MPI_Send(&x, 1, MPI_INT, 5, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
