/* Nonblocking and persistent collectives: every I form (MPI_Ibarrier ... MPI_Ialltoallv) and
 * every _init form (started twice by MPI_Start) must leave the buffers exactly as the blocking
 * call does, at every root, for counts 0, 1 and a few irregular ones, in place where the
 * blocking call allows it, on a derived datatype with holes (the holes left alone; reduced by a
 * user op, as the standard's predefined ops take predefined types) and with a non-commutative
 * user op (2x2 integer matrices multiplied modulo 251, combined in rank order), on
 * MPI_COMM_WORLD (every root at one count, the first and last root at the others) and on the
 * split communicators (the first and last root); above 16 ranks fewer counts and roots.
 * MPI_Alltoallw, MPI_Ialltoallw and MPI_Alltoallw_init with per-peer datatypes. Then many at
 * once: eight collectives outstanding on one communicator beside point-to-point requests,
 * completed in an order that differs by rank (MPI_Waitall over a shuffled array, MPI_Waitany,
 * MPI_Test loops, MPI_Waitsome, MPI_Testall, MPI_Request_get_status); a rank that does
 * point-to-point work between its MPI_Ibcast and its MPI_Wait, and one that waits in MPI_Recv
 * for a rank whose broadcast it must forward; MPI_Startall of persistent collectives; and
 * MPI_Request_free of a collective's request in flight (erroneous: vmc says MPI_ERR_REQUEST). */
#include "conformance.h"

enum { MOD = 251 };

static int rank, size;
static MPI_Datatype mat2;  /* a 2x2 matrix: 4 ints */
static MPI_Datatype holed; /* 2 ints, 1 apart (ints 0 and 2 of 3), resized to 3 ints */
static MPI_Op matmul;      /* non-commutative */
static int *in, *out, *got[3];
static int cap; /* ints in each buffer */

/* inoutvec[i] = invec[i] x inoutvec[i] (invec from the lower ranks), modulo MOD. */
static void product(void* invec, void* inoutvec, int* len, MPI_Datatype* dt) {
  (void)dt;
  const int* a = invec;
  int* b = inoutvec;
  for (int i = 0; i < *len; ++i, a += 4, b += 4) {
    const int r0 = (a[0] * b[0] + a[1] * b[2]) % MOD, r1 = (a[0] * b[1] + a[1] * b[3]) % MOD;
    const int r2 = (a[2] * b[0] + a[3] * b[2]) % MOD, r3 = (a[2] * b[1] + a[3] * b[3]) % MOD;
    b[0] = r0;
    b[1] = r1;
    b[2] = r2;
    b[3] = r3;
  }
}

/* The sum of the two ints of a `holed` item (ints 0 and 2 of its 3). */
static void holed_sum(void* invec, void* inoutvec, int* len, MPI_Datatype* dt) {
  (void)dt;
  const int* a = invec;
  int* b = inoutvec;
  for (int i = 0; i < *len; ++i) {
    b[3 * i] += a[3 * i];
    b[3 * i + 2] += a[3 * i + 2];
  }
}
static MPI_Op holed_plus;

/* The three ways of running one call. */
enum { BLOCKING, NONBLOCKING, PERSISTENT };

static void fill(int* buf, int salt) {
  for (int i = 0; i < cap; ++i) buf[i] = (rank * 131 + i * 7 + salt * 17) % MOD + 1;
}

/* The nonblocking and persistent results against the blocking one: `n` ints. */
static void compare(const char* what, const char* comm, int count, int root, int n) {
  for (int m = NONBLOCKING; m <= PERSISTENT; ++m) {
    for (int i = 0; i < n; ++i) {
      if (got[m][i] != got[BLOCKING][i]) {
        CHECK(0, "%s (%s) on %s, count %d, root %d: int %d is %d, the blocking call gave %d",
              what, m == NONBLOCKING ? "nonblocking" : "persistent", comm, count, root, i,
              got[m][i], got[BLOCKING][i]);
        break;
      }
    }
  }
}

/* Runs the call three ways (FILL before each run, twice for the persistent request), keeps
 * what OUTPUT holds after each (n ints) and compares. */
#define DRIVE(WHAT, COMM, COUNT, ROOT, FILL, BCALL, ICALL, PCALL, OUTPUT, N)            \
  do {                                                                                  \
    for (int m_ = BLOCKING; m_ <= PERSISTENT; ++m_) {                                   \
      MPI_Request r_ = MPI_REQUEST_NULL;                                                \
      if (m_ == PERSISTENT) CHECK_MPI(PCALL);                                           \
      for (int k_ = 0; k_ < (m_ == PERSISTENT ? 2 : 1); ++k_) {                         \
        FILL;                                                                           \
        if (m_ == BLOCKING) {                                                           \
          CHECK_MPI(BCALL);                                                             \
        } else if (m_ == NONBLOCKING) {                                                 \
          CHECK_MPI(ICALL);                                                             \
          CHECK_MPI(MPI_Wait(&r_, MPI_STATUS_IGNORE));                                  \
          CHECK(r_ == MPI_REQUEST_NULL, "%s: MPI_Wait left the request", WHAT);         \
        } else {                                                                        \
          CHECK_MPI(MPI_Start(&r_));                                                    \
          CHECK_MPI(MPI_Wait(&r_, MPI_STATUS_IGNORE));                                  \
          CHECK(r_ != MPI_REQUEST_NULL, "%s: MPI_Wait freed a persistent request", WHAT); \
        }                                                                               \
      }                                                                                 \
      if (m_ == PERSISTENT) CHECK_MPI(MPI_Request_free(&r_));                           \
      memcpy(got[m_], OUTPUT, (size_t)(N) * sizeof(int));                               \
    }                                                                                   \
    compare(WHAT, COMM, COUNT, ROOT, N);                                                \
  } while (0)

#define FILL2 (fill(in, 1), fill(out, 2))

/* Ints a buffer of `items` items of dt spans. */
static int ints_of(MPI_Datatype dt, int items) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(dt, &lb, &extent);
  return (int)(extent / (MPI_Aint)sizeof(int)) * items;
}

/* The rooted and the reducing calls with one count. */
static void rooted(MPI_Comm comm, const char* name, int count, int root, MPI_Datatype dt) {
  int p = 1, me = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  const int one = ints_of(dt, count), all = one * p;
  DRIVE("bcast", name, count, root, FILL2, MPI_Bcast(out, count, dt, root, comm),
        MPI_Ibcast(out, count, dt, root, comm, &r_),
        MPI_Bcast_init(out, count, dt, root, comm, MPI_INFO_NULL, &r_), out, one);
  DRIVE("gather", name, count, root, FILL2,
        MPI_Gather(in, count, dt, out, count, dt, root, comm),
        MPI_Igather(in, count, dt, out, count, dt, root, comm, &r_),
        MPI_Gather_init(in, count, dt, out, count, dt, root, comm, MPI_INFO_NULL, &r_), out,
        me == root ? all : 0);
  DRIVE("scatter", name, count, root, FILL2,
        MPI_Scatter(in, count, dt, out, count, dt, root, comm),
        MPI_Iscatter(in, count, dt, out, count, dt, root, comm, &r_),
        MPI_Scatter_init(in, count, dt, out, count, dt, root, comm, MPI_INFO_NULL, &r_), out,
        one);
  /* In place at the root. */
  const void* gsend = me == root ? MPI_IN_PLACE : (const void*)in;
  void* srecv = me == root ? MPI_IN_PLACE : (void*)out;
  DRIVE("gather in place", name, count, root, FILL2,
        MPI_Gather(gsend, count, dt, out, count, dt, root, comm),
        MPI_Igather(gsend, count, dt, out, count, dt, root, comm, &r_),
        MPI_Gather_init(gsend, count, dt, out, count, dt, root, comm, MPI_INFO_NULL, &r_), out,
        me == root ? all : 0);
  DRIVE("scatter in place", name, count, root, FILL2,
        MPI_Scatter(out, count, dt, srecv, count, dt, root, comm),
        MPI_Iscatter(out, count, dt, srecv, count, dt, root, comm, &r_),
        MPI_Scatter_init(out, count, dt, srecv, count, dt, root, comm, MPI_INFO_NULL, &r_), out,
        me == root ? all : one);
}

static void reductions(MPI_Comm comm, const char* name, int count, int root, MPI_Datatype dt,
                       MPI_Op op) {
  int p = 1, me = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  const int one = ints_of(dt, count);
  const void* rsend = me == root ? MPI_IN_PLACE : (const void*)in;
  DRIVE("reduce", name, count, root, FILL2, MPI_Reduce(in, out, count, dt, op, root, comm),
        MPI_Ireduce(in, out, count, dt, op, root, comm, &r_),
        MPI_Reduce_init(in, out, count, dt, op, root, comm, MPI_INFO_NULL, &r_), out,
        me == root ? one : 0);
  DRIVE("reduce in place", name, count, root, FILL2,
        MPI_Reduce(rsend, me == root ? out : NULL, count, dt, op, root, comm),
        MPI_Ireduce(rsend, me == root ? out : NULL, count, dt, op, root, comm, &r_),
        MPI_Reduce_init(rsend, me == root ? out : NULL, count, dt, op, root, comm, MPI_INFO_NULL,
                        &r_),
        out, me == root ? one : 0);
  if (root != 0) return; /* the unrooted ones once */
  DRIVE("allreduce", name, count, root, FILL2, MPI_Allreduce(in, out, count, dt, op, comm),
        MPI_Iallreduce(in, out, count, dt, op, comm, &r_),
        MPI_Allreduce_init(in, out, count, dt, op, comm, MPI_INFO_NULL, &r_), out, one);
  DRIVE("allreduce in place", name, count, root, FILL2,
        MPI_Allreduce(MPI_IN_PLACE, out, count, dt, op, comm),
        MPI_Iallreduce(MPI_IN_PLACE, out, count, dt, op, comm, &r_),
        MPI_Allreduce_init(MPI_IN_PLACE, out, count, dt, op, comm, MPI_INFO_NULL, &r_), out, one);
  DRIVE("scan", name, count, root, FILL2, MPI_Scan(in, out, count, dt, op, comm),
        MPI_Iscan(in, out, count, dt, op, comm, &r_),
        MPI_Scan_init(in, out, count, dt, op, comm, MPI_INFO_NULL, &r_), out, one);
  DRIVE("scan in place", name, count, root, FILL2,
        MPI_Scan(MPI_IN_PLACE, out, count, dt, op, comm),
        MPI_Iscan(MPI_IN_PLACE, out, count, dt, op, comm, &r_),
        MPI_Scan_init(MPI_IN_PLACE, out, count, dt, op, comm, MPI_INFO_NULL, &r_), out, one);
  /* Rank 0's exscan result is undefined. */
  DRIVE("exscan", name, count, root, FILL2, MPI_Exscan(in, out, count, dt, op, comm),
        MPI_Iexscan(in, out, count, dt, op, comm, &r_),
        MPI_Exscan_init(in, out, count, dt, op, comm, MPI_INFO_NULL, &r_), out,
        me > 0 ? one : 0);
  DRIVE("exscan in place", name, count, root, FILL2,
        MPI_Exscan(MPI_IN_PLACE, out, count, dt, op, comm),
        MPI_Iexscan(MPI_IN_PLACE, out, count, dt, op, comm, &r_),
        MPI_Exscan_init(MPI_IN_PLACE, out, count, dt, op, comm, MPI_INFO_NULL, &r_), out,
        me > 0 ? one : 0);
  DRIVE("reduce_scatter_block", name, count, root, FILL2,
        MPI_Reduce_scatter_block(in, out, count, dt, op, comm),
        MPI_Ireduce_scatter_block(in, out, count, dt, op, comm, &r_),
        MPI_Reduce_scatter_block_init(in, out, count, dt, op, comm, MPI_INFO_NULL, &r_), out,
        one);
  DRIVE("reduce_scatter_block in place", name, count, root, FILL2,
        MPI_Reduce_scatter_block(MPI_IN_PLACE, out, count, dt, op, comm),
        MPI_Ireduce_scatter_block(MPI_IN_PLACE, out, count, dt, op, comm, &r_),
        MPI_Reduce_scatter_block_init(MPI_IN_PLACE, out, count, dt, op, comm, MPI_INFO_NULL, &r_),
        out, one);
  int* counts = conf_alloc((size_t)p * sizeof(int));
  for (int i = 0; i < p; ++i) counts[i] = (i + count) % 3;
  DRIVE("reduce_scatter", name, count, root, FILL2,
        MPI_Reduce_scatter(in, out, counts, dt, op, comm),
        MPI_Ireduce_scatter(in, out, counts, dt, op, comm, &r_),
        MPI_Reduce_scatter_init(in, out, counts, dt, op, comm, MPI_INFO_NULL, &r_), out,
        ints_of(dt, counts[me]));
  DRIVE("reduce_scatter in place", name, count, root, FILL2,
        MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, dt, op, comm),
        MPI_Ireduce_scatter(MPI_IN_PLACE, out, counts, dt, op, comm, &r_),
        MPI_Reduce_scatter_init(MPI_IN_PLACE, out, counts, dt, op, comm, MPI_INFO_NULL, &r_),
        out, ints_of(dt, counts[me]));
  free(counts);
}

/* The all-to-all family and the v forms (irregular counts, gaps between blocks). */
static void all_forms(MPI_Comm comm, const char* name, int count, int root, MPI_Datatype dt) {
  int p = 1, me = 0;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  const int all = ints_of(dt, count * p);
  DRIVE("allgather", name, count, root, FILL2,
        MPI_Allgather(in, count, dt, out, count, dt, comm),
        MPI_Iallgather(in, count, dt, out, count, dt, comm, &r_),
        MPI_Allgather_init(in, count, dt, out, count, dt, comm, MPI_INFO_NULL, &r_), out, all);
  DRIVE("allgather in place", name, count, root, FILL2,
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count, dt, comm),
        MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count, dt, comm, &r_),
        MPI_Allgather_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count, dt, comm,
                           MPI_INFO_NULL, &r_),
        out, all);
  DRIVE("alltoall", name, count, root, FILL2, MPI_Alltoall(in, count, dt, out, count, dt, comm),
        MPI_Ialltoall(in, count, dt, out, count, dt, comm, &r_),
        MPI_Alltoall_init(in, count, dt, out, count, dt, comm, MPI_INFO_NULL, &r_), out, all);
  DRIVE("alltoall in place", name, count, root, FILL2,
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count, dt, comm),
        MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count, dt, comm, &r_),
        MPI_Alltoall_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count, dt, comm,
                          MPI_INFO_NULL, &r_),
        out, all);
  /* v forms: block i of counts[i] items, one item of gap before each. */
  int* counts = conf_alloc((size_t)p * sizeof(int));
  int* displs = conf_alloc((size_t)p * sizeof(int));
  int* scounts = conf_alloc((size_t)p * sizeof(int));
  int* sdispls = conf_alloc((size_t)p * sizeof(int));
  int* rcounts = conf_alloc((size_t)p * sizeof(int));
  int* rdispls = conf_alloc((size_t)p * sizeof(int));
  int at = 0, sat = 0, rat = 0;
  for (int i = 0; i < p; ++i) {
    counts[i] = (2 * i + count) % 4;
    displs[i] = at + 1;
    at += counts[i] + 1;
    scounts[i] = (me + 2 * i + count) % 3;
    rcounts[i] = (i + 2 * me + count) % 3;
    sdispls[i] = sat + (i % 2);
    rdispls[i] = rat + 1;
    sat = sdispls[i] + scounts[i];
    rat = rdispls[i] + rcounts[i];
  }
  const int span = ints_of(dt, at), rspan = ints_of(dt, rat);
  DRIVE("gatherv", name, count, root, FILL2,
        MPI_Gatherv(in, counts[me], dt, out, counts, displs, dt, root, comm),
        MPI_Igatherv(in, counts[me], dt, out, counts, displs, dt, root, comm, &r_),
        MPI_Gatherv_init(in, counts[me], dt, out, counts, displs, dt, root, comm, MPI_INFO_NULL,
                         &r_),
        out, me == root ? span : 0);
  DRIVE("scatterv", name, count, root, FILL2,
        MPI_Scatterv(in, counts, displs, dt, out, counts[me], dt, root, comm),
        MPI_Iscatterv(in, counts, displs, dt, out, counts[me], dt, root, comm, &r_),
        MPI_Scatterv_init(in, counts, displs, dt, out, counts[me], dt, root, comm, MPI_INFO_NULL,
                          &r_),
        out, ints_of(dt, counts[me]));
  DRIVE("allgatherv", name, count, root, FILL2,
        MPI_Allgatherv(in, counts[me], dt, out, counts, displs, dt, comm),
        MPI_Iallgatherv(in, counts[me], dt, out, counts, displs, dt, comm, &r_),
        MPI_Allgatherv_init(in, counts[me], dt, out, counts, displs, dt, comm, MPI_INFO_NULL,
                            &r_),
        out, span);
  DRIVE("allgatherv in place", name, count, root, FILL2,
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs, dt, comm),
        MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs, dt, comm, &r_),
        MPI_Allgatherv_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs, dt, comm,
                            MPI_INFO_NULL, &r_),
        out, span);
  DRIVE("alltoallv", name, count, root, FILL2,
        MPI_Alltoallv(in, scounts, sdispls, dt, out, rcounts, rdispls, dt, comm),
        MPI_Ialltoallv(in, scounts, sdispls, dt, out, rcounts, rdispls, dt, comm, &r_),
        MPI_Alltoallv_init(in, scounts, sdispls, dt, out, rcounts, rdispls, dt, comm,
                           MPI_INFO_NULL, &r_),
        out, rspan);
  free(counts);
  free(displs);
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
}

/* MPI_Alltoallw, MPI_Ialltoallw and MPI_Alltoallw_init: per-peer datatypes and byte
 * displacements. Rank r sends peer i four ints r * 100 + i * 10 + k, as 4 MPI_INT or one mat2
 * (by r + i), and receives peer i's as 2 holed items (ints 0, 2, 3 and 5 of its block), 4
 * MPI_INT or one mat2 (by i); and of MPI_INT alone it is MPI_Alltoallv. */
static void alltoallw(void) {
  const size_t n = (size_t)size;
  int *sc = conf_alloc(n * sizeof(int)), *sd = conf_alloc(n * sizeof(int));
  int *rc = conf_alloc(n * sizeof(int)), *rd = conf_alloc(n * sizeof(int));
  MPI_Datatype *st = conf_alloc(n * sizeof(MPI_Datatype)), *rt = conf_alloc(n * sizeof(MPI_Datatype));
  static const int holed_at[4] = {0, 2, 3, 5}, plain_at[4] = {0, 1, 2, 3};
  for (int i = 0; i < size; ++i) {
    const int as_matrix = (rank + i) % 2;
    sc[i] = as_matrix ? 1 : 4;
    st[i] = as_matrix ? mat2 : MPI_INT;
    sd[i] = i * 5 * (int)sizeof(int);
    rc[i] = i % 3 == 0 ? 2 : i % 3 == 1 ? 4 : 1;
    rt[i] = i % 3 == 0 ? holed : i % 3 == 1 ? MPI_INT : mat2;
    rd[i] = i * 7 * (int)sizeof(int);
  }
  for (int m = BLOCKING; m <= PERSISTENT; ++m) {
    MPI_Request r = MPI_REQUEST_NULL;
    if (m == PERSISTENT) {
      CHECK_MPI(MPI_Alltoallw_init(in, sc, sd, st, out, rc, rd, rt, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r));
    }
    for (int k = 0; k < (m == PERSISTENT ? 2 : 1); ++k) {
      for (int i = 0; i < cap; ++i) out[i] = -7;
      for (int i = 0; i < size; ++i) {
        for (int e = 0; e < 4; ++e) in[i * 5 + e] = rank * 100 + i * 10 + e;
      }
      if (m == BLOCKING) {
        CHECK_MPI(MPI_Alltoallw(in, sc, sd, st, out, rc, rd, rt, MPI_COMM_WORLD));
      } else {
        if (m == NONBLOCKING) {
          CHECK_MPI(MPI_Ialltoallw(in, sc, sd, st, out, rc, rd, rt, MPI_COMM_WORLD, &r));
        } else {
          CHECK_MPI(MPI_Start(&r));
        }
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      }
      for (int i = 0; i < size; ++i) {
        const int* at = i % 3 == 0 ? holed_at : plain_at;
        for (int e = 0; e < 4; ++e) {
          const int v = out[i * 7 + at[e]];
          CHECK(v == i * 100 + rank * 10 + e, "alltoallw (%d): from %d, int %d is %d", m, i, e, v);
        }
        if (i % 3 == 0) CHECK(out[i * 7 + 1] == -7, "alltoallw (%d): a hole written", m);
        CHECK(out[i * 7 + 6] == -7, "alltoallw (%d): beyond block %d written", m, i);
      }
    }
    if (m == PERSISTENT) CHECK_MPI(MPI_Request_free(&r));
  }
  /* Of MPI_INT alone, in bytes: MPI_Alltoallv's result. */
  for (int i = 0; i < size; ++i) {
    sc[i] = (rank + i) % 3;
    rc[i] = (i + rank) % 3;
    st[i] = rt[i] = MPI_INT;
    sd[i] = i * 3 * (int)sizeof(int);
    rd[i] = i * 4 * (int)sizeof(int);
  }
  int *vs = conf_alloc(n * sizeof(int)), *vr = conf_alloc(n * sizeof(int));
  for (int i = 0; i < size; ++i) {
    vs[i] = i * 3;
    vr[i] = i * 4;
  }
  DRIVE("alltoallw of MPI_INT", "MPI_COMM_WORLD", 0, 0, FILL2,
        MPI_Alltoallv(in, sc, vs, MPI_INT, out, rc, vr, MPI_INT, MPI_COMM_WORLD),
        MPI_Ialltoallw(in, sc, sd, st, out, rc, rd, rt, MPI_COMM_WORLD, &r_),
        MPI_Alltoallw_init(in, sc, sd, st, out, rc, rd, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &r_),
        out, 4 * size);
  free(vs);
  free(vr);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
  free(st);
  free(rt);
}

/* Eight collectives outstanding on one communicator with point-to-point requests beside them,
 * completed in an order that depends on the rank and on `how`. */
enum { OUTSTANDING = 8, SLOTS = OUTSTANDING + 2 };
static void many(int how) {
  const int n = 3;
  int* b[OUTSTANDING];
  for (int k = 0; k < OUTSTANDING; ++k) b[k] = conf_alloc((size_t)(n * size + 8) * sizeof(int));
  int mine[3] = {rank, rank + 1, rank + 2}, ring_in = -1, ring_out = 1000 + rank;
  for (int k = 0; k < OUTSTANDING; ++k) memset(b[k], 0xff, (size_t)(n * size + 8) * sizeof(int));
  for (int i = 0; i < n; ++i) b[0][i] = rank == 0 ? 40 + i : -1;
  for (int i = 0; i < n; ++i) b[4][i] = rank == size - 1 ? 70 + i : -1;
  MPI_Request r[SLOTS];
  CHECK_MPI(MPI_Ibcast(b[0], n, MPI_INT, 0, MPI_COMM_WORLD, &r[0]));
  CHECK_MPI(MPI_Iallreduce(mine, b[1], n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]));
  CHECK_MPI(MPI_Iallgather(mine, n, MPI_INT, b[2], n, MPI_INT, MPI_COMM_WORLD, &r[2]));
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r[3]));
  CHECK_MPI(MPI_Ibcast(b[4], n, MPI_INT, size - 1, MPI_COMM_WORLD, &r[4]));
  CHECK_MPI(MPI_Iscan(mine, b[5], n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[5]));
  CHECK_MPI(MPI_Ireduce(mine, b[6], n, MPI_INT, MPI_MAX, size / 2, MPI_COMM_WORLD, &r[6]));
  CHECK_MPI(MPI_Ialltoall(mine, 0, MPI_INT, b[7], 0, MPI_INT, MPI_COMM_WORLD, &r[7]));
  CHECK_MPI(MPI_Irecv(&ring_in, 1, MPI_INT, (rank + size - 1) % size, 9, MPI_COMM_WORLD, &r[8]));
  CHECK_MPI(MPI_Isend(&ring_out, 1, MPI_INT, (rank + 1) % size, 9, MPI_COMM_WORLD, &r[9]));
  if (how == 0) {
    /* Waitall over an array shuffled by rank. */
    MPI_Request shuffled[SLOTS];
    for (int k = 0; k < SLOTS; ++k) shuffled[k] = r[(k * 7 + rank * 3) % SLOTS];
    CHECK_MPI(MPI_Waitall(SLOTS, shuffled, MPI_STATUSES_IGNORE));
    for (int k = 0; k < SLOTS; ++k) {
      CHECK(shuffled[k] == MPI_REQUEST_NULL, "Waitall left request %d", k);
      r[k] = MPI_REQUEST_NULL;
    }
  } else if (how == 1) {
    for (int left = SLOTS; left > 0; --left) {
      int index = -1;
      CHECK_MPI(MPI_Waitany(SLOTS, r, &index, MPI_STATUS_IGNORE));
      CHECK(index >= 0 && index < SLOTS && r[index] == MPI_REQUEST_NULL, "Waitany index %d",
            index);
    }
  } else if (how == 2) {
    /* Each in turn by a loop of tests, starting from a rank-dependent one. */
    for (int k = 0; k < SLOTS; ++k) {
      MPI_Request* q = &r[(k + rank) % SLOTS];
      int flag = 0;
      while (!flag) {
        int done = 0;
        CHECK_MPI(MPI_Request_get_status(*q, &done, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Test(q, &flag, MPI_STATUS_IGNORE));
        if (done) CHECK(flag, "MPI_Test after MPI_Request_get_status said done: %d", flag);
      }
    }
  } else if (how == 3) {
    int left = SLOTS;
    while (left > 0) {
      int outcount = 0, indices[SLOTS];
      CHECK_MPI(MPI_Waitsome(SLOTS, r, &outcount, indices, MPI_STATUSES_IGNORE));
      CHECK(outcount >= 1 && outcount <= left, "Waitsome outcount %d of %d", outcount, left);
      left -= outcount;
    }
  } else {
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Testall(SLOTS, r, &flag, MPI_STATUSES_IGNORE));
    int index = 0, outcount = 0;
    CHECK_MPI(MPI_Testany(SLOTS, r, &index, &flag, MPI_STATUS_IGNORE));
    CHECK(flag && index == MPI_UNDEFINED, "Testany of inactive requests: %d %d", flag, index);
    CHECK_MPI(MPI_Testsome(SLOTS, r, &outcount, &index, MPI_STATUSES_IGNORE));
    CHECK(outcount == MPI_UNDEFINED, "Testsome of inactive requests: %d", outcount);
  }
  for (int k = 0; k < SLOTS; ++k) CHECK(r[k] == MPI_REQUEST_NULL, "request %d left", k);
  for (int i = 0; i < n; ++i) {
    CHECK(b[0][i] == 40 + i, "how %d: Ibcast from 0: %d", how, b[0][i]);
    CHECK(b[1][i] == size * (size - 1) / 2 + i * size, "how %d: Iallreduce: %d", how, b[1][i]);
    CHECK(b[4][i] == 70 + i, "how %d: Ibcast from p - 1: %d", how, b[4][i]);
    CHECK(b[5][i] == rank * (rank + 1) / 2 + i * (rank + 1), "how %d: Iscan: %d", how, b[5][i]);
    if (rank == size / 2) CHECK(b[6][i] == size - 1 + i, "how %d: Ireduce: %d", how, b[6][i]);
    for (int q = 0; q < size; ++q) {
      CHECK(b[2][q * n + i] == q + i, "how %d: Iallgather block %d: %d", how, q, b[2][q * n + i]);
    }
  }
  CHECK(ring_in == 1000 + (rank + size - 1) % size, "how %d: ring message %d", how, ring_in);
  for (int k = 0; k < OUTSTANDING; ++k) free(b[k]);
}

/* Point-to-point work between MPI_Ibcast and MPI_Wait; persistent collectives by
 * MPI_Startall; a collective's request freed while active. */
static void overlap(void) {
  enum { N = 1000 };
  int* data = conf_alloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) data[i] = rank == 0 ? i * 3 : -1;
  MPI_Request r;
  CHECK_MPI(MPI_Ibcast(data, N, MPI_INT, 0, MPI_COMM_WORLD, &r));
  int token = rank, from = -1;
  for (int k = 0; k < 5; ++k) {
    CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, k, &from, 1, MPI_INT,
                           (rank + size - 1) % size, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    token = from;
  }
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int i = 0; i < N; ++i) {
    if (data[i] != i * 3) {
      CHECK(0, "Ibcast around point-to-point work: int %d is %d", i, data[i]);
      break;
    }
  }
  CHECK(token == ((rank - 5) % size + size) % size, "the ring's token %d", token);

  /* A chain of blocking receives (rank r waits in MPI_Recv for rank r + 1, which sends once its
   * MPI_Ibcast has completed): a rank blocked in MPI_Recv still forwards the broadcast. */
  for (int i = 0; i < N; ++i) data[i] = rank == 0 ? i + 11 : -1;
  CHECK_MPI(MPI_Ibcast(data, N, MPI_INT, 0, MPI_COMM_WORLD, &r));
  int link = -1;
  if (rank + 1 < size) {
    CHECK_MPI(MPI_Recv(&link, 1, MPI_INT, rank + 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(link == rank + 1, "the chain's message %d", link);
  }
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  if (rank > 0) CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, rank - 1, 77, MPI_COMM_WORLD));
  CHECK(data[N - 1] == N + 10, "Ibcast across blocking receives: %d", data[N - 1]);

  /* The same chain with MPI_Sendrecv (its send to MPI_PROC_NULL): a rank blocked in it still
   * forwards the broadcast. */
  for (int i = 0; i < N; ++i) data[i] = rank == 0 ? i + 12 : -1;
  CHECK_MPI(MPI_Ibcast(data, N, MPI_INT, 0, MPI_COMM_WORLD, &r));
  link = -1;
  if (rank + 1 < size) {
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, MPI_PROC_NULL, 78, &link, 1, MPI_INT, rank + 1, 78,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(link == rank + 1, "the Sendrecv chain's message %d", link);
  }
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  if (rank > 0) CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, rank - 1, 78, MPI_COMM_WORLD));
  CHECK(data[N - 1] == N + 11, "Ibcast across MPI_Sendrecv: %d", data[N - 1]);

  int sum = 0, one = 1, seen[2] = {0, 0};
  MPI_Request pr[2];
  CHECK_MPI(MPI_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                               &pr[0]));
  CHECK_MPI(MPI_Bcast_init(seen, 2, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &pr[1]));
  for (int k = 0; k < 3; ++k) {
    sum = 0;
    one = k + 1;
    if (rank == size - 1) {
      seen[0] = k;
      seen[1] = -k;
    }
    CHECK_MPI(MPI_Startall(2, pr));
    CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
    CHECK(sum == size * (k + 1), "start %d: Allreduce_init gave %d", k, sum);
    CHECK(seen[0] == k && seen[1] == -k, "start %d: Bcast_init gave %d %d", k, seen[0], seen[1]);
  }
  /* Persistent collectives made in one order may be started in any (MPI-4.1 6.13): odd ranks
   * start the two the other way round, one MPI_Start at a time. */
  for (int k = 0; k < 2; ++k) {
    sum = 0;
    one = 10 + k;
    if (rank == size - 1) seen[0] = seen[1] = 40 + k;
    const int first = rank % 2;
    CHECK_MPI(MPI_Start(&pr[first]));
    CHECK_MPI(MPI_Start(&pr[1 - first]));
    CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
    CHECK(sum == size * (10 + k), "started in rank order %d: Allreduce_init gave %d", first, sum);
    CHECK(seen[0] == 40 + k && seen[1] == 40 + k, "started in rank order %d: Bcast_init gave %d",
          first, seen[0]);
  }
  CHECK_MPI(MPI_Request_free(&pr[0]));
  CHECK_MPI(MPI_Request_free(&pr[1]));

  /* Freeing a collective's request in flight is erroneous (MPI-4.1 6.12): vmc says so (an
   * error of class MPI_ERR_REQUEST), and the request stays, to be completed. */
  int early[4] = {rank == 1 % size ? 5 : 0, 0, 0, 0};
  CHECK_MPI(MPI_Ibcast(early, 4, MPI_INT, 1 % size, MPI_COMM_WORLD, &r));
#ifdef VMC_MPI_H
  int rc = MPI_Request_free(&r), error_class = MPI_SUCCESS;
  MPI_Error_class(rc, &error_class);
  CHECK(error_class == MPI_ERR_REQUEST, "MPI_Request_free of an MPI_Ibcast in flight: %d", rc);
#endif
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(early[0] == 5, "MPI_Ibcast after a refused MPI_Request_free: %d", early[0]);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  free(data);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Type_contiguous(4, MPI_INT, &mat2);
  MPI_Type_commit(&mat2);
  MPI_Datatype v;
  MPI_Type_vector(2, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 3 * (MPI_Aint)sizeof(int), &holed);
  MPI_Type_commit(&holed);
  MPI_Type_free(&v);
  MPI_Op_create(product, 0, &matmul);
  MPI_Op_create(holed_sum, 1, &holed_plus);
  cap = 48 * size + 64;
  in = conf_alloc((size_t)cap * sizeof(int));
  out = conf_alloc((size_t)cap * sizeof(int));
  for (int m = 0; m < 3; ++m) got[m] = conf_alloc((size_t)cap * sizeof(int));

  conf_comm comms[CONF_NCOMMS];
  conf_make_comms(comms);
  const int counts[] = {0, 1, 3, 7};
  for (int k = 0; k < CONF_NCOMMS; ++k) {
    int n = 1;
    MPI_Comm_size(comms[k].comm, &n);
    DRIVE("barrier", comms[k].name, 0, 0, (void)0, MPI_Barrier(comms[k].comm),
          MPI_Ibarrier(comms[k].comm, &r_), MPI_Barrier_init(comms[k].comm, MPI_INFO_NULL, &r_),
          out, 0);
    /* Every root at count 3 on MPI_COMM_WORLD, the first and the last elsewhere. */
    for (int c = 0; c < 4; ++c) {
      if (size > 16 && (c == 0 || c == 2 || (k > 0 && c == 3))) continue; /* large p: fewer */
      for (int root = 0; root < n; ++root) {
        const int ends = root == 0 || root == n - 1;
        const int some = root == 1 || root == n / 2; /* above 16 ranks, the roots tried */
        if (!ends && (k > 0 || counts[c] != 3 || (size > 16 && !some))) continue;
        rooted(comms[k].comm, comms[k].name, counts[c], root, MPI_INT);
        reductions(comms[k].comm, comms[k].name, counts[c], root, MPI_INT, MPI_SUM);
        if (k == 0) reductions(comms[k].comm, comms[k].name, counts[c], root, mat2, matmul);
        if (ends) all_forms(comms[k].comm, comms[k].name, counts[c], root, MPI_INT);
      }
    }
  }
  /* A derived type with holes, every root on MPI_COMM_WORLD. */
  for (int root = 0; root < size; root += size > 4 ? size / 4 : 1) {
    rooted(MPI_COMM_WORLD, "MPI_COMM_WORLD", 3, root, holed);
    reductions(MPI_COMM_WORLD, "MPI_COMM_WORLD", 2, root, holed, holed_plus);
  }
  all_forms(MPI_COMM_WORLD, "MPI_COMM_WORLD", 2, 0, holed);
  reductions(MPI_COMM_WORLD, "MPI_COMM_WORLD", 2, 0, MPI_INT, MPI_MAX);
  alltoallw();
  /* The test loops (how 2 and 4) at large p take long: the waits there. */
  for (int how = 0; how < 5; ++how) {
    if (size <= 16 || how % 2 == 1 || how == 0) many(how);
  }
  overlap();

  conf_free_comms(comms);
  MPI_Op_free(&matmul);
  MPI_Op_free(&holed_plus);
  MPI_Type_free(&mat2);
  MPI_Type_free(&holed);
  free(in);
  free(out);
  for (int m = 0; m < 3; ++m) free(got[m]);
  return conf_finish();
}
