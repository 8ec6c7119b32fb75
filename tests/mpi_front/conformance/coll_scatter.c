/* MPI_Scatter and MPI_Scatterv: every root at counts 0, 1, p - 1, p + 1 and 1000, with and
 * without MPI_IN_PLACE at the root (the root then receives nothing and its block stays in
 * the send buffer); Scatterv with irregular counts (zeros among them) taken from reverse
 * rank order with gaps; every predefined type; the same on the world reversed and on half of
 * the world. Non-roots pass no send buffer (significant only at the root); the root's send
 * buffer must be unchanged, and nothing after a rank's block written. */
#include "conformance.h"

static long seed_of(int rank, int salt) { return rank * 7919L + salt + 3; }

static void scatter(int t, int count, const int* counts, const int* displs, int root,
                    int in_place, MPI_Comm comm, const char* comm_name) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t extent = conf_types[t].size;
  const int mine = counts ? counts[rank] : count;
  const int salt = count * 31 + root;
  unsigned char* send = NULL;
  size_t elements = 0; /* of the root's send buffer */
  for (int j = 0; j < size; ++j) {
    const size_t end = counts ? (size_t)displs[j] + (size_t)counts[j] : (size_t)(j + 1) * (size_t)count;
    if (end > elements) elements = end;
  }
  if (rank == root) {
    send = conf_alloc(elements * extent);
    memset(send, CONF_FILLER, elements * extent);
    for (int j = 0; j < size; ++j) {
      const size_t at = counts ? (size_t)displs[j] : (size_t)j * (size_t)count;
      conf_fill(t, send + at * extent, counts ? (size_t)counts[j] : (size_t)count, seed_of(j, salt));
    }
  }
  unsigned char* recv = conf_alloc((size_t)(mine + 1) * extent);
  memset(recv, CONF_FILLER, (size_t)(mine + 1) * extent);
  char what[200];
  snprintf(what, sizeof what, "MPI_Scatter%s(%s, root %d%s) on %s", counts ? "v" : "",
           conf_types[t].name, root, in_place ? ", MPI_IN_PLACE" : "", comm_name);
  const MPI_Datatype dt = conf_datatype(t);
  void* recvbuf = in_place && rank == root ? MPI_IN_PLACE : recv;
  const int rc = counts ? MPI_Scatterv(send, counts, displs, dt, recvbuf, mine, dt, root, comm)
                        : MPI_Scatter(send, count, dt, recvbuf, count, dt, root, comm);
  CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
  if (recvbuf == MPI_IN_PLACE) {
    size_t first = 0;
    const size_t bad = conf_overwritten(recv, (size_t)mine + 1, extent, NULL, &first);
    CHECK(bad == 0, "%s: the root's unused receive buffer was written", what);
  } else {
    CHECK_FILLED(t, recv, (size_t)mine, seed_of(rank, salt), what);
    size_t first = 0;
    const size_t bad = conf_overwritten(recv + (size_t)mine * extent, 1, extent, NULL, &first);
    CHECK(bad == 0, "%s: the element after the block was written", what);
  }
  if (rank == root) {
    for (int j = 0; j < size; ++j) {
      const size_t at = counts ? (size_t)displs[j] : (size_t)j * (size_t)count;
      char block[260];
      snprintf(block, sizeof block, "%s: the root's send buffer afterwards, block %d", what, j);
      CHECK_FILLED(t, send + at * extent, counts ? (size_t)counts[j] : (size_t)count,
                   seed_of(j, salt), block);
    }
  }
  free(send);
  free(recv);
}

static void scatterv_shapes(int t, int root, int in_place, MPI_Comm comm, const char* comm_name) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  int* counts = conf_alloc(sizeof(int) * (size_t)n);
  int* displs = conf_alloc(sizeof(int) * (size_t)n);
  for (int shape = 0; shape < 4; ++shape) {
    for (int j = 0; j < n; ++j) {
      counts[j] = shape == 0 ? (j * 3 + 2) % 4
                  : shape == 1 ? 0
                  : shape == 2 ? (j == 0 ? n + 1 : 0)
                               : 1000 - j;
    }
    int at = 0;
    for (int j = n - 1; j >= 0; --j) {
      displs[j] = at;
      at += counts[j] + 2;
    }
    scatter(t, shape, counts, displs, root, in_place, comm, comm_name);
  }
  free(counts);
  free(displs);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  conf_comm comms[CONF_NCOMMS];
  conf_make_comms(comms);
  for (int k = 0; k < CONF_NCOMMS; ++k) {
    int n = 1;
    MPI_Comm_size(comms[k].comm, &n);
    const int counts[] = {0, 1, n - 1, n + 1, 1000};
    for (int root = 0; root < n; ++root) {
      for (int i = 0; i < 5; ++i) {
        scatter(CONF_T_INT, counts[i], NULL, NULL, root, 0, comms[k].comm, comms[k].name);
        scatter(CONF_T_INT, counts[i], NULL, NULL, root, 1, comms[k].comm, comms[k].name);
      }
      scatterv_shapes(CONF_T_INT, root, 0, comms[k].comm, comms[k].name);
      scatterv_shapes(CONF_T_DOUBLE, root, 1, comms[k].comm, comms[k].name);
    }
  }
  for (int t = 0; t < CONF_NTYPES; ++t) {
    scatter(t, size + 1, NULL, NULL, t % size, t % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    scatterv_shapes(t, (t + 1) % size, (t + 1) % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
  }
  conf_free_comms(comms);
  return conf_finish();
}
