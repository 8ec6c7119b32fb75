/* The nonblocking and persistent collectives on intercommunicators (MPI-4.1 6.2.2, 6.12 and
 * 6.13): the I and _init forms of barrier, bcast, reduce (MPI_SUM and a non-commutative user
 * op), allreduce, gather(v), scatter(v), allgather(v), alltoall(v, w), reduce_scatter and
 * reduce_scatter_block, on intercommunicators of unequal groups (the world's halves, which
 * differ by one at odd p, and its last rank against the rest). The rooted ones run with every
 * root of both groups (MPI_ROOT at the root, MPI_PROC_NULL at its group's others, the root's
 * rank in the other group). Every receive buffer is held, element by element and the filler
 * around the blocks too, to the blocking form's on the same data (Ialltoallw's to
 * MPI_Alltoallv's). The nonblocking calls of a root are all outstanding at once and completed
 * in reverse order; the persistent ones are started together by MPI_Startall twice, with new
 * data in between, and completed by MPI_Waitall. MPI_Iscan on one is MPI_ERR_COMM. At p = 1
 * there are no two groups: nothing runs. */
#include "conformance.h"

static int wrank, wsize;

enum { ROOTED = 7, ALL = 10, OPS = ROOTED + ALL };

/* The intercommunicator's shape, as this rank sees it. */
static int nl, nr, lrank;
static int cap; /* ints in each buffer */

/* A non-commutative op on pairs of ints (a, b), the map x -> a x + b mod 1009: in o inout is
 * inout after in (composition in rank order). */
static void compose(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  int* a = in;
  int* b = inout;
  for (int i = 0; i + 1 < *len; i += 2) {
    const long x0 = a[i], x1 = a[i + 1], y0 = b[i], y1 = b[i + 1];
    b[i] = (int)(y0 * x0 % 1009);
    b[i + 1] = (int)((y0 * x1 + y1) % 1009);
  }
}
static MPI_Op affine;

static const char* names[OPS] = {
    "bcast",     "reduce",         "reduce (user op)", "gather",    "gatherv",
    "scatter",   "scatterv",       "barrier",          "allreduce", "allreduce (user op)",
    "allgather", "allgatherv",     "alltoall",         "alltoallv", "alltoallw",
    "reduce_scatter", "reduce_scatter_block"};

/* The counts and displacements of the v forms: remote block j has j % 3 + 1 items, a gap of
 * one after each; alltoallv's block between local rank a and remote rank b has (a + b) % 3
 * items on both sides. */
typedef struct {
  int rc[64], rd[64];            /* per remote rank: gatherv, scatterv, allgatherv */
  int sc[64], sd[64], ac[64], ad[64];  /* alltoallv: send and receive */
  int sdb[64], adb[64];          /* the same in bytes (alltoallw) */
  MPI_Datatype types[64];
  int lc[64];                    /* reduce_scatter: per local rank */
  int block;                     /* reduce_scatter_block's count */
} layout;

static void make_layout(layout* l) {
  int at = 0;
  for (int j = 0; j < nr; ++j) {
    l->rc[j] = j % 3 + 1;
    l->rd[j] = at;
    at += l->rc[j] + 1;
  }
  int s = 0, a = 0;
  for (int j = 0; j < nr; ++j) {
    l->sc[j] = l->ac[j] = (lrank + j) % 3;
    l->sd[j] = s;
    l->ad[j] = a;
    l->sdb[j] = s * (int)sizeof(int);
    l->adb[j] = a * (int)sizeof(int);
    l->types[j] = MPI_INT;
    s += l->sc[j] + 1;
    a += l->ac[j] + 2;
  }
  /* The reduced vector: nl * nr items in both groups; reduce_scatter's blocks uneven. */
  for (int i = 0; i < nl; ++i) l->lc[i] = nr;
  if (nl > 1 && nr > 0) {
    l->lc[0] += 1;
    l->lc[nl - 1] -= 1;
  }
  l->block = nr;
}

static void fill(int* in, int op, int seed) {
  for (int i = 0; i < cap; ++i) in[i] = ((wrank * 37 + op * 5 + seed) * 11 + i) % 1000 + 1;
}
static void clear(int* out) {
  for (int i = 0; i < cap; ++i) out[i] = -7;
}

/* Operation `op` in form `form` (0 blocking, 1 nonblocking, 2 persistent), root `root` for
 * the rooted ones. Bcast's buffer is `out` (filled from `in` at the root). */
static void call(MPI_Comm ic, int op, int form, int root, int* in, int* out, const layout* l,
                 MPI_Request* r) {
  MPI_Info no = MPI_INFO_NULL;
  const MPI_Op user = affine;
#define FORMS(B, I, P) \
  do {                 \
    if (form == 0) CHECK_MPI(B);      \
    if (form == 1) CHECK_MPI(I);      \
    if (form == 2) CHECK_MPI(P);      \
  } while (0)
  switch (op) {
    case 0:
      if (root == MPI_ROOT) memcpy(out, in, sizeof(int) * 5);
      FORMS(MPI_Bcast(out, 5, MPI_INT, root, ic), MPI_Ibcast(out, 5, MPI_INT, root, ic, r),
            MPI_Bcast_init(out, 5, MPI_INT, root, ic, no, r));
      break;
    case 1:
      FORMS(MPI_Reduce(in, out, 3, MPI_INT, MPI_SUM, root, ic),
            MPI_Ireduce(in, out, 3, MPI_INT, MPI_SUM, root, ic, r),
            MPI_Reduce_init(in, out, 3, MPI_INT, MPI_SUM, root, ic, no, r));
      break;
    case 2:
      FORMS(MPI_Reduce(in, out, 4, MPI_INT, user, root, ic),
            MPI_Ireduce(in, out, 4, MPI_INT, user, root, ic, r),
            MPI_Reduce_init(in, out, 4, MPI_INT, user, root, ic, no, r));
      break;
    case 3:
      FORMS(MPI_Gather(in, 2, MPI_INT, out, 2, MPI_INT, root, ic),
            MPI_Igather(in, 2, MPI_INT, out, 2, MPI_INT, root, ic, r),
            MPI_Gather_init(in, 2, MPI_INT, out, 2, MPI_INT, root, ic, no, r));
      break;
    case 4:
      FORMS(MPI_Gatherv(in, lrank % 3 + 1, MPI_INT, out, l->rc, l->rd, MPI_INT, root, ic),
            MPI_Igatherv(in, lrank % 3 + 1, MPI_INT, out, l->rc, l->rd, MPI_INT, root, ic, r),
            MPI_Gatherv_init(in, lrank % 3 + 1, MPI_INT, out, l->rc, l->rd, MPI_INT, root, ic,
                             no, r));
      break;
    case 5:
      FORMS(MPI_Scatter(in, 2, MPI_INT, out, 2, MPI_INT, root, ic),
            MPI_Iscatter(in, 2, MPI_INT, out, 2, MPI_INT, root, ic, r),
            MPI_Scatter_init(in, 2, MPI_INT, out, 2, MPI_INT, root, ic, no, r));
      break;
    case 6:
      FORMS(MPI_Scatterv(in, l->rc, l->rd, MPI_INT, out, lrank % 3 + 1, MPI_INT, root, ic),
            MPI_Iscatterv(in, l->rc, l->rd, MPI_INT, out, lrank % 3 + 1, MPI_INT, root, ic, r),
            MPI_Scatterv_init(in, l->rc, l->rd, MPI_INT, out, lrank % 3 + 1, MPI_INT, root, ic,
                              no, r));
      break;
    case 7:
      FORMS(MPI_Barrier(ic), MPI_Ibarrier(ic, r), MPI_Barrier_init(ic, no, r));
      break;
    case 8:
      FORMS(MPI_Allreduce(in, out, 3, MPI_INT, MPI_SUM, ic),
            MPI_Iallreduce(in, out, 3, MPI_INT, MPI_SUM, ic, r),
            MPI_Allreduce_init(in, out, 3, MPI_INT, MPI_SUM, ic, no, r));
      break;
    case 9:
      FORMS(MPI_Allreduce(in, out, 6, MPI_INT, user, ic),
            MPI_Iallreduce(in, out, 6, MPI_INT, user, ic, r),
            MPI_Allreduce_init(in, out, 6, MPI_INT, user, ic, no, r));
      break;
    case 10:
      FORMS(MPI_Allgather(in, 2, MPI_INT, out, 2, MPI_INT, ic),
            MPI_Iallgather(in, 2, MPI_INT, out, 2, MPI_INT, ic, r),
            MPI_Allgather_init(in, 2, MPI_INT, out, 2, MPI_INT, ic, no, r));
      break;
    case 11:
      FORMS(MPI_Allgatherv(in, lrank % 3 + 1, MPI_INT, out, l->rc, l->rd, MPI_INT, ic),
            MPI_Iallgatherv(in, lrank % 3 + 1, MPI_INT, out, l->rc, l->rd, MPI_INT, ic, r),
            MPI_Allgatherv_init(in, lrank % 3 + 1, MPI_INT, out, l->rc, l->rd, MPI_INT, ic, no,
                                r));
      break;
    case 12:
      FORMS(MPI_Alltoall(in, 2, MPI_INT, out, 2, MPI_INT, ic),
            MPI_Ialltoall(in, 2, MPI_INT, out, 2, MPI_INT, ic, r),
            MPI_Alltoall_init(in, 2, MPI_INT, out, 2, MPI_INT, ic, no, r));
      break;
    case 13:
      FORMS(MPI_Alltoallv(in, l->sc, l->sd, MPI_INT, out, l->ac, l->ad, MPI_INT, ic),
            MPI_Ialltoallv(in, l->sc, l->sd, MPI_INT, out, l->ac, l->ad, MPI_INT, ic, r),
            MPI_Alltoallv_init(in, l->sc, l->sd, MPI_INT, out, l->ac, l->ad, MPI_INT, ic, no,
                               r));
      break;
    case 14: /* held to alltoallv's result */
      FORMS(MPI_Alltoallv(in, l->sc, l->sd, MPI_INT, out, l->ac, l->ad, MPI_INT, ic),
            MPI_Ialltoallw(in, l->sc, l->sdb, l->types, out, l->ac, l->adb, l->types, ic, r),
            MPI_Alltoallw_init(in, l->sc, l->sdb, l->types, out, l->ac, l->adb, l->types, ic,
                               no, r));
      break;
    case 15:
      FORMS(MPI_Reduce_scatter(in, out, l->lc, MPI_INT, MPI_SUM, ic),
            MPI_Ireduce_scatter(in, out, l->lc, MPI_INT, MPI_SUM, ic, r),
            MPI_Reduce_scatter_init(in, out, l->lc, MPI_INT, MPI_SUM, ic, no, r));
      break;
    default:
      FORMS(MPI_Reduce_scatter_block(in, out, l->block, MPI_INT, MPI_SUM, ic),
            MPI_Ireduce_scatter_block(in, out, l->block, MPI_INT, MPI_SUM, ic, r),
            MPI_Reduce_scatter_block_init(in, out, l->block, MPI_INT, MPI_SUM, ic, no, r));
  }
#undef FORMS
}

static void compare(const char* scheme, int op, const char* form, int root, const int* got,
                    const int* want) {
  for (int i = 0; i < cap; ++i) {
    if (got[i] != want[i]) {
      CHECK(got[i] == want[i], "%s: %s %s, root %d: element %d is %d, the blocking form's %d",
            scheme, form, names[op], root, i, got[i], want[i]);
      return;
    }
  }
}

/* Operations first .. first + n - 1 with root `root`: the blocking forms, then the
 * nonblocking ones all outstanding (completed in reverse order), then the persistent ones
 * started twice. */
static void batch(MPI_Comm ic, const char* scheme, int first, int n, int root, const layout* l,
                  int* in, int* want, int* got) {
  MPI_Request r[OPS];
  for (int k = 0; k < n; ++k) {
    const int op = first + k;
    fill(in + k * cap, op, root + 3);
    clear(want + k * cap);
    clear(got + k * cap);
    call(ic, op, 0, root, in + k * cap, want + k * cap, l, NULL);
  }
  for (int k = 0; k < n; ++k) call(ic, first + k, 1, root, in + k * cap, got + k * cap, l, &r[k]);
  for (int k = n - 1; k >= 0; --k) CHECK_MPI(MPI_Wait(&r[k], MPI_STATUS_IGNORE));
  for (int k = 0; k < n; ++k) compare(scheme, first + k, "nonblocking", root, got + k * cap,
                                      want + k * cap);

  for (int k = 0; k < n; ++k) call(ic, first + k, 2, root, in + k * cap, got + k * cap, l, &r[k]);
  for (int start = 0; start < 2; ++start) {
    for (int k = 0; k < n; ++k) {
      const int op = first + k;
      fill(in + k * cap, op, root + 40 + start);
      clear(want + k * cap);
      call(ic, op, 0, root, in + k * cap, want + k * cap, l, NULL);
      clear(got + k * cap);
      if (op == 0 && root == MPI_ROOT) memcpy(got + k * cap, in + k * cap, sizeof(int) * 5);
    }
    CHECK_MPI(MPI_Startall(n, r));
    CHECK_MPI(MPI_Waitall(n, r, MPI_STATUSES_IGNORE));
    for (int k = 0; k < n; ++k) compare(scheme, first + k, "persistent", root, got + k * cap,
                                        want + k * cap);
  }
  for (int k = 0; k < n; ++k) CHECK_MPI(MPI_Request_free(&r[k]));
}

/* The group of world rank w: the upper half, or the last rank alone. */
static int group_of(const char* scheme, int w) {
  return strcmp(scheme, "halves") == 0 ? w >= wsize / 2 : w == wsize - 1;
}

static void scheme(const char* name, int tag) {
  MPI_Comm local, ic;
  const int mine = group_of(name, wrank);
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, mine, wrank, &local));
  /* The other group's leader: its lowest world rank. */
  int leader = -1;
  for (int w = 0; w < wsize && leader < 0; ++w) {
    if (group_of(name, w) != mine) leader = w;
  }
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, leader, tag, &ic));
  CHECK_MPI(MPI_Comm_free(&local));
  MPI_Comm_size(ic, &nl);
  MPI_Comm_remote_size(ic, &nr);
  MPI_Comm_rank(ic, &lrank);
  cap = 4 * (nl + 2) * (nr + 2) + 32;
  layout l;
  make_layout(&l);
  int* in = conf_alloc(sizeof(int) * (size_t)(OPS * cap));
  int* want = conf_alloc(sizeof(int) * (size_t)(OPS * cap));
  int* got = conf_alloc(sizeof(int) * (size_t)(OPS * cap));

  /* Every root of each group, in the same order on every rank. */
  int lsize[2];
  lsize[mine] = nl;
  lsize[1 - mine] = nr;
  for (int g = 0; g < 2; ++g) {
    for (int rr = 0; rr < lsize[g]; ++rr) {
      const int root = g == mine ? (rr == lrank ? MPI_ROOT : MPI_PROC_NULL) : rr;
      batch(ic, name, 0, ROOTED, root, &l, in, want, got);
    }
  }
  batch(ic, name, ROOTED, ALL, 0, &l, in, want, got);

  /* No scan on an intercommunicator. */
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  MPI_Request q = MPI_REQUEST_NULL;
  int rc = MPI_Iscan(in, got, 1, MPI_INT, MPI_SUM, ic, &q);
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COMM, "%s: MPI_Iscan on an intercommunicator: class %d", name, cls);

  CHECK_MPI(MPI_Comm_free(&ic));
  free(in);
  free(want);
  free(got);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  MPI_Op_create(compose, 0, &affine);
  if (wsize >= 2) {
    scheme("halves", 31);
    scheme("last vs rest", 32);
  }
  MPI_Op_free(&affine);
  return conf_finish();
}
