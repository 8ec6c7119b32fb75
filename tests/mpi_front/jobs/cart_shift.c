/* Messages along a Cartesian grid's shifts, for the placement MPI_Cart_create's reorder
 * makes (mpirun_test.cpp, MpirunTopology): every rank sends 1000 ints to the rank after it
 * along each dimension in turn and receives from the one before (MPI_Cart_shift by 1).
 *
 *   cart_shift DIMS PERIODIC REORDER [scrambled]   DIMS as 4x4; PERIODIC, REORDER 0 or 1
 *   cart_shift pairs N                             N exchanges between world ranks 2k, 2k+1
 *
 * `scrambled`: the grid is made from the world with its ranks shuffled (MPI_Comm_split with
 * key 5r mod p), so that without reorder grid neighbours are rarely machine neighbours.
 * `pairs` is the reference: one hop each on a mesh whose first dimension is even. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static int out[N], in[N];
  if (argc >= 3 && strcmp(argv[1], "pairs") == 0) {
    const int rounds = atoi(argv[2]), peer = rank ^ 1;
    for (int k = 0; k < rounds && peer < size; ++k) {
      MPI_Sendrecv(out, N, MPI_INT, peer, 0, in, N, MPI_INT, peer, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
  }
  if (argc < 4) {
    fprintf(stderr, "usage: cart_shift DIMS PERIODIC REORDER [scrambled]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int dims[8], periods[8], ndims = 0;
  for (char* d = strtok(argv[1], "x"); d != NULL && ndims < 8; d = strtok(NULL, "x")) {
    dims[ndims] = atoi(d);
    periods[ndims++] = atoi(argv[2]);
  }
  MPI_Comm parent = MPI_COMM_WORLD, cart = MPI_COMM_NULL;
  if (argc > 4 && strcmp(argv[4], "scrambled") == 0) {
    MPI_Comm_split(MPI_COMM_WORLD, 0, (5 * rank) % size, &parent);
  }
  MPI_Cart_create(parent, ndims, dims, periods, atoi(argv[3]), &cart);
  for (int d = 0; d < ndims; ++d) {
    int source = 0, dest = 0;
    MPI_Cart_shift(cart, d, 1, &source, &dest);
    MPI_Sendrecv(out, N, MPI_INT, dest, 0, in, N, MPI_INT, source, 0, cart, MPI_STATUS_IGNORE);
  }
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
