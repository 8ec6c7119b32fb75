/* A token goes once around the ring of ranks: rank 0 starts it at 0, every rank adds its own
 * rank + 1 and passes it on, and rank 0 prints the total it gets back, P (P + 1) / 2.
 *
 *   vmcc ring.c -o ring && vmc mpirun -np 8 --topology ring:8 ./ring */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  long token = 0;
  if (size == 1) {
    token = 1;
  } else if (rank == 0) {
    token = 1;
    MPI_Send(&token, 1, MPI_LONG, next, 7, MPI_COMM_WORLD);
    MPI_Status status;
    MPI_Recv(&token, 1, MPI_LONG, prev, 7, MPI_COMM_WORLD, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_LONG, &count);
    if (count != 1 || status.MPI_SOURCE != prev || status.MPI_TAG != 7) {
      fprintf(stderr, "ring: bad status\n");
      return 1;
    }
  } else {
    MPI_Recv(&token, 1, MPI_LONG, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    token += rank + 1;
    MPI_Send(&token, 1, MPI_LONG, next, 7, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    printf("ring: %d ranks, token %ld (expected %ld), %g s\n", size, token,
           (long)size * (size + 1) / 2, MPI_Wtime());
  }
  MPI_Finalize();
  return 0;
}
