/* MPI_Gather and MPI_Gatherv: every root at counts 0, 1, p - 1, p + 1 and 1000, with and
 * without MPI_IN_PLACE at the root (its block then already sits in the receive buffer);
 * Gatherv with irregular counts (zeros among them) placed in reverse rank order with gaps
 * that must stay untouched; every predefined type; the same on the world reversed and on
 * half of the world. Non-roots pass no receive buffer (significant only at the root). */
#include "conformance.h"

static long seed_of(int rank, int salt) { return rank * 7919L + salt; }

/* Gatherv of counts[j] elements from rank j to displs[j] at the root (Gather when counts is
 * NULL: count each, at j * count). */
static void gather(int t, int count, const int* counts, const int* displs, int root,
                   int in_place, MPI_Comm comm, const char* comm_name) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t extent = conf_types[t].size;
  const int mine = counts ? counts[rank] : count;
  size_t elements = 0; /* of the root's buffer */
  for (int j = 0; j < size; ++j) {
    const size_t end = counts ? (size_t)displs[j] + (size_t)counts[j] : (size_t)(j + 1) * (size_t)count;
    if (end > elements) elements = end;
  }
  elements += 1;
  const int salt = count * 31 + root;
  void* send = conf_alloc((size_t)mine * extent);
  conf_fill(t, send, (size_t)mine, seed_of(rank, salt));
  unsigned char* recv = NULL;
  if (rank == root) {
    recv = conf_alloc(elements * extent);
    memset(recv, CONF_FILLER, elements * extent);
    if (in_place) {
      const size_t at = counts ? (size_t)displs[rank] : (size_t)rank * (size_t)count;
      memcpy(recv + at * extent, send, (size_t)mine * extent);
    }
  }
  char what[200];
  snprintf(what, sizeof what, "MPI_Gather%s(%s, root %d%s) on %s", counts ? "v" : "",
           conf_types[t].name, root, in_place ? ", MPI_IN_PLACE" : "", comm_name);
  const MPI_Datatype dt = conf_datatype(t);
  const void* sendbuf = in_place && rank == root ? MPI_IN_PLACE : send;
  const int rc = counts ? MPI_Gatherv(sendbuf, mine, dt, recv, counts, displs, dt, root, comm)
                        : MPI_Gather(sendbuf, count, dt, recv, count, dt, root, comm);
  CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
  if (rank == root) {
    unsigned char* written = calloc(elements, 1);
    for (int j = 0; j < size; ++j) {
      const size_t at = counts ? (size_t)displs[j] : (size_t)j * (size_t)count;
      const size_t n = counts ? (size_t)counts[j] : (size_t)count;
      char block[260];
      snprintf(block, sizeof block, "%s: the block of rank %d", what, j);
      CHECK_FILLED(t, recv + at * extent, n, seed_of(j, salt), block);
      memset(written + at, 1, n);
    }
    size_t first = 0;
    const size_t bad = conf_overwritten(recv, elements, extent, written, &first);
    CHECK(bad == 0, "%s: %zu elements outside the blocks written, first [%zu]", what, bad, first);
    free(written);
  }
  free(send);
  free(recv);
}

/* Gatherv's counts in one of several shapes, placed last rank first with 2 elements of gap. */
static void gatherv_shapes(int t, int root, int in_place, MPI_Comm comm, const char* comm_name) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  int* counts = conf_alloc(sizeof(int) * (size_t)n);
  int* displs = conf_alloc(sizeof(int) * (size_t)n);
  for (int shape = 0; shape < 4; ++shape) {
    for (int j = 0; j < n; ++j) {
      counts[j] = shape == 0 ? (j * 3 + 1) % 4           /* irregular with zeros */
                  : shape == 1 ? 0                         /* nothing at all */
                  : shape == 2 ? (j == n - 1 ? n + 1 : 0)  /* one rank only */
                               : 1000 + j;                 /* large */
    }
    int at = 0;
    for (int j = n - 1; j >= 0; --j) {
      displs[j] = at;
      at += counts[j] + 2;
    }
    gather(t, shape, counts, displs, root, in_place, comm, comm_name);
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
        gather(CONF_T_INT, counts[i], NULL, NULL, root, 0, comms[k].comm, comms[k].name);
        gather(CONF_T_INT, counts[i], NULL, NULL, root, 1, comms[k].comm, comms[k].name);
      }
      gatherv_shapes(CONF_T_INT, root, 0, comms[k].comm, comms[k].name);
      gatherv_shapes(CONF_T_DOUBLE, root, 1, comms[k].comm, comms[k].name);
    }
  }
  for (int t = 0; t < CONF_NTYPES; ++t) {
    gather(t, size + 1, NULL, NULL, t % size, t % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    gatherv_shapes(t, (t + 1) % size, (t + 1) % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
  }
  conf_free_comms(comms);
  return conf_finish();
}
