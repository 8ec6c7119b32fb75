/* Lines whose order a real MPI leaves to the host's schedule, for vmc mpirun's output in
 * virtual time: every rank writes at time 0, the higher ranks first on the host (the lower
 * ones sleep longer before: the host's time is no virtual time); then a chain from the last rank down to rank 0
 * (each rank after the message of the rank above it) writes in the chain's order, on stdout
 * and on stderr; after a barrier every rank writes again, its last line without a newline.
 * With argv[1] "crash", rank 1 then writes through a null pointer (the lines before it must
 * not be lost with the process). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int rank = 0, size = 0, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  usleep(2000 * (unsigned)(size - rank));
  printf("start %d\n", rank);
  if (rank < size - 1) MPI_Recv(&x, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("chain %d\n", rank);
  fprintf(stderr, "chain %d\n", rank);
  if (rank > 0) MPI_Send(&x, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (argc > 1 && strcmp(argv[1], "crash") == 0 && rank == 1) {
    volatile int* volatile nowhere = NULL;
    *nowhere = 1;
  }
  printf("after %d\n", rank);
  printf("end %d", rank);
  MPI_Finalize();
  return 0;
}
