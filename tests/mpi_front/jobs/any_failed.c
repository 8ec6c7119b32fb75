/* The calls that wait on a failed rank without naming it, under vmc mpirun --fail node:1@0
 * and MPI_ERRORS_RETURN (docs/model.md, "Failed nodes"): each gets MPI_ERR_PROC_FAILED, says
 * so and goes on. Rank 0 sends to rank 3, then receives from any source twice: the first takes
 * rank 2's message (sent at 0, there before the receive), the second fails (rank 1 has stopped
 * and no message matched it). Rank 2 sends to 0, then synchronously to the stopped rank 1.
 * Rank 3 takes rank 0's message, then probes for a message from any source that never comes.
 * Every live rank then duplicates MPI_COMM_WORLD, which rank 1 never reaches. With argv[1]
 * "named", MPI_COMM_WORLD is given a long name first and rank 0 prints MPI_Error_string of its
 * failed receive, whose text names the call with that name and ends with the cause. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void say(int rank, const char* call, int err) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(err, &cls);
  printf("rank %d: %s: %s\n", rank, call,
         cls == MPI_ERR_PROC_FAILED ? "MPI_ERR_PROC_FAILED" : cls == MPI_SUCCESS ? "ok" : "other");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int named = argc > 1 && strcmp(argv[1], "named") == 0;
  if (named) {
    MPI_Comm_set_name(MPI_COMM_WORLD, "the world of a job whose communicator is named at length");
  }
  int mine = rank, got = -1;
  MPI_Status status;
  if (rank == 0) {
    MPI_Send(&mine, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
    int err = MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &status);
    if (err == MPI_SUCCESS) printf("rank 0: got %d from rank %d\n", got, status.MPI_SOURCE);
    err = MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &status);
    say(rank, "MPI_Recv from any source", err);
    if (named) {
      char text[MPI_MAX_ERROR_STRING];
      int length = 0;
      MPI_Error_string(err, text, &length);
      printf("rank 0: %s (%d characters)\n", text, length);
    }
  } else if (rank == 2) {
    MPI_Send(&mine, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    say(rank, "MPI_Ssend to rank 1", MPI_Ssend(&mine, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
  } else if (rank == 3) {
    MPI_Recv(&got, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    say(rank, "MPI_Probe from any source", MPI_Probe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &status));
  }
  MPI_Comm dup = MPI_COMM_NULL;
  say(rank, "MPI_Comm_dup", MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Finalize();
  return 0;
}
