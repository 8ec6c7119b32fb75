/* A request the program never completes before MPI_Finalize, which is erroneous: a
 * nonblocking collective (argv[1] "collective": MPI_Ibcast) or a nonblocking send and receive
 * ("p2p"). vmc must fail the run naming the call (mpirun_test.cpp, MpirunUnwaited). */
#include <mpi.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Request r;
  if (argc > 1 && strcmp(argv[1], "p2p") == 0) {
    if (rank == 0) MPI_Isend(&rank, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
    if (rank == 1) MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
  } else {
    MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &r);
  }
  MPI_Finalize();
  return 0;
}
