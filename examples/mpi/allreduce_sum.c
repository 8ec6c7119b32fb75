/* Every rank contributes rank + 1 (and a vector of it); MPI_Allreduce sums them, in place for
 * the vector; rank 0 gets the maximum by MPI_Reduce and a value broadcast by MPI_Bcast. Every
 * rank checks what it got; rank 0 prints the sum, P (P + 1) / 2. Exit status 1 on a wrong
 * result.
 *
 *   vmcc allreduce_sum.c -o allreduce_sum && vmc mpirun -np 8 ./allreduce_sum */
#include <mpi.h>
#include <stdio.h>

#define N 100

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int expected = size * (size + 1) / 2;
  int bad = 0;

  int mine = rank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  bad |= sum != expected;

  double v[N];
  for (int i = 0; i < N; ++i) v[i] = (rank + 1) * (double)i;
  MPI_Allreduce(MPI_IN_PLACE, v, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < N; ++i) bad |= v[i] != expected * (double)i;

  int max = -1;
  MPI_Reduce(&mine, &max, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) bad |= max != size;

  long word = rank == size - 1 ? 4242 : 0;
  MPI_Bcast(&word, 1, MPI_LONG, size - 1, MPI_COMM_WORLD);
  bad |= word != 4242;

  MPI_Barrier(MPI_COMM_WORLD);
  if (bad) fprintf(stderr, "allreduce_sum: rank %d got a wrong result\n", rank);
  if (rank == 0) printf("allreduce_sum: %d ranks, sum %d (expected %d)\n", size, sum, expected);
  MPI_Finalize();
  return bad;
}
