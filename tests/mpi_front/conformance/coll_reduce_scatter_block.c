/* MPI_Reduce_scatter_block: the reduction of every rank's vector of p * recvcount elements,
 * rank j getting block j. recvcount 0, 1, p - 1, p + 1 and 1000, with and without
 * MPI_IN_PLACE (the input then comes from the receive buffer); every predefined operation on
 * every type it applies to; the same on the world reversed and on half of the world. */
#include "reductions.h"

static void reduce_scatter_block(conf_reduction c, int count, int in_place, MPI_Comm comm,
                                 const char* comm_name) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t extent = conf_reduction_extent(c);
  const size_t total = (size_t)count * (size_t)size;
  unsigned char* send = conf_alloc(total * extent);
  const size_t recv_elements = (in_place ? total : (size_t)count) + 1;
  unsigned char* recv = conf_alloc(recv_elements * extent);
  conf_fill_input(c, send, total, rank, size, 0);
  memset(recv, 0xA5, recv_elements * extent);
  if (in_place) memcpy(recv, send, total * extent);
  char what[200];
  snprintf(what, sizeof what, "MPI_Reduce_scatter_block(%s) on %s",
           in_place ? "MPI_IN_PLACE" : "", comm_name);
  const int rc = MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : send, recv, count,
                                          conf_reduction_type(c), conf_op(c.o), comm);
  CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
  conf_check_result(c, recv, (size_t)count, 0, size, size, (size_t)rank * (size_t)count, what);
  if (!in_place) {
    size_t touched = 0;
    for (size_t b = 0; b < extent; ++b) touched += recv[(size_t)count * extent + b] != 0xA5;
    CHECK(touched == 0, "%s, %s on %s, count %d: the element after the result was written",
          what, conf_op_names[c.o], conf_reduction_type_name(c), count);
    char send_what[240];
    snprintf(send_what, sizeof send_what, "%s: the send buffer afterwards", what);
    conf_check_result(c, send, total, rank, rank + 1, size, 0, send_what);
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
      reduce_scatter_block((conf_reduction){CONF_OP_SUM, CONF_T_INT}, counts[i], 0,
                           comms[k].comm, comms[k].name);
      reduce_scatter_block((conf_reduction){CONF_OP_SUM, CONF_T_INT}, counts[i], 1,
                           comms[k].comm, comms[k].name);
    }
  }
  conf_reduction all[400];
  const int n_all = conf_all_reductions(all, 400);
  for (int i = 0; i < n_all; ++i) {
    reduce_scatter_block(all[i], 1, i % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    reduce_scatter_block(all[i], 3, (i + 1) % 2, comms[1].comm, comms[1].name);
  }
  conf_free_comms(comms);
  return conf_finish();
}
