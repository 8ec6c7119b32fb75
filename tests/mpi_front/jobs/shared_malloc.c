/* vmc mpirun --shared-malloc: rank 0 writes into its large block; after a barrier every rank
 * says whether its own large block holds what rank 0 wrote (shared) or not (private). Two
 * large blocks of one rank have addresses of their own (but, shared, the same memory: nothing
 * else is written into them here); calloc, realloc and free of shared blocks and of small ones
 * work. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int* a = malloc(1 << 20);
  int* b = malloc(1 << 20);
  char* small = malloc(16);
  if (a == NULL || b == NULL || small == NULL || a == b) return 2;
  if (rank == 0) a[0] = 12345;
  small[0] = (char)rank;
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %s\n", rank, a[0] == 12345 ? "shared" : "private");
  if (small[0] != (char)rank) return 3; /* a small block stays the rank's own */
  free(a);
  free(b);
  free(small);
  int* c = calloc(1 << 16, sizeof(int));
  int* d = realloc(c, 1 << 21);
  int* e = realloc(NULL, 1 << 20);
  if (d == NULL || e == NULL) return 4;
  d[(1 << 19) - 1] = rank; /* the whole of the longer block can be written */
  free(d);
  free(e);
  MPI_Finalize();
  return 0;
}
