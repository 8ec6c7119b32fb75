/* MPI_Iallreduce completed by MPI_Wait or by a loop of MPI_Test, and how many tests the loop
 * makes: what polling a nonblocking collective costs the host against waiting for it, in the
 * same virtual time.
 *
 *   peer_testloop wait|test CALLS [BYTES]
 *
 * A warm-up call, then CALLS calls of MPI_Iallreduce (sum of floats, BYTES bytes a rank,
 * 8 by default), each completed by MPI_Wait (`wait`) or by calling MPI_Test until it says
 * done (`test`). Rank 0 prints its MPI_Wtime per call ("virtual_us_per_call", simulated
 * time under vmc mpirun) and, after the timed loop, the tests the loops made over all ranks
 * ("tests" and "tests_per_call_per_rank", 1 for `wait`: its one MPI_Wait) and the most one
 * rank made in one call ("tests_max_per_call"). Every rank checks its result: a wrong one
 * ends the run with MPI_Abort. Only the standard MPI API. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || (strcmp(argv[1], "wait") != 0 && strcmp(argv[1], "test") != 0)) {
    if (rank == 0) fprintf(stderr, "usage: peer_testloop wait|test CALLS [BYTES]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int test = strcmp(argv[1], "test") == 0;
  const int calls = atoi(argv[2]);
  const long bytes = argc > 3 ? atol(argv[3]) : 8;
  const int n = bytes / (long)sizeof(float) > 0 ? (int)(bytes / (long)sizeof(float)) : 1;
  float* in = malloc((size_t)n * sizeof(float));
  float* out = malloc((size_t)n * sizeof(float));
  if (in == NULL || out == NULL) {
    fprintf(stderr, "peer_testloop: rank %d: cannot allocate 2 x %d floats\n", rank, n);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int i = 0; i < n; ++i) in[i] = (float)rank;
  long tests = 0, most = 0;
  double start = 0;
  for (int k = -1; k < calls; ++k) {  /* k = -1: the warm-up call, not timed or counted */
    if (k == 0) start = MPI_Wtime();
    MPI_Request r;
    MPI_Iallreduce(in, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
    long made = 1;
    if (test) {
      int flag = 0;
      made = 0;
      while (!flag) {
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        ++made;
      }
    } else {
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    if (k >= 0) {
      tests += made;
      if (made > most) most = made;
    }
    const float want = (float)size * (float)(size - 1) / 2;
    if (out[0] != want || out[n - 1] != want) {
      fprintf(stderr, "peer_testloop: rank %d of %d: sum %g, not %g\n", rank, size,
              (double)out[0], (double)want);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  const double per_call = calls > 0 ? (MPI_Wtime() - start) / calls : 0;
  long all = 0, max = 0;
  MPI_Reduce(&tests, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&most, &max, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("virtual_us_per_call %.3f\n", per_call * 1e6);
    printf("tests %ld\n", all);
    printf("tests_per_call_per_rank %.2f\n", calls > 0 ? (double)all / calls / size : 0.0);
    printf("tests_max_per_call %ld\n", max);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
