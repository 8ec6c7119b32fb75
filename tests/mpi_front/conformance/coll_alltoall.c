/* MPI_Alltoall and MPI_Alltoallv: block (i, j) goes from rank i to rank j. Counts 0, 1,
 * p - 1, p + 1 and 1000 (fewer at large p), with and without MPI_IN_PLACE (the blocks then
 * go out of and come into the receive buffer); Alltoallv with irregular counts (zeros among
 * them, sendcounts[j] at rank i equal to recvcounts[i] at rank j; symmetric in place, where
 * one set of counts serves both ways) in reverse order with gaps that must stay untouched; every predefined type; the same on the world reversed and on
 * half of the world. */
#include "conformance.h"

static long seed_of(int from, int to, int salt) { return from * 7919L + to * 104729L + salt; }

/* The count rank i sends to rank j in an irregular shape. */
static int shape_count(int shape, int i, int j, int n) {
  switch (shape) {
    case 0: return (i + 2 * j) % 4;
    case 1: return 0;
    case 2: return i == j ? n + 1 : 0;
    default: return (i * 7 + j * 3) % 5 == 0 ? 0 : 200 + i + j;
  }
}

/* Alltoallv when shape >= 0 (counts from shape_count, blocks last rank first with gaps of
 * 2), Alltoall of count each otherwise. */
static void alltoall(int t, int count, int shape, int in_place, MPI_Comm comm,
                     const char* comm_name) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t extent = conf_types[t].size;
  const int v = shape >= 0;
  int* scounts = conf_alloc(sizeof(int) * (size_t)size);
  int* sdispls = conf_alloc(sizeof(int) * (size_t)size);
  int* rcounts = conf_alloc(sizeof(int) * (size_t)size);
  int* rdispls = conf_alloc(sizeof(int) * (size_t)size);
  int s_at = 0, r_at = 0;
  for (int j = size - 1; j >= 0; --j) {
    /* In place, what rank i sends to j is what it receives from j: symmetric counts. */
    const int lo = rank < j ? rank : j, hi = rank < j ? j : rank;
    scounts[j] = !v ? count : in_place ? shape_count(shape, lo, hi, size) : shape_count(shape, rank, j, size);
    rcounts[j] = !v ? count : in_place ? shape_count(shape, lo, hi, size) : shape_count(shape, j, rank, size);
    sdispls[j] = v ? s_at : j * count;
    rdispls[j] = v ? r_at : j * count;
    s_at += scounts[j] + 2;
    r_at += rcounts[j] + 2;
  }
  const size_t s_elements = v ? (size_t)s_at : (size_t)size * (size_t)count;
  const size_t r_elements = (v ? (size_t)r_at : (size_t)size * (size_t)count) + 1;
  const int salt = count * 31 + shape * 7 + in_place;
  unsigned char* send = conf_alloc(s_elements * extent);
  unsigned char* recv = conf_alloc(r_elements * extent);
  memset(send, CONF_FILLER, s_elements * extent);
  memset(recv, CONF_FILLER, r_elements * extent);
  /* In place, the blocks to send sit where the blocks received will go (MPI 4.1 6.8). */
  unsigned char* out = in_place ? recv : send;
  const int* out_displs = in_place ? rdispls : sdispls;
  const int* out_counts = in_place ? rcounts : scounts;
  for (int j = 0; j < size; ++j) {
    conf_fill(t, out + (size_t)out_displs[j] * extent, (size_t)out_counts[j], seed_of(rank, j, salt));
  }
  char what[200];
  snprintf(what, sizeof what, "MPI_Alltoall%s(%s, %s%s) on %s", v ? "v" : "",
           conf_types[t].name, v ? "irregular" : "equal", in_place ? ", MPI_IN_PLACE" : "",
           comm_name);
  const MPI_Datatype dt = conf_datatype(t);
  int rc;
  if (v) {
    rc = MPI_Alltoallv(in_place ? MPI_IN_PLACE : send, scounts, sdispls, dt, recv, rcounts,
                       rdispls, dt, comm);
  } else {
    rc = MPI_Alltoall(in_place ? MPI_IN_PLACE : send, count, dt, recv, count, dt, comm);
  }
  CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
  unsigned char* written = calloc(r_elements, 1);
  for (int j = 0; j < size; ++j) {
    char block[260];
    snprintf(block, sizeof block, "%s: the block from rank %d", what, j);
    CHECK_FILLED(t, recv + (size_t)rdispls[j] * extent, (size_t)rcounts[j], seed_of(j, rank, salt), block);
    memset(written + rdispls[j], 1, (size_t)rcounts[j]);
  }
  size_t first = 0;
  const size_t bad = conf_overwritten(recv, r_elements, extent, written, &first);
  CHECK(bad == 0, "%s: %zu elements outside the blocks written, first [%zu]", what, bad, first);
  if (!in_place) {
    for (int j = 0; j < size; ++j) {
      char block[260];
      snprintf(block, sizeof block, "%s: the send buffer afterwards, block %d", what, j);
      CHECK_FILLED(t, send + (size_t)sdispls[j] * extent, (size_t)scounts[j], seed_of(rank, j, salt), block);
    }
  }
  free(written);
  free(send);
  free(recv);
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  conf_comm comms[CONF_NCOMMS];
  conf_make_comms(comms);
  for (int k = 0; k < CONF_NCOMMS; ++k) {
    int n = 1;
    MPI_Comm_size(comms[k].comm, &n);
    /* 1000 elements to each of p ranks, or 64000 in all when p > 64. */
    const int counts[] = {0, 1, n - 1, n + 1, n <= 64 ? 1000 : 64000 / n};
    for (int i = 0; i < 5; ++i) {
      alltoall(CONF_T_INT, counts[i], -1, 0, comms[k].comm, comms[k].name);
      alltoall(CONF_T_INT, counts[i], -1, 1, comms[k].comm, comms[k].name);
    }
    for (int shape = 0; shape < 4; ++shape) {
      alltoall(CONF_T_INT, shape, shape, 0, comms[k].comm, comms[k].name);
      alltoall(CONF_T_DOUBLE, shape, shape, 1, comms[k].comm, comms[k].name);
    }
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int t = 0; t < CONF_NTYPES; ++t) {
    alltoall(t, 3, -1, t % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    alltoall(t, 0, 0, (t + 1) % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
  }
  conf_free_comms(comms);
  return conf_finish();
}
