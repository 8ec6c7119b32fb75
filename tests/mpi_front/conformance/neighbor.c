/* The neighbourhood collectives (MPI-4.1 8.6), blocking: MPI_Neighbor_allgather(v) and
 * MPI_Neighbor_alltoall(v, w) (under vmc also three of their _c forms), each block's data
 * checked, on Cartesian communicators of 1 to 3 dimensions (periodic, not, and mixed:
 * MPI_PROC_NULL neighbours take part as empty transfers, and a periodic dimension of 1 or 2
 * ranks, where the source and the destination are one rank, sends block s to block s ^ 1 as
 * the standard says), on graphs (a ring and a star) and on distributed graphs (the same,
 * directed, made by MPI_Dist_graph_create_adjacent); with a derived type on the send side (a
 * strided vector) received as plain ints, and per-block types in alltoallw; and a
 * neighbourhood collective on a communicator without a topology, an error. */
#include "conformance.h"

static int wrank, wsize;

enum { K = 3, MAXN = 64 };

/* A communicator with a topology and this rank's neighbours, in the standard's order. */
typedef struct {
  MPI_Comm comm;
  char name[96];
  int kind; /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
  int rank;
  int nin, nout;
  int in[MAXN], out[MAXN];
} topo;

/* The value element k of the block `sender` sends as its block j to `receiver`. */
static int value(int sender, int j, int receiver, int k) {
  return ((sender * 64 + j) * 64 + receiver) * K + k;
}

/* The index of the block in which `sender` sends to this rank what this rank receives as its
 * block i (Cartesian: s ^ 1; graphs: the sender's one edge to this rank). */
static int sent_as(const topo* t, int i) {
  if (t->kind == MPI_CART) return i ^ 1;
  const int sender = t->in[i];
  if (t->kind == MPI_GRAPH) {
    int n = 0, nb[MAXN];
    MPI_Graph_neighbors_count(t->comm, sender, &n);
    MPI_Graph_neighbors(t->comm, sender, MAXN, nb);
    for (int j = 0; j < n; ++j) {
      if (nb[j] == t->rank) return j;
    }
    return -1;
  }
  /* The distributed graphs here: a directed ring (each rank's one edge out) and a star (the
   * centre's destinations are 1..p-1 in order, a leaf's is the centre). */
  return sender == 0 ? t->rank - 1 : 0;
}

static void neighbours_of(topo* t) {
  MPI_Comm_rank(t->comm, &t->rank);
  if (t->kind == MPI_CART) {
    int nd = 0;
    MPI_Cartdim_get(t->comm, &nd);
    t->nin = t->nout = 2 * nd;
    for (int d = 0; d < nd; ++d) {
      int s = 0, e = 0;
      MPI_Cart_shift(t->comm, d, 1, &s, &e);
      t->in[2 * d] = t->out[2 * d] = s;
      t->in[2 * d + 1] = t->out[2 * d + 1] = e;
    }
  } else if (t->kind == MPI_GRAPH) {
    MPI_Graph_neighbors_count(t->comm, t->rank, &t->nin);
    MPI_Graph_neighbors(t->comm, t->rank, MAXN, t->in);
    t->nout = t->nin;
    memcpy(t->out, t->in, sizeof t->in);
  } else {
    int w = 0;
    MPI_Dist_graph_neighbors_count(t->comm, &t->nin, &t->nout, &w);
    MPI_Dist_graph_neighbors(t->comm, MAXN, t->in, MPI_UNWEIGHTED, MAXN, t->out, MPI_UNWEIGHTED);
  }
}

/* Checks block i of a receive buffer of ints: the sender's values (its one block when
 * `gathered`, else the block it sent this rank), or untouched filler from MPI_PROC_NULL. */
static void check_block(const topo* t, const char* call, const int* buf, int i, int count,
                        int gathered) {
  const int sender = t->in[i];
  for (int k = 0; k < count; ++k) {
    if (sender == MPI_PROC_NULL) {
      CHECK(buf[k] == -1, "%s on %s: block %d (MPI_PROC_NULL) element %d written: %d", call,
            t->name, i, k, buf[k]);
    } else {
      const int j = sent_as(t, i);
      const int expect = gathered ? value(sender, 0, 0, k) : value(sender, j, t->rank, k);
      CHECK(buf[k] == expect, "%s on %s: block %d from %d element %d is %d, expected %d", call,
            t->name, i, sender, k, buf[k], expect);
    }
  }
}

static void allgather(const topo* t) {
  int send[K], recv[MAXN * K];
  for (int k = 0; k < K; ++k) send[k] = value(t->rank, 0, 0, k);
  for (int i = 0; i < MAXN * K; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_allgather(send, K, MPI_INT, recv, K, MPI_INT, t->comm));
  for (int i = 0; i < t->nin; ++i) check_block(t, "MPI_Neighbor_allgather", recv + i * K, i, K, 1);
  /* The send side a strided vector of K ints (every other int), received as K ints. */
  int spread[2 * K];
  MPI_Datatype every_other;
  MPI_Type_vector(K, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  for (int k = 0; k < K; ++k) {
    spread[2 * k] = send[k];
    spread[2 * k + 1] = -7;
  }
  for (int i = 0; i < MAXN * K; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_allgather(spread, 1, every_other, recv, K, MPI_INT, t->comm));
  for (int i = 0; i < t->nin; ++i) check_block(t, "MPI_Neighbor_allgather", recv + i * K, i, K, 1);
  MPI_Type_free(&every_other);
#ifdef VMC_MPI_H /* the large-count forms (MPI-4.0; Open MPI 4.1 has none) */
  for (int i = 0; i < MAXN * K; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_allgather_c(send, K, MPI_INT, recv, K, MPI_INT, t->comm));
  for (int i = 0; i < t->nin; ++i) check_block(t, "MPI_Neighbor_allgather_c", recv + i * K, i, K, 1);
#endif
  /* allgatherv: the blocks in reverse order, a gap of one int between them. */
  int counts[MAXN], displs[MAXN];
  for (int i = 0; i < t->nin; ++i) {
    counts[i] = K;
    displs[i] = (t->nin - 1 - i) * (K + 1);
  }
  int recvv[MAXN * (K + 1)];
  for (int i = 0; i < MAXN * (K + 1); ++i) recvv[i] = -1;
  CHECK_MPI(MPI_Neighbor_allgatherv(send, K, MPI_INT, recvv, counts, displs, MPI_INT, t->comm));
  for (int i = 0; i < t->nin; ++i) {
    check_block(t, "MPI_Neighbor_allgatherv", recvv + displs[i], i, K, 1);
    CHECK(recvv[displs[i] + K] == -1, "MPI_Neighbor_allgatherv on %s: the gap after block %d written",
          t->name, i);
  }
}

static void alltoall(const topo* t) {
  int send[MAXN * K], recv[MAXN * K];
  for (int j = 0; j < t->nout; ++j) {
    for (int k = 0; k < K; ++k) send[j * K + k] = value(t->rank, j, t->out[j], k);
  }
  for (int i = 0; i < MAXN * K; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_alltoall(send, K, MPI_INT, recv, K, MPI_INT, t->comm));
  for (int i = 0; i < t->nin; ++i) check_block(t, "MPI_Neighbor_alltoall", recv + i * K, i, K, 0);

#ifdef VMC_MPI_H
  for (int i = 0; i < MAXN * K; ++i) recv[i] = -1;
  CHECK_MPI(MPI_Neighbor_alltoall_c(send, K, MPI_INT, recv, K, MPI_INT, t->comm));
  for (int i = 0; i < t->nin; ++i) check_block(t, "MPI_Neighbor_alltoall_c", recv + i * K, i, K, 0);
#endif

  /* alltoallv: block j of 1 + j % K ints, the send blocks and the receive blocks in reverse
   * order with a gap. */
  int scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN];
  int sendv[MAXN * (K + 1)], recvv[MAXN * (K + 1)];
  for (int j = 0; j < t->nout; ++j) {
    scounts[j] = 1 + j % K;
    sdispls[j] = (t->nout - 1 - j) * (K + 1);
    for (int k = 0; k < scounts[j]; ++k) sendv[sdispls[j] + k] = value(t->rank, j, t->out[j], k);
  }
  for (int i = 0; i < t->nin; ++i) {
    const int j = t->in[i] == MPI_PROC_NULL ? 0 : sent_as(t, i);
    rcounts[i] = 1 + j % K;
    rdispls[i] = (t->nin - 1 - i) * (K + 1);
  }
  for (int i = 0; i < MAXN * (K + 1); ++i) recvv[i] = -1;
  CHECK_MPI(MPI_Neighbor_alltoallv(sendv, scounts, sdispls, MPI_INT, recvv, rcounts, rdispls,
                                   MPI_INT, t->comm));
  for (int i = 0; i < t->nin; ++i) {
    check_block(t, "MPI_Neighbor_alltoallv", recvv + rdispls[i], i, rcounts[i], 0);
    CHECK(recvv[rdispls[i] + rcounts[i]] == -1,
          "MPI_Neighbor_alltoallv on %s: the int after block %d written", t->name, i);
  }
#ifdef VMC_MPI_H
  {
    MPI_Count sc[MAXN], rc[MAXN];
    MPI_Aint sd[MAXN], rd[MAXN];
    for (int j = 0; j < t->nout; ++j) {
      sc[j] = scounts[j];
      sd[j] = sdispls[j];
    }
    for (int i = 0; i < t->nin; ++i) {
      rc[i] = rcounts[i];
      rd[i] = rdispls[i];
    }
    for (int i = 0; i < MAXN * (K + 1); ++i) recvv[i] = -1;
    CHECK_MPI(MPI_Neighbor_alltoallv_c(sendv, sc, sd, MPI_INT, recvv, rc, rd, MPI_INT, t->comm));
    for (int i = 0; i < t->nin; ++i) {
      check_block(t, "MPI_Neighbor_alltoallv_c", recvv + rdispls[i], i, rcounts[i], 0);
    }
  }
#endif

  /* alltoallw: the same blocks, byte displacements; odd receive blocks as a strided vector
   * of ints (every other int), the others as ints. */
  MPI_Aint sbytes[MAXN], rbytes[MAXN];
  MPI_Datatype stypes[MAXN], rtypes[MAXN], strided[MAXN];
  int recvw[MAXN * 2 * (K + 1)];
  for (int j = 0; j < t->nout; ++j) {
    sbytes[j] = (MPI_Aint)sdispls[j] * (MPI_Aint)sizeof(int);
    stypes[j] = MPI_INT;
  }
  for (int i = 0; i < t->nin; ++i) {
    rbytes[i] = (MPI_Aint)i * 2 * (K + 1) * (MPI_Aint)sizeof(int);
    strided[i] = MPI_DATATYPE_NULL;
    rtypes[i] = MPI_INT;
    if (i % 2 == 1) {
      MPI_Type_vector(rcounts[i], 1, 2, MPI_INT, &strided[i]);
      MPI_Type_commit(&strided[i]);
      rtypes[i] = strided[i];
    }
  }
  int wcounts[MAXN];
  for (int i = 0; i < t->nin; ++i) wcounts[i] = i % 2 == 1 ? 1 : rcounts[i];
  for (int i = 0; i < MAXN * 2 * (K + 1); ++i) recvw[i] = -1;
  CHECK_MPI(MPI_Neighbor_alltoallw(sendv, scounts, sbytes, stypes, recvw, wcounts, rbytes, rtypes,
                                   t->comm));
  for (int i = 0; i < t->nin; ++i) {
    int block[K];
    const int* at = recvw + i * 2 * (K + 1);
    for (int k = 0; k < rcounts[i]; ++k) block[k] = i % 2 == 1 ? at[2 * k] : at[k];
    check_block(t, "MPI_Neighbor_alltoallw", block, i, rcounts[i], 0);
    if (i % 2 == 1 && t->in[i] != MPI_PROC_NULL && rcounts[i] > 1) {
      CHECK(at[1] == -1, "MPI_Neighbor_alltoallw on %s: a hole of the strided block %d written",
            t->name, i);
    }
    if (strided[i] != MPI_DATATYPE_NULL) MPI_Type_free(&strided[i]);
  }
}

static void exercise(topo* t) {
  neighbours_of(t);
  if (t->nin > MAXN || t->nout > MAXN) return;
  allgather(t);
  alltoall(t);
}

static void cartesian(void) {
  for (int ndims = 1; ndims <= 3; ++ndims) {
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(wsize, ndims, dims);
    for (int kind = 0; kind < 3; ++kind) {
      int periods[3];
      for (int i = 0; i < 3; ++i) periods[i] = kind == 2 ? (i + 1) % 2 : kind;
      topo t;
      t.kind = MPI_CART;
      snprintf(t.name, sizeof t.name, "grid %d x %d x %d (%d dims), periods %d%d%d", dims[0],
               dims[1], dims[2], ndims, periods[0], periods[1], periods[2]);
      CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &t.comm));
      exercise(&t);
      MPI_Comm_free(&t.comm);
    }
  }
  /* A periodic dimension of 1 and one of 2 (when p is even): each rank is its own or its one
   * neighbour's source and destination at once. */
  if (wsize % 2 == 0) {
    int dims[3] = {1, 2, wsize / 2}, periods[3] = {1, 1, 0};
    topo t;
    t.kind = MPI_CART;
    snprintf(t.name, sizeof t.name, "grid 1 x 2 x %d, periods 110", wsize / 2);
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &t.comm));
    exercise(&t);
    MPI_Comm_free(&t.comm);
  }
}

static int ring_or_star(int star, int node, int* out) {
  if (star) {
    if (node == 0) {
      for (int i = 1; i < wsize; ++i) out[i - 1] = i;
      return wsize - 1;
    }
    out[0] = 0;
    return 1;
  }
  out[0] = (node + wsize - 1) % wsize;
  out[1] = (node + 1) % wsize;
  return 2;
}

static void graphs(void) {
  if (wsize - 1 > MAXN) return;
  int* index = conf_alloc(sizeof(int) * (size_t)wsize);
  int* edges = conf_alloc(sizeof(int) * (size_t)wsize * 2);
  for (int star = 0; star < 2; ++star) {
    if ((!star && wsize < 3) || (star && wsize < 2)) continue;
    int n = 0;
    for (int i = 0; i < wsize; ++i) {
      n += ring_or_star(star, i, edges + n);
      index[i] = n;
    }
    topo t;
    t.kind = MPI_GRAPH;
    snprintf(t.name, sizeof t.name, "%s graph", star ? "star" : "ring");
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 0, &t.comm));
    exercise(&t);
    MPI_Comm_free(&t.comm);

    /* Distributed: the ring directed (in from the previous rank, out to the next), the star
     * both ways. */
    int nb[MAXN + 1];
    const int deg = ring_or_star(star, wrank, nb);
    topo d;
    d.kind = MPI_DIST_GRAPH;
    snprintf(d.name, sizeof d.name, "distributed %s", star ? "star" : "directed ring");
    if (star) {
      CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, nb, MPI_UNWEIGHTED, deg, nb,
                                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d.comm));
    } else {
      CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, nb, MPI_UNWEIGHTED, 1, nb + 1,
                                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d.comm));
    }
    exercise(&d);
    MPI_Comm_free(&d.comm);
  }
  free(index);
  free(edges);
}

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int a = 1, b = 0;
  const int rc = MPI_Neighbor_allgather(&a, 1, MPI_INT, &b, 1, MPI_INT, MPI_COMM_WORLD);
  CHECK(rc != MPI_SUCCESS, "MPI_Neighbor_allgather on MPI_COMM_WORLD succeeded");
#ifdef VMC_MPI_H
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "MPI_Neighbor_allgather on MPI_COMM_WORLD: class %d", cls);
#endif
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  cartesian();
  graphs();
  errors();
  return conf_finish();
}
