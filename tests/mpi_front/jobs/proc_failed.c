/* A ring under vmc mpirun --fail: every rank sends its rank to the right and receives from the
 * left. With argv[1] "return", MPI_COMM_WORLD's handler is MPI_ERRORS_RETURN: a rank whose
 * left neighbour has failed gets MPI_ERR_PROC_FAILED, says so and goes on; then every rank
 * that can takes part in a barrier-free finish. Without it, the default handler
 * (MPI_ERRORS_ARE_FATAL) ends the job. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "return") == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  int mine = rank, left = -1;
  MPI_Send(&mine, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
  const int err = MPI_Recv(&left, 1, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE);
  int cls = MPI_SUCCESS;
  MPI_Error_class(err, &cls);
  if (cls == MPI_ERR_PROC_FAILED) {
    printf("rank %d: MPI_ERR_PROC_FAILED from rank %d\n", rank, (rank + size - 1) % size);
  } else {
    printf("rank %d: got %d\n", rank, left);
  }
  MPI_Finalize();
  return 0;
}
