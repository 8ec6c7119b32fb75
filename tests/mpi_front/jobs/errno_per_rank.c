/* errno is per rank: every rank sets its own value, lets the others run (a barrier, where
 * ranks that share a worker thread switch), and must find its value again. Returns 1 where it
 * does not. The first collective call is left out: vmc's one-time set-up in it (TBB loading
 * its optional libraries) may set errno, as a library call is allowed to. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = 0, round = 0, seen = 0, bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  for (round = 0; round < 3; ++round) {
    errno = 1000 + 10 * rank + round;
    MPI_Barrier(MPI_COMM_WORLD);
    seen = errno;
    if (seen != 1000 + 10 * rank + round) {
      fprintf(stderr, "rank %d: errno %d, set %d\n", rank, seen, 1000 + 10 * rank + round);
      bad = 1;
    }
  }
  MPI_Finalize();
  return bad;
}
