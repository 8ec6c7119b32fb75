/* libc's hidden state per rank (mpi/per_rank_libc.c): every rank draws from rand (even ranks
 * seeded with rank + 1, odd ones unseeded), from drand48 (seeded with 7 rank + 3) and
 * tokenizes a string of its own with strtok, with barriers between the calls so that the
 * ranks' calls interleave, and prints what it got. Each line must be what one process alone
 * gets from the same calls (mpirun_test.cpp, MpirunLibcState, computes it). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank % 2 == 0) srand((unsigned)rank + 1);
  unsigned long h = 0;
  for (int i = 0; i < 300; ++i) {
    h = h * 31 + (unsigned long)rand();
    if (i % 50 == 0) MPI_Barrier(MPI_COMM_WORLD);
  }
  srand48(7L * rank + 3);
  double d = 0;
  for (int i = 0; i < 100; ++i) {
    d += drand48();
    if (i % 25 == 0) MPI_Barrier(MPI_COMM_WORLD);
  }
  char text[64], tokens[64] = "";
  snprintf(text, sizeof text, "r%d,a,,b;c%d;;d", rank, rank);
  for (char* t = strtok(text, ",;"); t != NULL; t = strtok(NULL, ",;")) {
    strcat(tokens, t);
    strcat(tokens, "|");
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("rank %d: rand %lu drand48 %.12f strtok %s\n", rank, h, d, tokens);
  MPI_Finalize();
  return 0;
}
