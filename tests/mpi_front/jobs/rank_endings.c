/* How a rank can end, chosen by argv[1], for vmc mpirun's exit statuses and reports
 * (tests/mpi_front/mpirun_test.cpp). Every other rank ends well unless the mode stops it. */
#undef NDEBUG /* the assert below must be compiled in whatever the build type */
#include <assert.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A frame of 2 MiB, as a process's 8 MiB stack holds (MPICH's tests keep arrays this size
 * on the stack). */
static int big_frame(int rank) {
  volatile char big[2 << 20];
  for (size_t i = 0; i < sizeof big; i += 4096) big[i] = (char)rank;
  return big[sizeof big - 4096] == (char)rank ? 0 : 1;
}

/* Recursion without a base: every call a frame of its own (the array keeps it one, not a
 * loop), until the stack runs out. */
static volatile int without_end = 1;
static int down(int depth) {
  volatile char pad[256];
  pad[0] = (char)depth;
  return without_end ? down(depth + 1) + pad[0] : 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int rank = 0, size = 0, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(mode, "return3") == 0) {
    MPI_Finalize();
    return rank == 2 ? 3 : 0;
  }
  if (strcmp(mode, "abort7") == 0) {
    if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Barrier(MPI_COMM_WORLD); /* the others wait for rank 1, which never comes */
  } else if (strcmp(mode, "exit5") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    if (rank == 1) exit(5);
    printf("rank %d returns\n", rank);
    return 0;
  } else if (strcmp(mode, "assert") == 0) {
    assert(rank != 2);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "abort") == 0) {
    if (rank == 0) abort();
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "deadlock") == 0) {
    /* Ranks 0 and 1 each wait for the other first; the rest finish. */
    if (rank < 2) {
      MPI_Recv(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&x, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD);
    }
  } else if (strcmp(mode, "forever") == 0) {
    /* A job that never ends but always moves: only a signal (or the user) ends it. */
    for (;;) MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(mode, "skip_barrier") == 0) {
    /* Rank 2 skips a barrier and waits for a message nobody sends; the others wait in the
     * barrier, each for its algorithm's partner. */
    if (rank == 2) {
      MPI_Recv(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  } else if (strcmp(mode, "skip_sub_allreduce") == 0) {
    /* On the odd ranks' communicator, rank 3 skips an allreduce and returns. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    if (rank % 2 == 1 && rank != 3) MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, half);
    MPI_Comm_free(&half);
  } else if (strcmp(mode, "poll") == 0) {
    /* Ranks 0 and 1 poll for what never comes (a probe, a test of a receive nobody sends to);
     * the rest finish. On the virtual clock a deadlock, after --poll-limit rounds. */
    int flag = 0;
    if (rank == 0) {
      while (!flag) MPI_Iprobe(1, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Request request;
      MPI_Irecv(&x, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &request);
      while (!flag) MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    }
  } else if (strcmp(mode, "wildcard_deadlock") == 0) {
    /* Rank 0 receives from any rank a message nobody sends: the pass finds the deadlock. */
    if (rank == 0) MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (strcmp(mode, "mpierror") == 0) {
    if (rank == 1) MPI_Send(&x, 1, MPI_INT, size + 98, 0, MPI_COMM_WORLD);
  } else if (strcmp(mode, "nofinalize") == 0) {
    if (rank == 1) return 0;
  } else if (strcmp(mode, "afterfinalize") == 0) {
    MPI_Finalize();
    if (rank == 1) MPI_Barrier(MPI_COMM_WORLD);
    return 0;
  } else if (strcmp(mode, "bigstack") == 0) {
    if (big_frame(rank) != 0) return 1;
    printf("rank %d used 2 MiB of stack\n", rank);
  } else if (strcmp(mode, "spin") == 0 || strcmp(mode, "spin_after_error") == 0) {
    /* Rank 2 loops in its own code and never calls MPI again; the others wait in a barrier,
     * or (spin_after_error) rank 1 makes an MPI error once rank 2 has told it it loops. */
    const int after_error = strcmp(mode, "spin_after_error") == 0;
    if (rank == 2) {
      volatile unsigned long turns = 0;
      if (after_error) MPI_Send(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
      for (;;) ++turns;
    }
    if (rank == 1 && after_error) {
      MPI_Recv(&x, 1, MPI_INT, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&x, 1, MPI_INT, size + 98, 0, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "stack_overflow") == 0) {
    /* Rank 1 overflows its stack: the crash report must still be written (on the signal
     * stack) and name it. */
    if (rank == 1) x = down(0);
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "segv") == 0) {
    /* Rank 1 writes through a null pointer: the whole process dies of SIGSEGV, as it would
     * under mpirun the rank's own process. */
    volatile int* volatile nowhere = NULL;
    if (rank == 1) *nowhere = 1;
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "self") == 0) {
    /* A message to itself (the machine allows it): sent, then received. */
    int y = -1;
    x = 100 + rank;
    MPI_Send(&x, 1, MPI_INT, rank, 9, MPI_COMM_WORLD);
    MPI_Recv(&y, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (y != x) return 1;
    printf("rank %d got %d from itself\n", rank, y);
  }
  MPI_Finalize();
  return 0;
}
