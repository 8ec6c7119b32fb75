/* MPI_Bcast: every root at counts 0, 1, p - 1, p + 1 and 1000; every predefined type; 1 MiB;
 * fifty broadcasts in a row from changing roots with nothing between them (each must match
 * its own); the same on the world reversed and on half of the world. The element after the
 * buffer must stay untouched. */
#include "conformance.h"

static void bcast(int t, int count, int root, MPI_Comm comm, const char* comm_name) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t extent = conf_types[t].size;
  unsigned char* buf = conf_alloc((size_t)(count + 1) * extent);
  memset(buf, CONF_FILLER, (size_t)(count + 1) * extent);
  const long seed = count * 31L + root * 7L + t;
  if (rank == root) conf_fill(t, buf, (size_t)count, seed);
  char what[200];
  snprintf(what, sizeof what, "MPI_Bcast(%s, count %d, root %d) on %s", conf_types[t].name,
           count, root, comm_name);
  const int rc = MPI_Bcast(buf, count, conf_datatype(t), root, comm);
  CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
  CHECK_FILLED(t, buf, (size_t)count, seed, what);
  size_t first = 0;
  CHECK(conf_overwritten(buf + (size_t)count * extent, 1, extent, NULL, &first) == 0,
        "%s: the element after the buffer was written", what);
  free(buf);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  conf_comm comms[CONF_NCOMMS];
  conf_make_comms(comms);
  for (int k = 0; k < CONF_NCOMMS; ++k) {
    int n = 1;
    MPI_Comm_size(comms[k].comm, &n);
    const int counts[] = {0, 1, n - 1, n + 1, 1000};
    for (int root = 0; root < n; ++root) {
      for (int i = 0; i < 5; ++i) bcast(CONF_T_INT, counts[i], root, comms[k].comm, comms[k].name);
    }
  }
  for (int t = 0; t < CONF_NTYPES; ++t) {
    bcast(t, size + 1, t % size, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    bcast(t, 1, (t + 1) % size, comms[1].comm, comms[1].name);
  }
  bcast(CONF_T_BYTE, 1 << 20, size - 1, MPI_COMM_WORLD, "MPI_COMM_WORLD");
  int half = 1;
  MPI_Comm_size(comms[2].comm, &half);
  bcast(CONF_T_DOUBLE, 1 << 17, half / 2, comms[2].comm, comms[2].name);

  /* Back to back: the k-th call's root is k mod p, its value k. */
  long values[50];
  for (int k = 0; k < 50; ++k) {
    values[k] = rank == k % size ? 1000 + k : -1;
    MPI_Bcast(&values[k], 1, MPI_LONG, k % size, MPI_COMM_WORLD);
  }
  for (int k = 0; k < 50; ++k) {
    CHECK(values[k] == 1000 + k, "MPI_Bcast number %d of 50 in a row (root %d): got %ld", k,
          k % size, values[k]);
  }
  conf_free_comms(comms);
  return conf_finish();
}
