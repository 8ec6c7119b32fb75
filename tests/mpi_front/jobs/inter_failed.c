/* Intercommunicator constructors under vmc mpirun --fail node:3@1ns and MPI_ERRORS_RETURN:
 * world ranks {0, 1} and {2, 3} split into two local groups at time 0; rank 3 then waits for
 * rank 2's message (posted before its failure's time, so it completes) and stops at its next
 * call, MPI_Intercomm_create. The other ranks' MPI_Intercomm_create needs rank 3 (rank 2's
 * local group, the new communicator of all four): each gets MPI_ERR_PROC_FAILED, says so and
 * goes on to MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &local);
  MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
  int token = 7;
  if (rank == 2) MPI_Send(&token, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
  if (rank == 3) MPI_Recv(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Comm inter = MPI_COMM_NULL;
  /* Local leader: local rank 0 (world 0 and 2); the remote leader by its world rank. */
  const int err = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank < 2 ? 2 : 0, 5, &inter);
  int cls = MPI_SUCCESS;
  MPI_Error_class(err, &cls);
  printf("rank %d: MPI_Intercomm_create: %s\n", rank,
         cls == MPI_ERR_PROC_FAILED ? "MPI_ERR_PROC_FAILED" : cls == MPI_SUCCESS ? "success" : "other");
  MPI_Finalize();
  return 0;
}
