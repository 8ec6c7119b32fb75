/* MPI_Exscan: rank r > 0 gets the reduction of ranks 0..r-1; rank 0's receive buffer is not
 * significant (it is not checked, but the element after it must stay untouched everywhere).
 * Counts 0, 1, p - 1, p + 1 and 1000, with and without MPI_IN_PLACE; every predefined
 * operation on every type it applies to at counts 1 and p + 1; the same on the world
 * reversed and on half of the world. */
#include "reductions.h"

static void exscan(conf_reduction c, int count, int in_place, MPI_Comm comm,
                   const char* comm_name) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t extent = conf_reduction_extent(c);
  unsigned char* send = conf_alloc((size_t)count * extent);
  unsigned char* recv = conf_alloc((size_t)(count + 1) * extent);
  conf_fill_input(c, send, (size_t)count, rank, size, 0);
  memset(recv, 0xA5, (size_t)(count + 1) * extent);
  if (in_place) memcpy(recv, send, (size_t)count * extent);
  char what[200];
  snprintf(what, sizeof what, "MPI_Exscan(%s) on %s", in_place ? "MPI_IN_PLACE" : "",
           comm_name);
  const int rc = MPI_Exscan(in_place ? MPI_IN_PLACE : send, recv, count,
                            conf_reduction_type(c), conf_op(c.o), comm);
  CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
  if (rank > 0) conf_check_result(c, recv, (size_t)count, 0, rank, size, 0, what);
  size_t touched = 0;
  for (size_t b = 0; b < extent; ++b) touched += recv[(size_t)count * extent + b] != 0xA5;
  CHECK(touched == 0, "%s, %s on %s, count %d: the element after the result was written", what,
        conf_op_names[c.o], conf_reduction_type_name(c), count);
  if (!in_place) {
    char send_what[240];
    snprintf(send_what, sizeof send_what, "%s: the send buffer afterwards", what);
    conf_check_result(c, send, (size_t)count, rank, rank + 1, size, 0, send_what);
  }
  free(send);
  free(recv);
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
    for (int i = 0; i < 5; ++i) {
      exscan((conf_reduction){CONF_OP_SUM, CONF_T_INT}, counts[i], 0, comms[k].comm,
             comms[k].name);
      exscan((conf_reduction){CONF_OP_SUM, CONF_T_INT}, counts[i], 1, comms[k].comm,
             comms[k].name);
    }
  }
  conf_reduction all[400];
  const int n_all = conf_all_reductions(all, 400);
  for (int i = 0; i < n_all; ++i) {
    exscan(all[i], 1, i % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    exscan(all[i], size + 1, (i + 1) % 2, comms[1].comm, comms[1].name);
  }
  exscan((conf_reduction){CONF_OP_SUM, CONF_T_DOUBLE}, 1 << 17, 0, MPI_COMM_WORLD,
         "MPI_COMM_WORLD");
  conf_free_comms(comms);
  return conf_finish();
}
