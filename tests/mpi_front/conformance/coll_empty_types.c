/* Types of no data in the collectives: MPI matches a send and a receive by their type
 * signatures (MPI-4.1 section 3.3.1), and the empty signature of one item of an empty type
 * (MPI_Type_contiguous(0, MPI_INT)) matches that of no MPI_INT. So one rank's block of one
 * empty item meets another's block of zero MPI_INT in MPI_Alltoallv and MPI_Alltoallw, both
 * ways round and with MPI_IN_PLACE on some ranks only (the odd ranks receive zero MPI_INT,
 * the even ones one empty item); the same through MPI_Ialltoallv, MPI_Gatherv, MPI_Bcast
 * and MPI_Allgather. Nothing moves: every receive buffer must stay as it was. */
#include "conformance.h"

enum { UNTOUCHED = -7 };

static int rank, size;
static MPI_Datatype empty;

static void expect_untouched(const int* buf, int n, const char* what) {
  int changed = 0;
  for (int i = 0; i < n; ++i) changed += buf[i] != UNTOUCHED;
  CHECK(changed == 0, "%s: %d receive elements written (nothing was sent)", what, changed);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
  CHECK_MPI(MPI_Type_commit(&empty));
  int tsize = -1;
  CHECK_MPI(MPI_Type_size(empty, &tsize));
  CHECK(tsize == 0, "MPI_Type_size of an empty contiguous type is %d", tsize);

  int* ones = conf_alloc(sizeof(int) * (size_t)size);
  int* zeros = conf_alloc(sizeof(int) * (size_t)size);
  int* displs = conf_alloc(sizeof(int) * (size_t)size);
  MPI_Datatype* empties = conf_alloc(sizeof(MPI_Datatype) * (size_t)size);
  MPI_Datatype* ints = conf_alloc(sizeof(MPI_Datatype) * (size_t)size);
  for (int i = 0; i < size; ++i) {
    ones[i] = 1;
    zeros[i] = 0;
    displs[i] = 0;
    empties[i] = empty;
    ints[i] = MPI_INT;
  }
  int send[4] = {1, 2, 3, 4}, recv[4];

  /* One empty item to every rank, zero MPI_INT from every rank, and the other way round. */
  for (int way = 0; way < 2; ++way) {
    const char* what = way == 0 ? "MPI_Alltoallv(1 x empty -> 0 x MPI_INT)"
                                : "MPI_Alltoallv(0 x MPI_INT -> 1 x empty)";
    for (int i = 0; i < 4; ++i) recv[i] = UNTOUCHED;
    CHECK_MPI(MPI_Alltoallv(send, way == 0 ? ones : zeros, displs, way == 0 ? empty : MPI_INT,
                            recv, way == 0 ? zeros : ones, displs, way == 0 ? MPI_INT : empty,
                            MPI_COMM_WORLD));
    expect_untouched(recv, 4, what);

    for (int i = 0; i < 4; ++i) recv[i] = UNTOUCHED;
    CHECK_MPI(MPI_Alltoallw(send, way == 0 ? ones : zeros, displs, way == 0 ? empties : ints,
                            recv, way == 0 ? zeros : ones, displs, way == 0 ? ints : empties,
                            MPI_COMM_WORLD));
    expect_untouched(recv, 4, way == 0 ? "MPI_Alltoallw(1 x empty -> 0 x MPI_INT)"
                                       : "MPI_Alltoallw(0 x MPI_INT -> 1 x empty)");

#ifndef OPEN_MPI /* Open MPI 4.1 hangs here (conformance.h) */
    MPI_Request req;
    for (int i = 0; i < 4; ++i) recv[i] = UNTOUCHED;
    CHECK_MPI(MPI_Ialltoallv(send, way == 0 ? ones : zeros, displs, way == 0 ? empty : MPI_INT,
                             recv, way == 0 ? zeros : ones, displs, way == 0 ? MPI_INT : empty,
                             MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    expect_untouched(recv, 4, way == 0 ? "MPI_Ialltoallv(1 x empty -> 0 x MPI_INT)"
                                       : "MPI_Ialltoallv(0 x MPI_INT -> 1 x empty)");
#endif
  }

  /* In place: the odd ranks receive zero MPI_INT, the even ranks one empty item. */
  const int odd = rank % 2;
  for (int i = 0; i < 4; ++i) recv[i] = UNTOUCHED;
  CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, recv, odd ? zeros : ones,
                          displs, odd ? MPI_INT : empty, MPI_COMM_WORLD));
  expect_untouched(recv, 4, "MPI_Alltoallv(MPI_IN_PLACE, 0 x MPI_INT on odd ranks, 1 x empty on even)");
  for (int i = 0; i < 4; ++i) recv[i] = UNTOUCHED;
  CHECK_MPI(MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, recv, odd ? zeros : ones, displs,
                          odd ? ints : empties, MPI_COMM_WORLD));
  expect_untouched(recv, 4, "MPI_Alltoallw(MPI_IN_PLACE, 0 x MPI_INT on odd ranks, 1 x empty on even)");

  /* The root gathers one empty item from each rank, which sends zero MPI_INT (the last rank
   * the other way round); a broadcast and an allgather of one empty item against zero
   * MPI_INT on the odd ranks. */
#ifndef OPEN_MPI /* Open MPI 4.1 hangs here (conformance.h) */
  for (int i = 0; i < 4; ++i) recv[i] = UNTOUCHED;
  const int root = size - 1;
  CHECK_MPI(MPI_Gatherv(send, rank == root ? 1 : 0, rank == root ? empty : MPI_INT, recv,
                        ones, displs, empty, root, MPI_COMM_WORLD));
  expect_untouched(recv, 4, "MPI_Gatherv(0 x MPI_INT -> 1 x empty)");
  for (int i = 0; i < 4; ++i) recv[i] = UNTOUCHED;
  if (rank == 0) memcpy(recv, send, sizeof recv);
  CHECK_MPI(MPI_Bcast(recv, odd ? 0 : 1, odd ? MPI_INT : empty, 0, MPI_COMM_WORLD));
  if (rank != 0) expect_untouched(recv, 4, "MPI_Bcast(1 x empty or 0 x MPI_INT)");
  for (int i = 0; i < 4; ++i) recv[i] = UNTOUCHED;
  CHECK_MPI(MPI_Allgather(send, odd ? 0 : 1, odd ? MPI_INT : empty, recv, odd ? 1 : 0,
                          odd ? empty : MPI_INT, MPI_COMM_WORLD));
  expect_untouched(recv, 4, "MPI_Allgather(1 x empty or 0 x MPI_INT)");
#endif

  CHECK_MPI(MPI_Type_free(&empty));
  free(ones);
  free(zeros);
  free(displs);
  free(empties);
  free(ints);
  return conf_finish();
}
