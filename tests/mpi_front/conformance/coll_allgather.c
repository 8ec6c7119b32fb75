/* MPI_Allgather and MPI_Allgatherv: counts 0, 1, p - 1, p + 1 and 1000, with and without
 * MPI_IN_PLACE (every rank's own block then already sits in its receive buffer);
 * Allgatherv with irregular counts (zeros among them) placed in reverse rank order with gaps
 * that must stay untouched; every predefined type; the same on the world reversed and on
 * half of the world. */
#include "conformance.h"

static long seed_of(int rank, int salt) { return rank * 7919L + salt + 5; }

static void allgather(int t, int count, const int* counts, const int* displs, int in_place,
                      MPI_Comm comm, const char* comm_name) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t extent = conf_types[t].size;
  const int mine = counts ? counts[rank] : count;
  size_t elements = 0;
  for (int j = 0; j < size; ++j) {
    const size_t end = counts ? (size_t)displs[j] + (size_t)counts[j] : (size_t)(j + 1) * (size_t)count;
    if (end > elements) elements = end;
  }
  elements += 1;
  const int salt = count * 31 + in_place;
  void* send = conf_alloc((size_t)mine * extent);
  conf_fill(t, send, (size_t)mine, seed_of(rank, salt));
  unsigned char* recv = conf_alloc(elements * extent);
  memset(recv, CONF_FILLER, elements * extent);
  if (in_place) {
    const size_t at = counts ? (size_t)displs[rank] : (size_t)rank * (size_t)count;
    memcpy(recv + at * extent, send, (size_t)mine * extent);
  }
  char what[200];
  snprintf(what, sizeof what, "MPI_Allgather%s(%s%s) on %s", counts ? "v" : "",
           conf_types[t].name, in_place ? ", MPI_IN_PLACE" : "", comm_name);
  const MPI_Datatype dt = conf_datatype(t);
  const void* sendbuf = in_place ? MPI_IN_PLACE : send;
  const int rc = counts ? MPI_Allgatherv(sendbuf, mine, dt, recv, counts, displs, dt, comm)
                        : MPI_Allgather(sendbuf, count, dt, recv, count, dt, comm);
  CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
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
  if (!in_place) {
    char send_what[240];
    snprintf(send_what, sizeof send_what, "%s: the send buffer afterwards", what);
    CHECK_FILLED(t, send, (size_t)mine, seed_of(rank, salt), send_what);
  }
  free(written);
  free(send);
  free(recv);
}

static void allgatherv_shapes(int t, int in_place, MPI_Comm comm, const char* comm_name) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  int* counts = conf_alloc(sizeof(int) * (size_t)n);
  int* displs = conf_alloc(sizeof(int) * (size_t)n);
  for (int shape = 0; shape < 4; ++shape) {
    for (int j = 0; j < n; ++j) {
      counts[j] = shape == 0 ? (j * 3 + 1) % 4
                  : shape == 1 ? 0
                  : shape == 2 ? (j == n / 2 ? n + 1 : 0)
                               : 1000 + 3 * j;
    }
    int at = 0;
    for (int j = n - 1; j >= 0; --j) {
      displs[j] = at;
      at += counts[j] + 2;
    }
    allgather(t, shape, counts, displs, in_place, comm, comm_name);
  }
  free(counts);
  free(displs);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  conf_comm comms[CONF_NCOMMS];
  conf_make_comms(comms);
  for (int k = 0; k < CONF_NCOMMS; ++k) {
    int n = 1;
    MPI_Comm_size(comms[k].comm, &n);
    const int counts[] = {0, 1, n - 1, n + 1, 1000};
    for (int i = 0; i < 5; ++i) {
      allgather(CONF_T_INT, counts[i], NULL, NULL, 0, comms[k].comm, comms[k].name);
      allgather(CONF_T_INT, counts[i], NULL, NULL, 1, comms[k].comm, comms[k].name);
    }
    allgatherv_shapes(CONF_T_INT, 0, comms[k].comm, comms[k].name);
    allgatherv_shapes(CONF_T_DOUBLE, 1, comms[k].comm, comms[k].name);
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int t = 0; t < CONF_NTYPES; ++t) {
    allgather(t, size + 1, NULL, NULL, t % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    allgatherv_shapes(t, (t + 1) % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
  }
  conf_free_comms(comms);
  return conf_finish();
}
