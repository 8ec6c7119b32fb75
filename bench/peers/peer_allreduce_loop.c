/* MPI_Allreduce (sum of floats) in a loop: peer_allreduce_loop BYTES CALLS (peer_loop.h). */
#include "peer_loop.h"

static void allreduce(float* in, float* out, int n, MPI_Comm comm) {
  MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, comm);
}

/* Every item is 0 + 1 + ... + (size - 1), exact in a float for size <= 4,096. */
static int summed(const float* out, int n, int rank, int size) {
  (void)rank;
  const float want = (float)size * (float)(size - 1) / 2;
  return out[0] == want && out[n - 1] == want;
}

int main(int argc, char** argv) {
  return peer_loop_main(argc, argv, "peer_allreduce_loop", 0, allreduce, summed);
}
