/* Every reduction of MPI on 480 ints, blocking or (argv[2] "nonblocking") its I form waited
 * for at once, written one of three ways (argv[1]):
 *   predefined   MPI_SUM on MPI_INT
 *   user         a user's sum on MPI_INT
 *   records      a user's sum on 120 records of a contiguous type of 4 MPI_INT
 * and the results checked. The virtual time of the three must be the same: a user op on a
 * derived type is charged per element, as a predefined op is (mpirun_test.cpp compares them).
 * Rank 0 prints "user_op_time ok" when every result was right. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { kInts = 480, kRecord = 4 };

static void sum_ints(void* in, void* inout, int* len, MPI_Datatype* type) {
  int per = 1;
  if (*type != MPI_INT) {
    MPI_Type_size(*type, &per);
    per /= (int)sizeof(int);
  }
  const int* a = in;
  int* b = inout;
  for (int i = 0; i < *len * per; ++i) b[i] += a[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const char* mode = argc > 1 ? argv[1] : "predefined";
  const int nb = argc > 2 && strcmp(argv[2], "nonblocking") == 0;
  MPI_Request req;
  /* The call, or its I form and a wait. */
#define CALL(blocking, immediate) \
  do {                            \
    if (nb) {                     \
      immediate;                  \
      MPI_Wait(&req, MPI_STATUS_IGNORE); \
    } else {                      \
      blocking;                   \
    }                             \
  } while (0)
  MPI_Datatype type = MPI_INT;
  int count = kInts;
  MPI_Op op = MPI_SUM;
  if (strcmp(mode, "predefined") != 0) MPI_Op_create(sum_ints, 1, &op);
  if (strcmp(mode, "records") == 0) {
    MPI_Type_contiguous(kRecord, MPI_INT, &type);
    MPI_Type_commit(&type);
    count = kInts / kRecord;
  }
  static int in[kInts * 64], out[kInts * 64];
  int bad = 0;
  for (int i = 0; i < kInts * p; ++i) in[i] = rank + i;
  /* The sum over ranks of rank + i. */
#define EXPECT_SUM(value, i, ranks) \
  bad |= (value) != (ranks) * (i) + (ranks) * ((ranks) - 1) / 2

  CALL(MPI_Allreduce(in, out, count, type, op, MPI_COMM_WORLD),
       MPI_Iallreduce(in, out, count, type, op, MPI_COMM_WORLD, &req));
  for (int i = 0; i < kInts; ++i) EXPECT_SUM(out[i], i, p);
  CALL(MPI_Reduce(in, out, count, type, op, p - 1, MPI_COMM_WORLD),
       MPI_Ireduce(in, out, count, type, op, p - 1, MPI_COMM_WORLD, &req));
  if (rank == p - 1) {
    for (int i = 0; i < kInts; ++i) EXPECT_SUM(out[i], i, p);
  }
  CALL(MPI_Scan(in, out, count, type, op, MPI_COMM_WORLD),
       MPI_Iscan(in, out, count, type, op, MPI_COMM_WORLD, &req));
  for (int i = 0; i < kInts; ++i) EXPECT_SUM(out[i], i, rank + 1);
  CALL(MPI_Exscan(in, out, count, type, op, MPI_COMM_WORLD),
       MPI_Iexscan(in, out, count, type, op, MPI_COMM_WORLD, &req));
  if (rank > 0) {
    for (int i = 0; i < kInts; ++i) EXPECT_SUM(out[i], i, rank);
  }
  CALL(MPI_Reduce_scatter_block(in, out, count, type, op, MPI_COMM_WORLD),
       MPI_Ireduce_scatter_block(in, out, count, type, op, MPI_COMM_WORLD, &req));
  for (int i = 0; i < kInts; ++i) EXPECT_SUM(out[i], rank * kInts + i, p);
  int counts[64];
  for (int r = 0; r < p; ++r) counts[r] = count;
  CALL(MPI_Reduce_scatter(in, out, counts, type, op, MPI_COMM_WORLD),
       MPI_Ireduce_scatter(in, out, counts, type, op, MPI_COMM_WORLD, &req));
  for (int i = 0; i < kInts; ++i) EXPECT_SUM(out[i], rank * kInts + i, p);

  int all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
  if (rank == 0 && !all_bad) printf("user_op_time ok\n");
  if (op != MPI_SUM) MPI_Op_free(&op);
  if (type != MPI_INT) MPI_Type_free(&type);
  MPI_Finalize();
  return all_bad;
}
