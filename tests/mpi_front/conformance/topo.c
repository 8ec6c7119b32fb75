/* Process topologies (MPI-4.1 chapter 8): MPI_Dims_create against hand values (the standard's
 * examples among them) and at every p in up to four dimensions; MPI_Cart_create of every shape
 * MPI_Dims_create gives for p, periodic and not, with and without reorder, and of a grid
 * smaller than the communicator; MPI_Cart_get, _coords and _rank round trips (periodic
 * coordinates wrap), MPI_Cart_shift at the edges (MPI_PROC_NULL off a non-periodic one) with a
 * message along every shift, MPI_Cart_sub of every subset of the dimensions (sizes, ranks and a
 * collective on each), a zero-dimensional grid, MPI_Cart_map; MPI_Topo_test, and the topology
 * kept by MPI_Comm_dup and dropped by MPI_Comm_split; graphs (MPI_Graph_create of a ring and
 * a star, MPI_Graphdims_get, _get, _neighbors_count, _neighbors, MPI_Graph_map) and
 * distributed graphs (MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create, weighted and
 * not, MPI_Dist_graph_neighbors_count and _neighbors); and the errors, under
 * MPI_ERRORS_RETURN. */
#include "conformance.h"

static int wrank, wsize;

static int product(int n, const int* v) {
  int x = 1;
  for (int i = 0; i < n; ++i) x *= v[i];
  return x;
}

static void dims_expect(int nnodes, int ndims, const int* given, const int* expected) {
  int d[8];
  for (int i = 0; i < ndims; ++i) d[i] = given[i];
  CHECK_MPI(MPI_Dims_create(nnodes, ndims, d));
  int same = 1;
  for (int i = 0; i < ndims; ++i) same = same && d[i] == expected[i];
  CHECK(same, "MPI_Dims_create(%d, %d): got %d x %d x %d, expected %d x %d x %d", nnodes, ndims,
        d[0], ndims > 1 ? d[1] : 1, ndims > 2 ? d[2] : 1, expected[0],
        ndims > 1 ? expected[1] : 1, ndims > 2 ? expected[2] : 1);
}

static void dims_create(void) {
  /* The standard's examples (MPI-4.1 8.5.2), then shapes every balanced factorisation agrees
   * on. */
  dims_expect(6, 2, (int[]){0, 0}, (int[]){3, 2});
  dims_expect(7, 2, (int[]){0, 0}, (int[]){7, 1});
  dims_expect(6, 3, (int[]){0, 3, 0}, (int[]){2, 3, 1});
  dims_expect(16, 2, (int[]){0, 0}, (int[]){4, 4});
  dims_expect(12, 2, (int[]){0, 0}, (int[]){4, 3});
  dims_expect(24, 3, (int[]){0, 0, 0}, (int[]){4, 3, 2});
  dims_expect(64, 3, (int[]){0, 0, 0}, (int[]){4, 4, 4});
  dims_expect(30, 3, (int[]){0, 0, 0}, (int[]){5, 3, 2});
  dims_expect(1000 * 1000 * 1000, 3, (int[]){0, 0, 0}, (int[]){1000, 1000, 1000});
  dims_expect(8, 2, (int[]){0, 8}, (int[]){1, 8});
  dims_expect(8, 2, (int[]){2, 4}, (int[]){2, 4});
  CHECK_MPI(MPI_Dims_create(1, 0, NULL));
  /* Every p, 1 to 4 dimensions, some given: the product is p, the given ones kept, the others
   * in non-increasing order. */
  for (int n = 1; n <= 4; ++n) {
    for (int fix = 0; fix < 2; ++fix) {
      int d[4] = {0, 0, 0, 0};
      if (fix && n > 1) d[1] = 1;
      CHECK_MPI(MPI_Dims_create(wsize, n, d));
      CHECK(product(n, d) == wsize, "MPI_Dims_create(%d, %d): product %d", wsize, n, product(n, d));
      if (fix && n > 1) CHECK(d[1] == 1, "MPI_Dims_create kept dims[1] = 1 as %d", d[1]);
      int prev = wsize + 1;
      for (int i = 0; i < n; ++i) {
        if (fix && n > 1 && i == 1) continue;
        CHECK(d[i] >= 1 && d[i] <= prev, "MPI_Dims_create(%d, %d): dims[%d] = %d after %d", wsize,
              n, i, d[i], prev);
        prev = d[i];
      }
    }
  }
}

/* Every check of a Cartesian communicator `cart` made from MPI_COMM_WORLD with these dims. */
static void check_cart(MPI_Comm cart, int ndims, const int* dims, const int* periods,
                       const char* what) {
  int status = -1, nd = -1, size = 0, rank = -1;
  CHECK_MPI(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART, "%s: MPI_Topo_test %d, expected MPI_CART", what, status);
  CHECK_MPI(MPI_Cartdim_get(cart, &nd));
  CHECK(nd == ndims, "%s: MPI_Cartdim_get %d", what, nd);
  CHECK_MPI(MPI_Comm_size(cart, &size));
  CHECK(size == product(ndims, dims), "%s: size %d", what, size);
  CHECK_MPI(MPI_Comm_rank(cart, &rank));
  int d[3] = {0}, per[3] = {0}, coords[3] = {0}, c2[3] = {0};
  CHECK_MPI(MPI_Cart_get(cart, 3, d, per, coords));
  for (int i = 0; i < ndims; ++i) {
    CHECK(d[i] == dims[i] && per[i] == (periods[i] != 0), "%s: MPI_Cart_get dims[%d] = %d periods %d",
          what, i, d[i], per[i]);
  }
  CHECK_MPI(MPI_Cart_coords(cart, rank, 3, c2));
  int r = -1;
  CHECK_MPI(MPI_Cart_rank(cart, coords, &r));
  CHECK(r == rank, "%s: MPI_Cart_rank of my coordinates %d, expected %d", what, r, rank);
  /* Row-major: the last dimension varies fastest. Round trips of every rank. */
  for (int q = 0; q < size; ++q) {
    int c[3] = {0}, back = -1, expect = 0;
    CHECK_MPI(MPI_Cart_coords(cart, q, 3, c));
    for (int i = 0; i < ndims; ++i) expect = expect * dims[i] + c[i];
    CHECK(expect == q, "%s: MPI_Cart_coords(%d) is not row-major", what, q);
    CHECK_MPI(MPI_Cart_rank(cart, c, &back));
    CHECK(back == q, "%s: MPI_Cart_rank(MPI_Cart_coords(%d)) = %d", what, q, back);
    for (int i = 0; i < ndims; ++i) {
      if (!periods[i]) continue;
      int w[3] = {c[0], c[1], c[2]};
      w[i] += 2 * dims[i];
      CHECK_MPI(MPI_Cart_rank(cart, w, &back));
      CHECK(back == q, "%s: periodic wrap of rank %d in dimension %d gave %d", what, q, i, back);
      w[i] = c[i] - dims[i];
      CHECK_MPI(MPI_Cart_rank(cart, w, &back));
      CHECK(back == q, "%s: negative wrap of rank %d in dimension %d gave %d", what, q, i, back);
    }
  }
  /* Shifts: expected from the coordinates, and a message along each (every rank sends its
   * rank to the rank `disp` after it and receives from the one `disp` before). */
  for (int dim = 0; dim < ndims; ++dim) {
    for (int disp = -2; disp <= 2; ++disp) {
      int src = -2, dst = -2;
      CHECK_MPI(MPI_Cart_shift(cart, dim, disp, &src, &dst));
      int expect[2];
      for (int side = 0; side < 2; ++side) {
        int c[3] = {coords[0], coords[1], coords[2]};
        c[dim] += side == 0 ? -disp : disp;
        if (periods[dim]) {
          c[dim] = ((c[dim] % dims[dim]) + dims[dim]) % dims[dim];
          MPI_Cart_rank(cart, c, &expect[side]);
        } else if (c[dim] < 0 || c[dim] >= dims[dim]) {
          expect[side] = MPI_PROC_NULL;
        } else {
          MPI_Cart_rank(cart, c, &expect[side]);
        }
      }
      CHECK(src == expect[0] && dst == expect[1],
            "%s: MPI_Cart_shift(%d, %d) = (%d, %d), expected (%d, %d)", what, dim, disp, src, dst,
            expect[0], expect[1]);
      int got = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, dst, 7, &got, 1, MPI_INT, src, 7, cart, &st));
      if (src != MPI_PROC_NULL) {
        CHECK(got == src, "%s: along shift (%d, %d) got %d from %d", what, dim, disp, got, src);
      }
    }
  }
  /* Every subset of the dimensions. */
  for (int mask = 0; mask < (1 << ndims); ++mask) {
    int remain[3] = {0}, sd[3], sp[3], sn = 0, expect_rank = 0;
    for (int i = 0; i < ndims; ++i) {
      remain[i] = (mask >> i) & 1;
      if (remain[i]) {
        sd[sn] = dims[i];
        sp[sn] = periods[i] != 0;
        expect_rank = expect_rank * dims[i] + coords[i];
        ++sn;
      }
    }
    MPI_Comm sub = MPI_COMM_NULL;
    CHECK_MPI(MPI_Cart_sub(cart, remain, &sub));
    if (sub == MPI_COMM_NULL) {
      CHECK(0, "%s: MPI_Cart_sub(mask %d) gave MPI_COMM_NULL", what, mask);
      continue;
    }
    int ssize = -1, srank = -1, snd = -1, gd[3], gp[3], gc[3];
    MPI_Comm_size(sub, &ssize);
    MPI_Comm_rank(sub, &srank);
    CHECK(ssize == product(sn, sd), "%s: MPI_Cart_sub(mask %d) size %d", what, mask, ssize);
    CHECK(srank == expect_rank, "%s: MPI_Cart_sub(mask %d) rank %d, expected %d", what, mask,
          srank, expect_rank);
    CHECK_MPI(MPI_Cartdim_get(sub, &snd));
    CHECK(snd == sn, "%s: MPI_Cart_sub(mask %d) has %d dimensions", what, mask, snd);
    CHECK_MPI(MPI_Cart_get(sub, 3, gd, gp, gc));
    for (int i = 0; i < sn && i < snd; ++i) {
      CHECK(gd[i] == sd[i] && gp[i] == sp[i], "%s: MPI_Cart_sub(mask %d) dims[%d] = %d", what,
            mask, i, gd[i]);
    }
    /* The sub's members share the dropped coordinates: the sum of their parent ranks. */
    long mine = rank, sum = -1, expect = 0;
    for (int q = 0; q < size; ++q) {
      int c[3] = {0}, same = 1;
      MPI_Cart_coords(cart, q, 3, c);
      for (int i = 0; i < ndims; ++i) same = same && (remain[i] || c[i] == coords[i]);
      if (same) expect += q;
    }
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, sub));
    CHECK(sum == expect, "%s: MPI_Cart_sub(mask %d): sum of parent ranks %ld, expected %ld", what,
          mask, sum, expect);
    MPI_Comm_free(&sub);
  }
}

static void cartesian(void) {
  for (int ndims = 1; ndims <= 3; ++ndims) {
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(wsize, ndims, dims);
    for (int kind = 0; kind < 3; ++kind) {
      int periods[3];
      for (int i = 0; i < 3; ++i) periods[i] = kind == 2 ? i % 2 : kind;
      for (int reorder = 0; reorder < 2; ++reorder) {
        char what[96];
        snprintf(what, sizeof what, "grid %d x %d x %d (%d dims), periods %d%d%d, reorder %d",
                 dims[0], dims[1], dims[2], ndims, periods[0], periods[1], periods[2], reorder);
        MPI_Comm cart = MPI_COMM_NULL;
        CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, reorder, &cart));
        if (cart == MPI_COMM_NULL) {
          CHECK(0, "%s: MPI_COMM_NULL", what);
          continue;
        }
        check_cart(cart, ndims, dims, periods, what);
        if (reorder) {
          /* Whatever the placement, every world rank is in it once. */
          long w = wrank, sum = -1;
          CHECK_MPI(MPI_Allreduce(&w, &sum, 1, MPI_LONG, MPI_SUM, cart));
          CHECK(sum == (long)wsize * (wsize - 1) / 2, "%s: world ranks sum to %ld", what, sum);
          int newrank = -1, rank = -1;
          CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, ndims, dims, periods, &newrank));
          CHECK(newrank >= 0 && newrank < wsize, "%s: MPI_Cart_map gave %d", what, newrank);
          (void)rank;
        } else {
          int rank = -1;
          MPI_Comm_rank(cart, &rank);
          CHECK(rank == wrank, "%s: without reorder rank %d is world rank %d", what, rank, wrank);
        }
        /* A duplicate keeps the topology; a split of it has none. */
        MPI_Comm dup = MPI_COMM_NULL, split = MPI_COMM_NULL;
        CHECK_MPI(MPI_Comm_dup(cart, &dup));
        check_cart(dup, ndims, dims, periods, "the duplicate of a grid");
        int status = -1;
        CHECK_MPI(MPI_Comm_split(cart, 0, 0, &split));
        CHECK_MPI(MPI_Topo_test(split, &status));
        CHECK(status == MPI_UNDEFINED, "%s: a split has topology %d", what, status);
        MPI_Comm_free(&split);
        MPI_Comm_free(&dup);
        MPI_Comm_free(&cart);
      }
    }
  }
  /* A grid smaller than the communicator: the ranks beyond it get MPI_COMM_NULL. */
  if (wsize > 1) {
    int dims[1] = {wsize - 1}, periods[1] = {1};
    MPI_Comm cart = MPI_COMM_NULL;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    CHECK((cart == MPI_COMM_NULL) == (wrank == wsize - 1), "grid of %d: rank %d got %s", wsize - 1,
          wrank, cart == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (cart != MPI_COMM_NULL) {
      check_cart(cart, 1, dims, periods, "a grid smaller than the world");
      MPI_Comm_free(&cart);
    }
    int newrank = -2;
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank));
#ifndef OPEN_MPI /* Open MPI 4.1 gives such a rank its own rank */
    if (wrank == wsize - 1) {
      CHECK(newrank == MPI_UNDEFINED, "MPI_Cart_map beyond the grid gave %d", newrank);
    }
#endif
  }
  /* A grid of no dimensions: one rank, rank 0. */
  MPI_Comm zero = MPI_COMM_NULL;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &zero));
  CHECK((zero != MPI_COMM_NULL) == (wrank == 0), "0-dimensional grid: rank %d got %s", wrank,
        zero == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
  if (zero != MPI_COMM_NULL) {
    int size = -1, nd = -1, r = -1;
    MPI_Comm_size(zero, &size);
    CHECK(size == 1, "0-dimensional grid of size %d", size);
    CHECK_MPI(MPI_Cartdim_get(zero, &nd));
    CHECK(nd == 0, "0-dimensional grid: MPI_Cartdim_get %d", nd);
    CHECK_MPI(MPI_Cart_rank(zero, NULL, &r));
    CHECK(r == 0, "0-dimensional grid: MPI_Cart_rank %d", r);
    MPI_Comm_free(&zero);
  }
}

/* Graphs: a ring (p >= 3) and a star (centre 0). */
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
  int* index = conf_alloc(sizeof(int) * (size_t)wsize);
  int* edges = conf_alloc(sizeof(int) * (size_t)wsize * 2);
  int* got = conf_alloc(sizeof(int) * (size_t)wsize * 2);
  int* mine = conf_alloc(sizeof(int) * (size_t)wsize);
  for (int star = 0; star < 2; ++star) {
    if (!star && wsize < 3) continue;
    if (star && wsize < 2) continue;
    const char* what = star ? "star graph" : "ring graph";
    int nedges = 0;
    for (int i = 0; i < wsize; ++i) {
      nedges += ring_or_star(star, i, edges + nedges);
      index[i] = nedges;
    }
    MPI_Comm g = MPI_COMM_NULL;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 0, &g));
    if (g == MPI_COMM_NULL) {
      CHECK(0, "%s: MPI_COMM_NULL", what);
      continue;
    }
    int status = -1, nn = -1, ne = -1;
    CHECK_MPI(MPI_Topo_test(g, &status));
    CHECK(status == MPI_GRAPH, "%s: MPI_Topo_test %d", what, status);
    CHECK_MPI(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == wsize && ne == nedges, "%s: MPI_Graphdims_get (%d, %d)", what, nn, ne);
    CHECK_MPI(MPI_Graph_get(g, wsize, 2 * wsize, mine, got));
    for (int i = 0; i < wsize; ++i) CHECK(mine[i] == index[i], "%s: index[%d] = %d", what, i, mine[i]);
    for (int i = 0; i < nedges; ++i) CHECK(got[i] == edges[i], "%s: edges[%d] = %d", what, i, got[i]);
    for (int q = 0; q < wsize; ++q) {
      int count = -1, expect[64];
      const int n = ring_or_star(star, q, wsize <= 64 ? expect : got);
      CHECK_MPI(MPI_Graph_neighbors_count(g, q, &count));
      CHECK(count == n, "%s: MPI_Graph_neighbors_count(%d) = %d, expected %d", what, q, count, n);
      if (wsize > 64) continue;
      CHECK_MPI(MPI_Graph_neighbors(g, q, wsize, mine));
      for (int i = 0; i < n; ++i) {
        CHECK(mine[i] == expect[i], "%s: neighbour %d of %d is %d, expected %d", what, i, q,
              mine[i], expect[i]);
      }
    }
    int newrank = -1;
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, wsize, index, edges, &newrank));
    CHECK(newrank >= 0 && newrank < wsize, "%s: MPI_Graph_map gave %d", what, newrank);
    MPI_Comm dup = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_dup(g, &dup));
    CHECK_MPI(MPI_Topo_test(dup, &status));
    CHECK(status == MPI_GRAPH, "%s: its duplicate's MPI_Topo_test %d", what, status);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);
  }
  /* A graph of fewer nodes than ranks: the others get MPI_COMM_NULL. */
  if (wsize > 1) {
    const int n = wsize - 1;
    for (int i = 0; i < n; ++i) index[i] = i + 1;
    for (int i = 0; i < n; ++i) edges[i] = (i + 1) % n;
    MPI_Comm g = MPI_COMM_NULL;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
    CHECK((g == MPI_COMM_NULL) == (wrank >= n), "graph of %d nodes: rank %d got %s", n, wrank,
          g == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (g != MPI_COMM_NULL) MPI_Comm_free(&g);
  }
  free(index);
  free(edges);
  free(got);
  free(mine);
}

static void check_dist(MPI_Comm g, int nin, const int* in, int nout, const int* out,
                       int weighted, const char* what) {
  int status = -1, indeg = -1, outdeg = -1, w = -1;
  CHECK_MPI(MPI_Topo_test(g, &status));
  CHECK(status == MPI_DIST_GRAPH, "%s: MPI_Topo_test %d", what, status);
  CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w));
  CHECK(indeg == nin && outdeg == nout && (w != 0) == weighted,
        "%s: MPI_Dist_graph_neighbors_count (%d, %d, %d), expected (%d, %d, %d)", what, indeg,
        outdeg, w, nin, nout, weighted);
  if (indeg != nin || outdeg != nout) return;
  int* srcs = conf_alloc(sizeof(int) * (size_t)(nin + 1));
  int* dsts = conf_alloc(sizeof(int) * (size_t)(nout + 1));
  int* sw = conf_alloc(sizeof(int) * (size_t)(nin + 1));
  int* dw = conf_alloc(sizeof(int) * (size_t)(nout + 1));
  if (weighted) {
    CHECK_MPI(MPI_Dist_graph_neighbors(g, nin, srcs, sw, nout, dsts, dw));
  } else {
    CHECK_MPI(MPI_Dist_graph_neighbors(g, nin, srcs, MPI_UNWEIGHTED, nout, dsts, MPI_UNWEIGHTED));
  }
  /* The order of a rank's edges is the implementation's: compare as sets (no edge twice). */
  for (int i = 0; i < nin; ++i) {
    int found = 0;
    for (int k = 0; k < nin; ++k) found = found || srcs[k] == in[i];
    CHECK(found, "%s: source %d missing", what, in[i]);
  }
  for (int i = 0; i < nout; ++i) {
    int found = 0;
    for (int k = 0; k < nout; ++k) found = found || dsts[k] == out[i];
    CHECK(found, "%s: destination %d missing", what, out[i]);
  }
  if (weighted) {
    for (int i = 0; i < nin; ++i) CHECK(sw[i] == srcs[i] + 1, "%s: weight of source %d is %d", what, srcs[i], sw[i]);
    for (int i = 0; i < nout; ++i) CHECK(dw[i] == wrank + 1, "%s: weight to %d is %d", what, dsts[i], dw[i]);
  }
  free(srcs);
  free(dsts);
  free(sw);
  free(dw);
}

static void dist_graphs(void) {
  int* nb = conf_alloc(sizeof(int) * (size_t)wsize);
  int* wt = conf_alloc(sizeof(int) * (size_t)wsize);
  int* wt_in = conf_alloc(sizeof(int) * (size_t)wsize);
  for (int star = 0; star < 2; ++star) {
    if (!star && wsize < 3) continue;
    if (star && wsize < 2) continue;
    /* Adjacent: the ring directed (in from prev, out to next), the star both ways; weighted
     * (an edge's weight is its source's rank + 1) on the star. */
    const int n = ring_or_star(star, wrank, nb);
    const int* in = star ? nb : nb;
    const int* out = star ? nb : nb + 1;
    const int nin = star ? n : 1, nout = star ? n : 1;
    for (int i = 0; i < n; ++i) {
      wt[i] = wrank + 1;
      wt_in[i] = nb[i] + 1;
    }
    MPI_Comm g = MPI_COMM_NULL;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, in, star ? wt_in : MPI_UNWEIGHTED,
                                             nout, out, star ? wt : MPI_UNWEIGHTED, MPI_INFO_NULL,
                                             0, &g));
    check_dist(g, nin, in, nout, out, star, star ? "adjacent star" : "adjacent ring");
    MPI_Comm_free(&g);
    /* General: each rank gives its out-edges (ring), or rank 0 gives every edge (star). */
    if (!star) {
      const int src = wrank, deg = 1;
      CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, out, MPI_UNWEIGHTED,
                                      MPI_INFO_NULL, 0, &g));
    } else {
      int nsrc = 0;
      int* srcs = conf_alloc(sizeof(int) * (size_t)wsize);
      int* degs = conf_alloc(sizeof(int) * (size_t)wsize);
      int* dsts = conf_alloc(sizeof(int) * (size_t)wsize * 2);
      int* ws = conf_alloc(sizeof(int) * (size_t)wsize * 2);
      int ne = 0;
      if (wrank == 0) {
        for (int q = 0; q < wsize; ++q) {
          srcs[nsrc] = q;
          degs[nsrc] = ring_or_star(1, q, dsts + ne);
          for (int k = 0; k < degs[nsrc]; ++k) ws[ne + k] = q + 1;
          ne += degs[nsrc++];
        }
      }
      CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, srcs, degs, dsts,
                                      wrank == 0 ? ws : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
      free(srcs);
      free(degs);
      free(dsts);
      free(ws);
    }
    check_dist(g, nin, in, nout, out, star, star ? "general star (from rank 0)" : "general ring");
    MPI_Comm dup = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_dup(g, &dup));
    check_dist(dup, nin, in, nout, out, star, "a duplicate of a distributed graph");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);
  }
  /* No edges at all: weighted unless MPI_UNWEIGHTED was given (MPI-4.1 8.5.5), MPI_WEIGHTS_EMPTY
   * and a null array being weights. */
  for (int kind = 0; kind < 3; ++kind) {
    const int* w = kind == 0 ? MPI_UNWEIGHTED : kind == 1 ? MPI_WEIGHTS_EMPTY : NULL;
    const char* name = kind == 0 ? "MPI_UNWEIGHTED" : kind == 1 ? "MPI_WEIGHTS_EMPTY" : "NULL";
    MPI_Comm g = MPI_COMM_NULL;
    int in = -1, out = -1, weighted = -1;
    CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, w, MPI_INFO_NULL, 0, &g));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    CHECK(in == 0 && out == 0 && (weighted != 0) == (kind != 0),
          "MPI_Dist_graph_create of no edges, weights %s: (%d, %d, weighted %d)", name, in, out,
          weighted);
    MPI_Comm_free(&g);
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, w, 0, NULL, w, MPI_INFO_NULL,
                                             0, &g));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    CHECK(in == 0 && out == 0 && (weighted != 0) == (kind != 0),
          "MPI_Dist_graph_create_adjacent of no edges, weights %s: (%d, %d, weighted %d)", name,
          in, out, weighted);
    MPI_Comm_free(&g);
  }
  free(nb);
  free(wt);
  free(wt_in);
}

/* Errors, under MPI_ERRORS_RETURN: each call fails (the class checked where the standard or
 * vmc fixes it) and leaves the rank going. */
static void expect_error(int rc, int vmc_class, const char* what) {
  CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
  int cls = -1;
  MPI_Error_class(rc, &cls);
#ifdef VMC_MPI_H
  CHECK(cls == vmc_class, "%s: error class %d, expected %d", what, cls, vmc_class);
#else
  (void)vmc_class;
#endif
}

static void errors(void) {
  /* MPI_Dims_create has no communicator: its errors go to MPI_COMM_SELF's handler (MPI-4.1;
   * Open MPI 4.1 raises them on MPI_COMM_WORLD). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm c = MPI_COMM_NULL;
  int big[2] = {wsize, 2}, neg[2] = {-1, 1}, periods[2] = {0, 0}, x = 0, y = 0;
  expect_error(MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &c), MPI_ERR_ARG,
               "MPI_Cart_create of a grid larger than the communicator");
  expect_error(MPI_Cart_create(MPI_COMM_WORLD, 2, neg, periods, 0, &c), MPI_ERR_DIMS,
               "MPI_Cart_create with a negative dimension");
  int coords[2] = {0, 0};
  expect_error(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, coords), MPI_ERR_TOPOLOGY,
               "MPI_Cart_coords on MPI_COMM_WORLD");
  expect_error(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &x, &y), MPI_ERR_TOPOLOGY,
               "MPI_Cart_shift on MPI_COMM_WORLD");
  expect_error(MPI_Graphdims_get(MPI_COMM_WORLD, &x, &y), MPI_ERR_TOPOLOGY,
               "MPI_Graphdims_get on MPI_COMM_WORLD");
  int d3[2] = {0, 3};
  if (wsize % 3 != 0) {
    expect_error(MPI_Dims_create(wsize, 2, d3), MPI_ERR_DIMS,
                 "MPI_Dims_create with a dimension that does not divide p");
  }
  int dneg[2] = {0, -2};
  expect_error(MPI_Dims_create(wsize, 2, dneg), MPI_ERR_DIMS, "MPI_Dims_create with dims[1] = -2");
#ifdef VMC_MPI_H /* erroneous programs Open MPI 4.1 does not detect */
  int index[1] = {1}, edges[1] = {wsize};
  expect_error(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_ARG,
               "MPI_Graph_create with an edge to a node out of range");
#endif
  int bad = wsize;
  expect_error(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, MPI_UNWEIGHTED, 0, NULL,
                                              MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
               MPI_ERR_RANK, "MPI_Dist_graph_create_adjacent with a source out of range");
  /* On a grid: off a non-periodic edge, a rank out of range, a graph call. */
  int dims[1] = {wsize}, per[1] = {0};
  MPI_Comm cart = MPI_COMM_NULL;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &cart));
  MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
  int off[1] = {wsize}, r = 0;
  expect_error(MPI_Cart_rank(cart, off, &r), MPI_ERR_ARG,
               "MPI_Cart_rank off a non-periodic dimension");
  expect_error(MPI_Graph_neighbors_count(cart, 0, &x), MPI_ERR_TOPOLOGY,
               "MPI_Graph_neighbors_count on a grid");
#ifdef VMC_MPI_H /* erroneous programs Open MPI 4.1 does not detect */
  expect_error(MPI_Cart_coords(cart, wsize, 1, coords), MPI_ERR_RANK,
               "MPI_Cart_coords of a rank out of range");
  expect_error(MPI_Cart_shift(cart, 1, 1, &x, &y), MPI_ERR_ARG,
               "MPI_Cart_shift along a dimension the grid does not have");
  /* The text names the call and the problem. */
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(MPI_ERR_TOPOLOGY, text, &len);
  CHECK(strstr(text, "MPI_Graph_neighbors_count") != NULL && strstr(text, "Cartesian") != NULL,
        "the text of MPI_ERR_TOPOLOGY: \"%s\"", text);
#endif
  MPI_Comm_free(&cart);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  dims_create();
  cartesian();
  graphs();
  dist_graphs();
  errors();
  return conf_finish();
}
