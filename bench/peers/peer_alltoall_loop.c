/* MPI_Alltoall of floats in a loop: peer_alltoall_loop BYTES CALLS (peer_loop.h), BYTES
 * the block each rank sends to each rank, so a rank holds 2 x size x BYTES. */
#include "peer_loop.h"

static void alltoall(float* in, float* out, int n, MPI_Comm comm) {
  MPI_Alltoall(in, n, MPI_FLOAT, out, n, MPI_FLOAT, comm);
}

/* Block j came from rank j. */
static int from_each(const float* out, int n, int rank, int size) {
  (void)rank;
  for (int j = 0; j < size; ++j) {
    if (out[(size_t)j * n] != (float)j || out[(size_t)j * n + n - 1] != (float)j) return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  return peer_loop_main(argc, argv, "peer_alltoall_loop", 1, alltoall, from_each);
}
