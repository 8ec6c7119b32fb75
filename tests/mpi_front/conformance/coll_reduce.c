/* MPI_Reduce: every root at counts 0, 1, p - 1, p + 1 and 1000, with and without
 * MPI_IN_PLACE at the root; every predefined operation on every type it applies to
 * (MPI_MAXLOC and MPI_MINLOC on the pair types) at counts 1 and p + 1; a 1 MiB vector; the
 * same on the world reversed and on half of the world. The root's result must be exact, the
 * element after it untouched, the send buffers unchanged; other ranks pass no receive
 * buffer (it is significant only at the root). */
#include "reductions.h"

static void reduce(conf_reduction c, int count, int root, int in_place, MPI_Comm comm,
                   const char* comm_name) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t extent = conf_reduction_extent(c);
  unsigned char* send = conf_alloc((size_t)count * extent);
  unsigned char* recv = NULL;
  conf_fill_input(c, send, (size_t)count, rank, size, 0);
  if (rank == root) {
    recv = conf_alloc((size_t)(count + 1) * extent);
    memset(recv, 0xA5, (size_t)(count + 1) * extent);
    if (in_place) memcpy(recv, send, (size_t)count * extent);
  }
  const void* sendbuf = in_place && rank == root ? MPI_IN_PLACE : send;
  char what[200];
  snprintf(what, sizeof what, "MPI_Reduce(root %d%s) on %s", root, in_place ? ", MPI_IN_PLACE" : "",
           comm_name);
  const int rc = MPI_Reduce(sendbuf, recv, count, conf_reduction_type(c), conf_op(c.o), root, comm);
  CHECK(rc == MPI_SUCCESS, "%s returned %d", what, rc);
  if (rank == root) {
    conf_check_result(c, recv, (size_t)count, 0, size, size, 0, what);
    size_t touched = 0;
    for (size_t b = 0; b < extent; ++b) touched += recv[(size_t)count * extent + b] != 0xA5;
    CHECK(touched == 0, "%s, %s on %s, count %d: the element after the result was written", what,
          conf_op_names[c.o], conf_reduction_type_name(c), count);
  }
  if (!(in_place && rank == root)) {
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
  const conf_reduction int_sum = {CONF_OP_SUM, CONF_T_INT};
  for (int k = 0; k < CONF_NCOMMS; ++k) {
    int n = 1;
    MPI_Comm_size(comms[k].comm, &n);
    const int counts[] = {0, 1, n - 1, n + 1, 1000};
    for (int root = 0; root < n; ++root) {
      for (int i = 0; i < 5; ++i) {
        reduce(int_sum, counts[i], root, 0, comms[k].comm, comms[k].name);
        reduce(int_sum, counts[i], root, 1, comms[k].comm, comms[k].name);
      }
    }
  }

  conf_reduction all[400];
  const int n_all = conf_all_reductions(all, 400);
  for (int i = 0; i < n_all; ++i) {
    reduce(all[i], 1, i % size, 0, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    reduce(all[i], size + 1, (i + 1) % size, i % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
    reduce(all[i], 3, 0, i % 3 == 0, comms[1].comm, comms[1].name);
  }

  const conf_reduction long_ones[] = {
      {CONF_OP_SUM, CONF_T_DOUBLE},      {CONF_OP_MAX, CONF_T_LONG_LONG},
      {CONF_OP_BXOR, CONF_T_UINT64_T},   {CONF_OP_PROD, CONF_T_C_DOUBLE_COMPLEX},
      {CONF_OP_MAXLOC, CONF_P_DOUBLE_INT}, {CONF_OP_LXOR, CONF_T_C_BOOL}};
  for (int i = 0; i < 6; ++i) reduce(long_ones[i], 1000, (size - 1 + i) % size, i % 2, MPI_COMM_WORLD, "MPI_COMM_WORLD");
  /* 1 MiB. */
  reduce((conf_reduction){CONF_OP_SUM, CONF_T_DOUBLE}, 1 << 17, size - 1, 0, MPI_COMM_WORLD,
         "MPI_COMM_WORLD");

#ifndef OPEN_MPI
  /* MPICH's extension, which vmc follows: the logical operations on C's floating point (true
   * when not zero). Open MPI refuses them, as the standard's table leaves them out. */
  {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const MPI_Op ops[3] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    const char* names[3] = {"MPI_LAND", "MPI_LOR", "MPI_LXOR"};
    /* Element 0 true everywhere, 1 false everywhere, 2 true on rank 0 only. */
    const double in[3] = {-1.5, 0.0, rank == 0 ? 0.25 : 0.0};
    for (int k = 0; k < 3; ++k) {
      double out[3] = {7, 7, 7};
      CHECK_MPI(MPI_Reduce(in, out, 3, MPI_DOUBLE, ops[k], size - 1, MPI_COMM_WORLD));
      if (rank == size - 1) {
        const double want[3][3] = {{1, 0, size == 1}, {1, 0, 1}, {size % 2, 0, 1}};
        /* True or false, as C reads a value (one rank's value is its own result). */
        for (int i = 0; i < 3; ++i) {
          CHECK((out[i] != 0) == (want[k][i] != 0), "%s on MPI_DOUBLE, element %d: %g, expected %s",
                names[k], i, out[i], want[k][i] != 0 ? "true" : "false");
        }
      }
      float fin[3] = {(float)in[0], (float)in[1], (float)in[2]}, fout[3] = {7, 7, 7};
      CHECK_MPI(MPI_Allreduce(fin, fout, 3, MPI_FLOAT, ops[k], MPI_COMM_WORLD));
      CHECK((fout[2] != 0) == (k == 0 ? size == 1 : 1), "%s on MPI_FLOAT, element 2: %g",
            names[k], (double)fout[2]);
    }
  }
#endif

  conf_free_comms(comms);
  return conf_finish();
}
