/* The loop the peer_*_loop programs share: one collective called CALLS times on floats, the
 * same source built with SimGrid's smpicc (run by smpirun) and with vmc's vmcc (run by
 * vmc mpirun); tools/bench_smpi.sh times each whole process from outside.
 *
 *   PROGRAM BYTES CALLS [nocheck]
 *
 * BYTES is the length of one call's message in MPI's sense (the count times 4 bytes: a
 * rank's vector for allreduce and bcast, one block to each rank for alltoall). A warm-up
 * call comes first, then CALLS calls; rank 0 prints "virtual_us_per_call X", its own
 * MPI_Wtime per call (simulated time under both tools), and every rank checks its result
 * after the loop: a wrong one ends the run with MPI_Abort. With a third argument, nocheck, no
 * rank checks: a timing-only run (`vmc mpirun --data none`) moves no data, so the results are
 * not there. No other MPI call is made (no barrier, no reduction of the times), so that a run
 * costs the collective under test and the start and end of the ranks only. Only the standard
 * MPI API. */
#ifndef VMC_BENCH_PEER_LOOP_H
#define VMC_BENCH_PEER_LOOP_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One call of the collective on n items per message; in and out hold n * blocks items. */
typedef void (*peer_call)(float* in, float* out, int n, MPI_Comm comm);
/* Whether out is right after the calls, on rank `rank` of `size`. */
typedef int (*peer_check)(const float* out, int n, int rank, int size);

static int peer_loop_main(int argc, char** argv, const char* name, int blocks_are_ranks,
                          peer_call call, peer_check check) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long bytes = argc > 1 ? atol(argv[1]) : 8;
  const int calls = argc > 2 ? atoi(argv[2]) : 10;
  const int checked = !(argc > 3 && strcmp(argv[3], "nocheck") == 0);
  const int n = bytes / (long)sizeof(float) > 0 ? (int)(bytes / (long)sizeof(float)) : 1;
  const size_t items = (size_t)n * (size_t)(blocks_are_ranks ? size : 1);
  float* in = malloc(items * sizeof(float));
  float* out = malloc(items * sizeof(float));
  if (in == NULL || out == NULL) {
    fprintf(stderr, "%s: rank %d: cannot allocate 2 x %zu floats\n", name, rank, items);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* in[i] is the rank that sends it: every result below is a sum or a copy of ranks. */
  for (size_t i = 0; i < items; ++i) in[i] = (float)rank;
  call(in, out, n, MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int k = 0; k < calls; ++k) call(in, out, n, MPI_COMM_WORLD);
  const double per_call = calls > 0 ? (MPI_Wtime() - start) / calls : 0;
  if (checked && !check(out, n, rank, size)) {
    fprintf(stderr, "%s: rank %d of %d: wrong result after %d calls of %ld bytes\n", name,
            rank, size, calls + 1, bytes);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (rank == 0) printf("virtual_us_per_call %.3f\n", per_call * 1e6);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}

#endif
