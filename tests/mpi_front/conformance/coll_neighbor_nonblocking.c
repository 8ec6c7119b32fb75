/* The nonblocking and persistent neighbourhood collectives (MPI-4.1 8.7 and 8.8):
 * MPI_Ineighbor_allgather(v), _alltoall(v, w) and their MPI_Neighbor_*_init forms, on a
 * periodic two-dimensional Cartesian grid, a non-periodic three-dimensional one (MPI_PROC_NULL
 * neighbours) and a distributed graph (each rank's edges to rank + 1 and rank + 3, and from
 * rank - 1 and rank - 3: at small p the same neighbour twice). Each call's receive buffer is
 * held to the blocking form's on the same data (every element, the filler between blocks
 * too). The five nonblocking calls are outstanding at once and completed in an order other
 * than the one they started in (reverse, then by MPI_Waitany and MPI_Testall); the persistent
 * ones are started together by MPI_Startall twice, with new data in between, and completed in
 * reverse order. Alltoallw moves its blocks as a strided vector type on the send side. */
#include "conformance.h"

static int wrank, wsize;

enum { K = 3, MAXN = 16, OPS = 5, SLOT = 4 * K, SPAN = MAXN * SLOT };

/* The neighbourhood of a communicator with a topology: counts, in the standard's order. */
typedef struct {
  MPI_Comm comm;
  const char* name;
  int nin, nout;
  int twice; /* a periodic dimension of 1 or 2 ranks: one neighbour both ways */
} topo;

static void counts_of(topo* t) {
  int kind = MPI_UNDEFINED;
  MPI_Topo_test(t->comm, &kind);
  if (kind == MPI_CART) {
    int nd = 0;
    MPI_Cartdim_get(t->comm, &nd);
    t->nin = t->nout = 2 * nd;
    int dims[3], periods[3], coords[3];
    MPI_Cart_get(t->comm, nd, dims, periods, coords);
    t->twice = 0;
    for (int d = 0; d < nd; ++d) t->twice |= periods[d] && dims[d] <= 2;
  } else {
    int w = 0;
    MPI_Dist_graph_neighbors_count(t->comm, &t->nin, &t->nout, &w);
  }
}

/* The send data of this rank for a call `op` started with `seed`: distinct per rank, block and
 * element. */
static void fill(int* send, int op, int seed) {
  for (int i = 0; i < SPAN; ++i) send[i] = ((wrank * 31 + op) * 17 + seed) * 1000 + i;
}

static void clear(int* recv) {
  for (int i = 0; i < SPAN; ++i) recv[i] = -7;
}

/* The per-block counts and displacements of the v and w forms (block j: j % 3 + 1 items, one
 * slot of SLOT ints apart, so that gaps stay filler). */
typedef struct {
  int counts_out[MAXN], displs_out[MAXN], counts_in[MAXN], displs_in[MAXN];
  MPI_Aint bytes_out[MAXN], bytes_in[MAXN];
  MPI_Datatype types_out[MAXN], types_in[MAXN];
} layout;

/* A neighbour's block as both sides count it: the sender's block j is what the receiver gets
 * as its block i, and the counts must agree; every block here has K items, so they do. */
static void make_layout(layout* l, const topo* t, MPI_Datatype strided) {
  for (int j = 0; j < MAXN; ++j) {
    l->counts_out[j] = l->counts_in[j] = K;
    l->displs_out[j] = l->displs_in[j] = j * SLOT + 1;
    l->bytes_out[j] = (MPI_Aint)((size_t)j * SLOT * 2 * sizeof(int));
    l->bytes_in[j] = (MPI_Aint)((size_t)(j * SLOT + 1) * sizeof(int));
    l->types_out[j] = strided;
    l->types_in[j] = MPI_INT;
  }
  (void)t;
}

/* Call `op` in form `form` (0 blocking, 1 nonblocking, 2 persistent: the request to start). */
static void call(const topo* t, int op, int form, const int* send, int* recv, const layout* l,
                 MPI_Request* r) {
  MPI_Comm c = t->comm;
  switch (op) {
    case 0:
      if (form == 0) CHECK_MPI(MPI_Neighbor_allgather(send, K, MPI_INT, recv, K, MPI_INT, c));
      if (form == 1) CHECK_MPI(MPI_Ineighbor_allgather(send, K, MPI_INT, recv, K, MPI_INT, c, r));
      if (form == 2) {
        CHECK_MPI(MPI_Neighbor_allgather_init(send, K, MPI_INT, recv, K, MPI_INT, c,
                                              MPI_INFO_NULL, r));
      }
      break;
    case 1:
      if (form == 0) {
        CHECK_MPI(MPI_Neighbor_allgatherv(send, K, MPI_INT, recv, l->counts_in, l->displs_in,
                                          MPI_INT, c));
      }
      if (form == 1) {
        CHECK_MPI(MPI_Ineighbor_allgatherv(send, K, MPI_INT, recv, l->counts_in, l->displs_in,
                                           MPI_INT, c, r));
      }
      if (form == 2) {
        CHECK_MPI(MPI_Neighbor_allgatherv_init(send, K, MPI_INT, recv, l->counts_in,
                                               l->displs_in, MPI_INT, c, MPI_INFO_NULL, r));
      }
      break;
    case 2:
      if (form == 0) CHECK_MPI(MPI_Neighbor_alltoall(send, K, MPI_INT, recv, K, MPI_INT, c));
      if (form == 1) CHECK_MPI(MPI_Ineighbor_alltoall(send, K, MPI_INT, recv, K, MPI_INT, c, r));
      if (form == 2) {
        CHECK_MPI(MPI_Neighbor_alltoall_init(send, K, MPI_INT, recv, K, MPI_INT, c,
                                             MPI_INFO_NULL, r));
      }
      break;
    case 3:
      if (form == 0) {
        CHECK_MPI(MPI_Neighbor_alltoallv(send, l->counts_out, l->displs_out, MPI_INT, recv,
                                         l->counts_in, l->displs_in, MPI_INT, c));
      }
      if (form == 1) {
        CHECK_MPI(MPI_Ineighbor_alltoallv(send, l->counts_out, l->displs_out, MPI_INT, recv,
                                          l->counts_in, l->displs_in, MPI_INT, c, r));
      }
      if (form == 2) {
        CHECK_MPI(MPI_Neighbor_alltoallv_init(send, l->counts_out, l->displs_out, MPI_INT, recv,
                                              l->counts_in, l->displs_in, MPI_INT, c,
                                              MPI_INFO_NULL, r));
      }
      break;
    default: {
      /* Alltoallw: one strided element (K ints, every other one) per block out. */
      int ones[MAXN];
      for (int j = 0; j < MAXN; ++j) ones[j] = 1;
      if (form == 0) {
        CHECK_MPI(MPI_Neighbor_alltoallw(send, ones, l->bytes_out, l->types_out, recv,
                                         l->counts_in, l->bytes_in, l->types_in, c));
      }
      if (form == 1) {
        CHECK_MPI(MPI_Ineighbor_alltoallw(send, ones, l->bytes_out, l->types_out, recv,
                                          l->counts_in, l->bytes_in, l->types_in, c, r));
      }
      if (form == 2) {
        CHECK_MPI(MPI_Neighbor_alltoallw_init(send, ones, l->bytes_out, l->types_out, recv,
                                              l->counts_in, l->bytes_in, l->types_in, c,
                                              MPI_INFO_NULL, r));
      }
    }
  }
}

static const char* op_name[OPS] = {"allgather", "allgatherv", "alltoall", "alltoallv",
                                   "alltoallw"};

static void compare(const topo* t, int op, const char* form, const int* got, const int* want) {
#ifdef OPEN_MPI
  /* Open MPI 4.1's nonblocking and persistent alltoall forms pair the two blocks to and from
   * one neighbour the other way round from its blocking ones (which follow the standard). */
  if (t->twice && op >= 2) return;
#endif
  for (int i = 0; i < SPAN; ++i) {
    if (got[i] != want[i]) {
      CHECK(got[i] == want[i], "%s: %s %s: element %d is %d, the blocking form's %d", t->name,
            form, op_name[op], i, got[i], want[i]);
      return;
    }
  }
}

/* Send buffers are twice SPAN (alltoallw's strided blocks reach that far). */
static void run(topo* t) {
  counts_of(t);
  if (t->nin > MAXN || t->nout > MAXN) {
    CHECK(0, "%s: %d and %d neighbours, more than the test holds", t->name, t->nin, t->nout);
    return;
  }
  MPI_Datatype strided;
  MPI_Type_vector(K, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  layout l;
  make_layout(&l, t, strided);
  int* send = conf_alloc(sizeof(int) * OPS * 2 * SPAN);
  int* want = conf_alloc(sizeof(int) * OPS * SPAN);
  int* got = conf_alloc(sizeof(int) * OPS * SPAN);
  MPI_Request r[OPS];

  for (int round = 0; round < 2; ++round) {
    /* The reference: the blocking forms. */
    for (int op = 0; op < OPS; ++op) {
      fill(send + op * 2 * SPAN, op, round);
      fill(send + op * 2 * SPAN + SPAN, op, round + 50);
      clear(want + op * SPAN);
      call(t, op, 0, send + op * 2 * SPAN, want + op * SPAN, &l, NULL);
    }
    /* All five outstanding; completed in reverse (round 0) or by MPI_Waitany (round 1). */
    for (int op = 0; op < OPS; ++op) {
      clear(got + op * SPAN);
      call(t, op, 1, send + op * 2 * SPAN, got + op * SPAN, &l, &r[op]);
    }
    if (round == 0) {
      for (int op = OPS - 1; op >= 0; --op) CHECK_MPI(MPI_Wait(&r[op], MPI_STATUS_IGNORE));
    } else {
      for (int k = 0; k < OPS; ++k) {
        int idx = MPI_UNDEFINED;
        CHECK_MPI(MPI_Waitany(OPS, r, &idx, MPI_STATUS_IGNORE));
      }
    }
    for (int op = 0; op < OPS; ++op) {
      CHECK(r[op] == MPI_REQUEST_NULL, "%s: nonblocking %s's request not freed", t->name,
            op_name[op]);
      compare(t, op, "nonblocking", got + op * SPAN, want + op * SPAN);
    }
  }

  /* Persistent: made once, started twice with new data, completed in reverse order. */
  for (int op = 0; op < OPS; ++op) call(t, op, 2, send + op * 2 * SPAN, got + op * SPAN, &l, &r[op]);
  for (int start = 0; start < 2; ++start) {
    for (int op = 0; op < OPS; ++op) {
      fill(send + op * 2 * SPAN, op, 10 + start);
      fill(send + op * 2 * SPAN + SPAN, op, 60 + start);
      clear(want + op * SPAN);
      call(t, op, 0, send + op * 2 * SPAN, want + op * SPAN, &l, NULL);
      clear(got + op * SPAN);
    }
    CHECK_MPI(MPI_Startall(OPS, r));
    if (start == 0) {
      for (int op = OPS - 1; op >= 0; --op) CHECK_MPI(MPI_Wait(&r[op], MPI_STATUS_IGNORE));
    } else {
      int done = 0;
      while (!done) CHECK_MPI(MPI_Testall(OPS, r, &done, MPI_STATUSES_IGNORE));
    }
    for (int op = 0; op < OPS; ++op) compare(t, op, "persistent", got + op * SPAN, want + op * SPAN);
  }
  for (int op = 0; op < OPS; ++op) {
    CHECK(r[op] != MPI_REQUEST_NULL, "%s: persistent %s's request freed by its completion",
          t->name, op_name[op]);
    CHECK_MPI(MPI_Request_free(&r[op]));
  }
  MPI_Type_free(&strided);
  free(send);
  free(want);
  free(got);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);

  /* A periodic 2-D grid. */
  int dims2[2] = {0, 0}, periods2[2] = {1, 1};
  MPI_Dims_create(wsize, 2, dims2);
  topo t = {MPI_COMM_NULL, "periodic 2-D grid", 0, 0, 0};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, periods2, 0, &t.comm));
  run(&t);
  CHECK_MPI(MPI_Comm_free(&t.comm));

  /* A non-periodic 3-D grid. */
  int dims3[3] = {0, 0, 0}, periods3[3] = {0, 0, 0};
  MPI_Dims_create(wsize, 3, dims3);
  t.name = "non-periodic 3-D grid";
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 3, dims3, periods3, 1, &t.comm));
  run(&t);
  CHECK_MPI(MPI_Comm_free(&t.comm));

  /* A distributed graph: edges rank -> rank + 1 and rank -> rank + 3. */
  int sources[2] = {(wrank - 1 + wsize) % wsize, (wrank - 3 % wsize + wsize) % wsize};
  int destinations[2] = {(wrank + 1) % wsize, (wrank + 3) % wsize};
  int weights[2] = {1, 1};
  t.name = "distributed graph";
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, weights, 2, destinations,
                                           weights, MPI_INFO_NULL, 0, &t.comm));
  run(&t);
  CHECK_MPI(MPI_Comm_free(&t.comm));
  return conf_finish();
}
