/* MPI_Reduce_scatter: the reduction of every rank's vector, rank j getting the recvcounts[j]
 * elements that follow those of ranks 0..j-1. Equal counts (0, 1, p - 1, p + 1, 1000 each),
 * irregular counts with zeros, everything to one rank; with and without MPI_IN_PLACE (the
 * input then comes from the receive buffer); every predefined operation on every type it
 * applies to; the same on the world reversed and on half of the world. */
#include "reductions.h"

static void reduce_scatter(conf_reduction c, const int* counts, int in_place, MPI_Comm comm,
                           const char* comm_name, const char* shape) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t extent = conf_reduction_extent(c);
  size_t total = 0, offset = 0;
  for (int j = 0; j < size; ++j) {
    if (j == rank) offset = total;
    total += (size_t)counts[j];
  }
  const size_t mine = (size_t)counts[rank];
  unsigned char* send = conf_alloc(total * extent);
  const size_t recv_elements = (in_place ? total : mine) + 1;
  unsigned char* recv = conf_alloc(recv_elements * extent);
  conf_fill_input(c, send, total, rank, size, 0);
  memset(recv, 0xA5, recv_elements * extent);
  if (in_place) memcpy(recv, send, total * extent);
  char what[200];
  snprintf(what, sizeof what, "MPI_Reduce_scatter(%s counts%s) on %s", shape,
           in_place ? ", MPI_IN_PLACE" : "", comm_name);
  const int rc = MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : send, recv, counts,
                                    conf_reduction_type(c), conf_op(c.o), comm);
  CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
  conf_check_result(c, recv, mine, 0, size, size, offset, what);
  if (!in_place) {
    size_t touched = 0;
    for (size_t b = 0; b < extent; ++b) touched += recv[mine * extent + b] != 0xA5;
    CHECK(touched == 0, "%s, %s on %s: the element after the result was written", what,
          conf_op_names[c.o], conf_reduction_type_name(c));
    char send_what[240];
    snprintf(send_what, sizeof send_what, "%s: the send buffer afterwards", what);
    conf_check_result(c, send, total, rank, rank + 1, size, 0, send_what);
  }
  free(send);
  free(recv);
}

/* Every shape of counts for a communicator of n ranks. */
static void every_shape(conf_reduction c, int in_place, MPI_Comm comm, const char* comm_name) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  int* counts = conf_alloc(sizeof(int) * (size_t)n);
  const int equal[] = {0, 1, n - 1, n + 1, 1000};
  char shape[64];
  for (int k = 0; k < 5; ++k) {
    for (int j = 0; j < n; ++j) counts[j] = equal[k];
    snprintf(shape, sizeof shape, "%d each", equal[k]);
    reduce_scatter(c, counts, in_place, comm, comm_name, shape);
  }
  for (int s = 0; s < 3; ++s) {
    for (int j = 0; j < n; ++j) counts[j] = (j * 3 + s) % 4;
    snprintf(shape, sizeof shape, "irregular %d", s);
    reduce_scatter(c, counts, in_place, comm, comm_name, shape);
  }
  for (int j = 0; j < n; ++j) counts[j] = j == n / 2 ? 1000 : 0;
  reduce_scatter(c, counts, in_place, comm, comm_name, "all to one");
  free(counts);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  conf_comm comms[CONF_NCOMMS];
  conf_make_comms(comms);
  for (int k = 0; k < CONF_NCOMMS; ++k) {
    every_shape((conf_reduction){CONF_OP_SUM, CONF_T_INT}, 0, comms[k].comm, comms[k].name);
    every_shape((conf_reduction){CONF_OP_SUM, CONF_T_INT}, 1, comms[k].comm, comms[k].name);
  }
  every_shape((conf_reduction){CONF_OP_MAXLOC, CONF_P_2INT}, 0, MPI_COMM_WORLD, "MPI_COMM_WORLD");
  every_shape((conf_reduction){CONF_OP_PROD, CONF_T_DOUBLE}, 1, comms[1].comm, comms[1].name);

  conf_reduction all[400];
  const int n_all = conf_all_reductions(all, 400);
  int* counts = conf_alloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < n_all; ++i) {
    for (int j = 0; j < size; ++j) counts[j] = (j + i) % 3;
    reduce_scatter(all[i], counts, i % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD", "irregular");
  }
  free(counts);
  conf_free_comms(comms);
  return conf_finish();
}
