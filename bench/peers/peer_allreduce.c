/* The peer of bench_collectives' allreduce rows: MPI_Allreduce (sum of floats) as Open MPI
 * runs it on this host (mpirun) or SimGrid's SMPI simulates it (smpirun).
 *
 *   peer_allreduce BYTES CALLS
 *
 * Rank 0 prints "per_call_us X": the median over five rounds of CALLS calls each, of the
 * slowest rank's time per call (MPI_Wtime: host time under mpirun, simulated time under
 * smpirun, where tools/bench.sh times the whole process from outside instead). A warm-up
 * call comes first; CALLS = 0 makes only that one call and prints nothing (a whole process
 * timed from outside). Built only when CMake finds MPI; never part of the tests. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long bytes = argc > 1 ? atol(argv[1]) : 8;
  const int calls = argc > 2 ? atoi(argv[2]) : 100;
  const long n = bytes / (long)sizeof(float) > 0 ? bytes / (long)sizeof(float) : 1;
  float* in = malloc((size_t)n * sizeof(float));
  float* out = malloc((size_t)n * sizeof(float));
  if (in == NULL || out == NULL) {
    fprintf(stderr, "peer_allreduce: rank %d: cannot allocate %ld bytes\n", rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (long i = 0; i < n; ++i) in[i] = 1.0f;
  MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  if (calls == 0) {
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
  }
  enum { kRounds = 5 };
  double per_call[kRounds];
  for (int round = 0; round < kRounds; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int k = 0; k < calls; ++k) {
      MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    double mine = (MPI_Wtime() - start) / calls, slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    per_call[round] = slowest;
  }
  if (rank == 0) {
    qsort(per_call, kRounds, sizeof per_call[0], by_value);
    printf("per_call_us %.3f\n", per_call[kRounds / 2] * 1e6);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
