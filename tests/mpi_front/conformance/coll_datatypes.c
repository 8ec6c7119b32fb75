/* Derived datatypes through every collective, the send side and the receive side of different
 * types of one signature: `vec` (3 ints, every other one: holes between them) against 3 plain
 * ints, both ways round; a struct of an int and a double (mixed elements) on both sides;
 * in place where the standard allows it. The receive buffers' holes must stay untouched.
 * Then the predefined operations element by element on derived types: MPI_SUM on `vec` and
 * on a contiguous type, MPI_MAX through the scans, MPI_MINLOC on a contiguous type of
 * MPI_2INT, through MPI_Reduce (every root), MPI_Allreduce (in place too),
 * MPI_Reduce_scatter_block, MPI_Reduce_scatter, MPI_Scan and MPI_Exscan. And every
 * constructor (shapes.h) through MPI_Bcast, MPI_Gather, MPI_Scatter, MPI_Allgather,
 * MPI_Alltoall and MPI_Allreduce, against plain ints both ways round. */
#include "conformance.h"
#include "shapes.h"

enum { K = 3, EXT = 5, HOLE = -1 }; /* vec: K ints at 0, 2, 4 of EXT */

static MPI_Datatype vec, pair3, mixed;
static int rank, size;

struct int_double {
  int i;
  double d;
};

/* Value j of rank r's block b. */
static int value(int r, int b, int j) { return 1000 * r + 10 * b + j + 1; }

/* n items of vec at buf, item k's elements from values(r, b0 + k). */
static void put_vec(int* buf, int n, int r, int b0) {
  for (int k = 0; k < n * EXT; ++k) buf[k] = HOLE;
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < K; ++j) buf[k * EXT + 2 * j] = value(r, b0 + k, j);
  }
}

static void put_ints(int* buf, int n, int r, int b0) {
  for (int k = 0; k < n; ++k) {
    for (int j = 0; j < K; ++j) buf[k * K + j] = value(r, b0 + k, j);
  }
}

/* Item k of a vec buffer holds block (r, b), its holes untouched. */
static void expect_vec(const int* buf, int k, int r, int b, const char* what) {
  for (int j = 0; j < K; ++j) {
    CHECK(buf[k * EXT + 2 * j] == value(r, b, j), "%s: vec item %d element %d is %d, expected %d",
          what, k, j, buf[k * EXT + 2 * j], value(r, b, j));
    if (j < K - 1) {
      CHECK(buf[k * EXT + 2 * j + 1] == HOLE, "%s: vec item %d: a hole was written", what, k);
    }
  }
}

static void expect_ints(const int* buf, int k, int r, int b, const char* what) {
  for (int j = 0; j < K; ++j) {
    CHECK(buf[k * K + j] == value(r, b, j), "%s: block %d element %d is %d, expected %d", what, k,
          j, buf[k * K + j], value(r, b, j));
  }
}

/* --- moving data: vec on one side, ints on the other ----------------------------------------- */

static void bcast_gather_scatter(int vec_sends) {
  const char* way = vec_sends ? "vec to ints" : "ints to vec";
  char what[120];
  int* v = conf_alloc(sizeof(int) * (size_t)(size * EXT + 1));
  int* n = conf_alloc(sizeof(int) * (size_t)(size * K + 1));
  for (int root = 0; root < size; ++root) {
    /* Bcast: the root's type and the others' differ. */
    const int mine_vec = (rank == root) == vec_sends;
    if (mine_vec) {
      put_vec(v, 1, rank == root ? root : size + 1, 0);
      CHECK_MPI(MPI_Bcast(v, 1, vec, root, MPI_COMM_WORLD));
      snprintf(what, sizeof what, "MPI_Bcast(%s, root %d)", way, root);
      expect_vec(v, 0, root, 0, what);
    } else {
      put_ints(n, 1, rank == root ? root : size + 1, 0);
      CHECK_MPI(MPI_Bcast(n, K, MPI_INT, root, MPI_COMM_WORLD));
      snprintf(what, sizeof what, "MPI_Bcast(%s, root %d)", way, root);
      expect_ints(n, 0, root, 0, what);
    }
    /* Gather: every rank's block to the root. */
    snprintf(what, sizeof what, "MPI_Gather(%s, root %d)", way, root);
    if (vec_sends) {
      put_vec(v, 1, rank, 0);
      for (int k = 0; k < size * K; ++k) n[k] = 0;
      CHECK_MPI(MPI_Gather(v, 1, vec, n, K, MPI_INT, root, MPI_COMM_WORLD));
      for (int r = 0; rank == root && r < size; ++r) expect_ints(n, r, r, 0, what);
    } else {
      put_ints(n, 1, rank, 0);
      put_vec(v, size, 0, 0);
      CHECK_MPI(MPI_Gather(n, K, MPI_INT, v, 1, vec, root, MPI_COMM_WORLD));
      for (int r = 0; rank == root && r < size; ++r) expect_vec(v, r, r, 0, what);
    }
    /* Scatter: block r of the root's to rank r. */
    snprintf(what, sizeof what, "MPI_Scatter(%s, root %d)", way, root);
    if (vec_sends) {
      put_vec(v, size, root, 0);
      CHECK_MPI(MPI_Scatter(v, 1, vec, n, K, MPI_INT, root, MPI_COMM_WORLD));
      expect_ints(n, 0, root, rank, what);
    } else {
      put_ints(n, size, root, 0);
      put_vec(v, 1, 0, 0);
      CHECK_MPI(MPI_Scatter(n, K, MPI_INT, v, 1, vec, root, MPI_COMM_WORLD));
      expect_vec(v, 0, root, rank, what);
    }
    /* Gatherv and Scatterv: rank r's block is r % 3 items, at displacements from the top. */
    int* counts = conf_alloc(sizeof(int) * (size_t)size);
    int* displs = conf_alloc(sizeof(int) * (size_t)size);
    int* icounts = conf_alloc(sizeof(int) * (size_t)size);
    int* idispls = conf_alloc(sizeof(int) * (size_t)size);
    int total = 0;
    for (int r = size - 1; r >= 0; --r) {
      counts[r] = r % 3;
      displs[r] = total;
      icounts[r] = K * counts[r];
      idispls[r] = K * total;
      total += counts[r];
    }
    int* vv = conf_alloc(sizeof(int) * (size_t)(total * EXT + EXT + 1));
    int* nn = conf_alloc(sizeof(int) * (size_t)(total * K + K + 1));
    snprintf(what, sizeof what, "MPI_Gatherv(%s, root %d)", way, root);
    if (vec_sends) {
      put_vec(vv, counts[rank], rank, 0);
      for (int k = 0; k < total * K; ++k) nn[k] = 0;
      CHECK_MPI(
          MPI_Gatherv(vv, counts[rank], vec, nn, icounts, idispls, MPI_INT, root, MPI_COMM_WORLD));
      for (int r = 0; rank == root && r < size; ++r) {
        for (int b = 0; b < counts[r]; ++b) expect_ints(nn, displs[r] + b, r, b, what);
      }
    } else {
      put_ints(nn, counts[rank], rank, 0);
      put_vec(vv, total, 0, 0);
      CHECK_MPI(
          MPI_Gatherv(nn, icounts[rank], MPI_INT, vv, counts, displs, vec, root, MPI_COMM_WORLD));
      for (int r = 0; rank == root && r < size; ++r) {
        for (int b = 0; b < counts[r]; ++b) expect_vec(vv, displs[r] + b, r, b, what);
      }
    }
    snprintf(what, sizeof what, "MPI_Scatterv(%s, root %d)", way, root);
    if (vec_sends) {
      put_vec(vv, total, root, 0);
      CHECK_MPI(
          MPI_Scatterv(vv, counts, displs, vec, nn, icounts[rank], MPI_INT, root, MPI_COMM_WORLD));
      for (int b = 0; b < counts[rank]; ++b) expect_ints(nn, b, root, displs[rank] + b, what);
    } else {
      put_ints(nn, total, root, 0);
      put_vec(vv, counts[rank], 0, 0);
      CHECK_MPI(
          MPI_Scatterv(nn, icounts, idispls, MPI_INT, vv, counts[rank], vec, root, MPI_COMM_WORLD));
      for (int b = 0; b < counts[rank]; ++b) expect_vec(vv, b, root, displs[rank] + b, what);
    }
    free(counts);
    free(displs);
    free(icounts);
    free(idispls);
    free(vv);
    free(nn);
  }
  free(v);
  free(n);
}

static void all_to_all(int vec_sends) {
  const char* way = vec_sends ? "vec to ints" : "ints to vec";
  char what[120];
  int* v = conf_alloc(sizeof(int) * (size_t)(size * EXT + 1));
  int* n = conf_alloc(sizeof(int) * (size_t)(size * K + 1));
  snprintf(what, sizeof what, "MPI_Allgather(%s)", way);
  if (vec_sends) {
    put_vec(v, 1, rank, 0);
    CHECK_MPI(MPI_Allgather(v, 1, vec, n, K, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) expect_ints(n, r, r, 0, what);
  } else {
    put_ints(n, 1, rank, 0);
    put_vec(v, size, 0, 0);
    CHECK_MPI(MPI_Allgather(n, K, MPI_INT, v, 1, vec, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) expect_vec(v, r, r, 0, what);
  }
  /* Alltoall: rank r's block b goes to rank b, as block r there. */
  snprintf(what, sizeof what, "MPI_Alltoall(%s)", way);
  if (vec_sends) {
    put_vec(v, size, rank, 0);
    CHECK_MPI(MPI_Alltoall(v, 1, vec, n, K, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) expect_ints(n, r, r, rank, what);
  } else {
    put_ints(n, size, rank, 0);
    put_vec(v, size, 0, 0);
    CHECK_MPI(MPI_Alltoall(n, K, MPI_INT, v, 1, vec, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) expect_vec(v, r, r, rank, what);
  }
  /* Allgatherv and Alltoallv: rank r's block is (r % 2) + 1 items. */
  int* counts = conf_alloc(sizeof(int) * (size_t)size);
  int* displs = conf_alloc(sizeof(int) * (size_t)size);
  int* icounts = conf_alloc(sizeof(int) * (size_t)size);
  int* idispls = conf_alloc(sizeof(int) * (size_t)size);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = r % 2 + 1;
    displs[r] = total;
    icounts[r] = K * counts[r];
    idispls[r] = K * total;
    total += counts[r];
  }
  int* vv = conf_alloc(sizeof(int) * (size_t)(total * EXT + 1));
  int* nn = conf_alloc(sizeof(int) * (size_t)(total * K + 1));
  snprintf(what, sizeof what, "MPI_Allgatherv(%s)", way);
  if (vec_sends) {
    put_vec(vv, counts[rank], rank, 0);
    CHECK_MPI(MPI_Allgatherv(vv, counts[rank], vec, nn, icounts, idispls, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) {
      for (int b = 0; b < counts[r]; ++b) expect_ints(nn, displs[r] + b, r, b, what);
    }
  } else {
    put_ints(nn, counts[rank], rank, 0);
    put_vec(vv, total, 0, 0);
    CHECK_MPI(MPI_Allgatherv(nn, icounts[rank], MPI_INT, vv, counts, displs, vec, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) {
      for (int b = 0; b < counts[r]; ++b) expect_vec(vv, displs[r] + b, r, b, what);
    }
  }
  /* Alltoallv: to rank b, rank r sends counts[b] items (its items displs[b]...), and receives
   * counts[rank] items from each rank r, at displacement r * 2. */
  int* rcounts = conf_alloc(sizeof(int) * (size_t)size);
  int* rdispls = conf_alloc(sizeof(int) * (size_t)size);
  int* ircounts = conf_alloc(sizeof(int) * (size_t)size);
  int* irdispls = conf_alloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r) {
    rcounts[r] = counts[rank];
    rdispls[r] = 2 * r;
    ircounts[r] = K * rcounts[r];
    irdispls[r] = K * rdispls[r];
  }
  int* vr = conf_alloc(sizeof(int) * (size_t)(2 * size * EXT + 1));
  int* nr = conf_alloc(sizeof(int) * (size_t)(2 * size * K + 1));
  snprintf(what, sizeof what, "MPI_Alltoallv(%s)", way);
  if (vec_sends) {
    put_vec(vv, total, rank, 0);
    for (int k = 0; k < 2 * size * K; ++k) nr[k] = 0;
    CHECK_MPI(
        MPI_Alltoallv(vv, counts, displs, vec, nr, ircounts, irdispls, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) {
      for (int b = 0; b < rcounts[r]; ++b)
        expect_ints(nr, rdispls[r] + b, r, displs[rank] + b, what);
    }
  } else {
    put_ints(nn, total, rank, 0);
    put_vec(vr, 2 * size, 0, 0);
    CHECK_MPI(
        MPI_Alltoallv(nn, icounts, idispls, MPI_INT, vr, rcounts, rdispls, vec, MPI_COMM_WORLD));
    for (int r = 0; r < size; ++r) {
      for (int b = 0; b < rcounts[r]; ++b)
        expect_vec(vr, rdispls[r] + b, r, displs[rank] + b, what);
    }
  }
  /* In place, in vec: Allgather. */
  put_vec(v, size, 0, 0);
  put_vec(v + rank * EXT, 1, rank, 0);
  CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, v, 1, vec, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r) expect_vec(v, r, r, 0, "MPI_Allgather(in place, vec)");
  free(counts);
  free(displs);
  free(icounts);
  free(idispls);
  free(rcounts);
  free(rdispls);
  free(ircounts);
  free(irdispls);
  free(vv);
  free(nn);
  free(vr);
  free(nr);
  free(v);
  free(n);
}

/* A struct of mixed elements on both sides. */
static void mixed_types(void) {
  struct int_double* x = conf_alloc(sizeof *x * (size_t)(size + 1));
  for (int root = 0; root < size; ++root) {
    x[0].i = rank == root ? 17 + root : 0;
    x[0].d = rank == root ? 0.5 * root : 0;
    CHECK_MPI(MPI_Bcast(x, 1, mixed, root, MPI_COMM_WORLD));
    CHECK(x[0].i == 17 + root && x[0].d == 0.5 * root, "MPI_Bcast(struct, root %d): %d %g", root,
          x[0].i, x[0].d);
  }
  struct int_double mine = {rank, rank + 0.25};
  CHECK_MPI(MPI_Allgather(&mine, 1, mixed, x, 1, mixed, MPI_COMM_WORLD));
  for (int r = 0; r < size; ++r) {
    CHECK(x[r].i == r && x[r].d == r + 0.25, "MPI_Allgather(struct)[%d]: %d %g", r, x[r].i, x[r].d);
  }
  free(x);
}

/* --- predefined operations on derived types ------------------------------------------------- */

static void reductions(void) {
  char what[120];
  enum { N = 2 };
  int* v = conf_alloc(sizeof(int) * (size_t)(size * N * EXT + 1));
  int* r = conf_alloc(sizeof(int) * (size_t)(size * N * EXT + 1));
  /* Item k element j of rank q: q + k + j; the sum over ranks: p(p-1)/2 + p(k + j). */
#define SUM(k, j) (size * (size - 1) / 2 + size * ((k) + (j)))
  for (int k = 0; k < size * N * EXT; ++k) v[k] = HOLE;
  for (int k = 0; k < size * N; ++k) {
    for (int j = 0; j < K; ++j) v[k * EXT + 2 * j] = rank + k + j;
  }
  for (int root = 0; root < size; ++root) {
    put_vec(r, N, 0, 0);
    CHECK_MPI(MPI_Reduce(v, r, N, vec, MPI_SUM, root, MPI_COMM_WORLD));
    snprintf(what, sizeof what, "MPI_Reduce(vec, MPI_SUM, root %d)", root);
    for (int k = 0; rank == root && k < N; ++k) {
      for (int j = 0; j < K; ++j) {
        CHECK(r[k * EXT + 2 * j] == SUM(k, j), "%s: [%d][%d] = %d, expected %d", what, k, j,
              r[k * EXT + 2 * j], SUM(k, j));
      }
      CHECK(r[k * EXT + 1] == HOLE && r[k * EXT + 3] == HOLE, "%s: a hole was written", what);
    }
  }
  memcpy(r, v, sizeof(int) * (size_t)(N * EXT));
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, r, N, vec, MPI_SUM, MPI_COMM_WORLD));
  for (int k = 0; k < N; ++k) {
    for (int j = 0; j < K; ++j) {
      CHECK(r[k * EXT + 2 * j] == SUM(k, j), "MPI_Allreduce(in place, vec)[%d][%d] = %d", k, j,
            r[k * EXT + 2 * j]);
    }
    CHECK(r[k * EXT + 1] == HOLE, "MPI_Allreduce(in place, vec): a hole was written");
  }
  /* Reduce_scatter_block: rank q gets items q*N.. of the sum. */
  put_vec(r, N, 0, 0);
  CHECK_MPI(MPI_Reduce_scatter_block(v, r, N, vec, MPI_SUM, MPI_COMM_WORLD));
  for (int k = 0; k < N; ++k) {
    for (int j = 0; j < K; ++j) {
      CHECK(r[k * EXT + 2 * j] == SUM(rank * N + k, j),
            "MPI_Reduce_scatter_block(vec)[%d][%d] = %d, expected %d", k, j, r[k * EXT + 2 * j],
            SUM(rank * N + k, j));
    }
  }
  /* Reduce_scatter: rank q gets q % 2 + 1 items. */
  int* counts = conf_alloc(sizeof(int) * (size_t)size);
  int at = 0, total = 0;
  for (int q = 0; q < size; ++q) {
    counts[q] = q % 2 + 1;
    if (q < rank) at += counts[q];
    total += counts[q];
  }
  if (total <= size * N) {
    put_vec(r, 2, 0, 0);
    CHECK_MPI(MPI_Reduce_scatter(v, r, counts, vec, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k < counts[rank]; ++k) {
      for (int j = 0; j < K; ++j) {
        CHECK(r[k * EXT + 2 * j] == SUM(at + k, j), "MPI_Reduce_scatter(vec)[%d][%d] = %d", k, j,
              r[k * EXT + 2 * j]);
      }
    }
  }
  free(counts);
  /* Scan and Exscan with MPI_MAX: rank q's values are q + k + j, the max over 0..q is q's. */
  put_vec(r, N, 0, 0);
  CHECK_MPI(MPI_Scan(v, r, N, vec, MPI_MAX, MPI_COMM_WORLD));
  for (int k = 0; k < N; ++k) {
    for (int j = 0; j < K; ++j) {
      CHECK(r[k * EXT + 2 * j] == rank + k + j, "MPI_Scan(vec, MPI_MAX)[%d][%d] = %d", k, j,
            r[k * EXT + 2 * j]);
    }
  }
  put_vec(r, N, 0, 0);
  CHECK_MPI(MPI_Exscan(v, r, N, vec, MPI_MAX, MPI_COMM_WORLD));
  for (int k = 0; rank > 0 && k < N; ++k) {
    for (int j = 0; j < K; ++j) {
      CHECK(r[k * EXT + 2 * j] == rank - 1 + k + j, "MPI_Exscan(vec, MPI_MAX)[%d][%d] = %d", k, j,
            r[k * EXT + 2 * j]);
    }
  }
  /* MPI_MINLOC on 3 pairs at once: value (q - 2 - i)^2 + i, index q; smallest at q = 2 + i
   * (the smaller index on a tie). */
  int pairs[6], out[6];
  for (int i = 0; i < 3; ++i) {
    pairs[2 * i] = (rank - 2 - i) * (rank - 2 - i) + i;
    pairs[2 * i + 1] = rank;
  }
  CHECK_MPI(MPI_Allreduce(pairs, out, 1, pair3, MPI_MINLOC, MPI_COMM_WORLD));
  for (int i = 0; i < 3; ++i) {
    int best = 0, best_value = 1 << 30;
    for (int q = 0; q < size; ++q) {
      const int val = (q - 2 - i) * (q - 2 - i) + i;
      if (val < best_value) best_value = val, best = q;
    }
    CHECK(out[2 * i] == best_value && out[2 * i + 1] == best,
          "MPI_Allreduce(3 x MPI_2INT, MPI_MINLOC)[%d] = (%d, %d), expected (%d, %d)", i,
          out[2 * i], out[2 * i + 1], best_value, best);
  }
#undef SUM
  free(v);
  free(r);
}

/* --- every constructor ---------------------------------------------------------------------- */

/* Item `it` of a buffer of s holds element j = base + j. */
static void expect_item(const shaped* s, const int* buf, int it, int base, const char* what) {
  MPI_Aint lb, ext;
  MPI_Type_get_extent(s->type, &lb, &ext);
  const int stride = (int)(ext / (MPI_Aint)sizeof(int));
  for (int j = 0; j < s->n; ++j) {
    CHECK(buf[it * stride + s->at[j]] == base + j, "%s (%s): item %d element %d is %d, expected %d",
          what, s->name, it, j, buf[it * stride + s->at[j]], base + j);
  }
}

/* Only `items` items' elements were written into a buffer of `len` ints filled with -1. */
static void expect_holes(const shaped* s, const int* buf, int len, int items, const char* what) {
  int written = 0;
  for (int i = 0; i < len; ++i) written += buf[i] != -1;
  CHECK(written == items * s->n, "%s (%s): %d ints written, expected %d", what, s->name, written,
        items * s->n);
}

static void fill(int* buf, int len) {
  for (int i = 0; i < len; ++i) buf[i] = -1;
}

static void every_constructor(void) {
  shaped shapes[16];
  const int count = make_shapes(shapes);
  for (int i = 0; i < count; ++i) {
    const shaped* s = &shapes[i];
    const int n = s->n, root = i % size;
    const int span1 = span_of_items(s, 1) + 1, spanp = span_of_items(s, size) + 1;
    int* t1 = conf_alloc(sizeof(int) * (size_t)span1);
    int* tp = conf_alloc(sizeof(int) * (size_t)spanp);
    int* i1 = conf_alloc(sizeof(int) * (size_t)n);
    int* ip = conf_alloc(sizeof(int) * (size_t)(n * size));
    /* Bcast: the root's type, then the others'. */
    fill(t1, span1);
    if (rank == root) {
      fill_items(s, t1, 1, 7 * root);
      CHECK_MPI(MPI_Bcast(t1, 1, s->type, root, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(MPI_Bcast(i1, n, MPI_INT, root, MPI_COMM_WORLD));
      for (int j = 0; j < n; ++j) {
        CHECK(i1[j] == 7 * root + j, "MPI_Bcast(%s to ints)[%d] = %d", s->name, j, i1[j]);
      }
    }
    fill(t1, span1);
    if (rank == root) {
      for (int j = 0; j < n; ++j) i1[j] = 7 * root + j;
      CHECK_MPI(MPI_Bcast(i1, n, MPI_INT, root, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(MPI_Bcast(t1, 1, s->type, root, MPI_COMM_WORLD));
      expect_item(s, t1, 0, 7 * root, "MPI_Bcast(ints to type)");
      expect_holes(s, t1, span1, 1, "MPI_Bcast(ints to type)");
    }
    /* Gather and Allgather: rank r's item holds r * n + j. */
    fill(t1, span1);
    fill_items(s, t1, 1, rank * n);
    CHECK_MPI(MPI_Gather(t1, 1, s->type, ip, n, MPI_INT, root, MPI_COMM_WORLD));
    for (int j = 0; rank == root && j < n * size; ++j) {
      CHECK(ip[j] == j, "MPI_Gather(%s to ints)[%d] = %d", s->name, j, ip[j]);
    }
    for (int j = 0; j < n; ++j) i1[j] = rank * n + j;
    fill(tp, spanp);
    CHECK_MPI(MPI_Gather(i1, n, MPI_INT, tp, 1, s->type, root, MPI_COMM_WORLD));
    if (rank == root) {
      expect_items(s, tp, size, 0, spanp, "MPI_Gather(ints to type)");
    }
    CHECK_MPI(MPI_Allgather(t1, 1, s->type, ip, n, MPI_INT, MPI_COMM_WORLD));
    for (int j = 0; j < n * size; ++j) {
      CHECK(ip[j] == j, "MPI_Allgather(%s to ints)[%d] = %d", s->name, j, ip[j]);
    }
    fill(tp, spanp);
    CHECK_MPI(MPI_Allgather(i1, n, MPI_INT, tp, 1, s->type, MPI_COMM_WORLD));
    expect_items(s, tp, size, 0, spanp, "MPI_Allgather(ints to type)");
    /* Scatter: item r of the root's to rank r. */
    fill(tp, spanp);
    fill_items(s, tp, size, 0);
    CHECK_MPI(MPI_Scatter(tp, 1, s->type, i1, n, MPI_INT, root, MPI_COMM_WORLD));
    for (int j = 0; j < n; ++j) {
      CHECK(i1[j] == rank * n + j, "MPI_Scatter(%s to ints)[%d] = %d", s->name, j, i1[j]);
    }
    for (int j = 0; j < n * size; ++j) ip[j] = j;
    fill(t1, span1);
    CHECK_MPI(MPI_Scatter(ip, n, MPI_INT, t1, 1, s->type, root, MPI_COMM_WORLD));
    expect_item(s, t1, 0, rank * n, "MPI_Scatter(ints to type)");
    expect_holes(s, t1, span1, 1, "MPI_Scatter(ints to type)");
    /* Alltoall: rank q's block for rank r holds 1000 q + r n + j. */
    fill(tp, spanp);
    for (int r = 0; r < size; ++r) {
      MPI_Aint lb, ext;
      MPI_Type_get_extent(s->type, &lb, &ext);
      const int stride = (int)(ext / (MPI_Aint)sizeof(int));
      for (int j = 0; j < n; ++j) tp[r * stride + s->at[j]] = 1000 * rank + r * n + j;
    }
    CHECK_MPI(MPI_Alltoall(tp, 1, s->type, ip, n, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
      for (int j = 0; j < n; ++j) {
        CHECK(ip[q * n + j] == 1000 * q + rank * n + j, "MPI_Alltoall(%s to ints)[%d][%d] = %d",
              s->name, q, j, ip[q * n + j]);
      }
    }
    for (int r = 0; r < size; ++r) {
      for (int j = 0; j < n; ++j) ip[r * n + j] = 1000 * rank + r * n + j;
    }
    fill(tp, spanp);
    CHECK_MPI(MPI_Alltoall(ip, n, MPI_INT, tp, 1, s->type, MPI_COMM_WORLD));
    for (int q = 0; q < size; ++q) {
      expect_item(s, tp, q, 1000 * q + rank * n, "MPI_Alltoall(ints to type)");
    }
    expect_holes(s, tp, spanp, size, "MPI_Alltoall(ints to type)");
#ifndef OPEN_MPI /* Open MPI 4.1 refuses predefined ops on derived types */
    /* Allreduce, MPI_SUM: element j of rank r is r + j. */
    fill(t1, span1);
    fill_items(s, t1, 1, rank);
    fill(tp, spanp);
    CHECK_MPI(MPI_Allreduce(t1, tp, 1, s->type, MPI_SUM, MPI_COMM_WORLD));
    for (int j = 0; j < n; ++j) {
      const int want = size * (size - 1) / 2 + size * j;
      CHECK(tp[s->at[j]] == want, "MPI_Allreduce(%s, MPI_SUM) element %d = %d, expected %d",
            s->name, j, tp[s->at[j]], want);
    }
    expect_holes(s, tp, spanp, 1, "MPI_Allreduce(type, MPI_SUM)");
#endif
    free(t1);
    free(tp);
    free(i1);
    free(ip);
  }
  for (int i = 0; i < count; ++i) MPI_Type_free(&shapes[i].type);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Type_vector(K, 1, 2, MPI_INT, &vec));
  MPI_Datatype v5;
  CHECK_MPI(MPI_Type_create_resized(vec, 0, EXT * (MPI_Aint)sizeof(int), &v5));
  MPI_Type_free(&vec);
  vec = v5;
  CHECK_MPI(MPI_Type_commit(&vec));
  CHECK_MPI(MPI_Type_contiguous(3, MPI_2INT, &pair3));
  CHECK_MPI(MPI_Type_commit(&pair3));
  const int lengths[] = {1, 1};
  const MPI_Aint displs[] = {offsetof(struct int_double, i), offsetof(struct int_double, d)};
  const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct(2, lengths, displs, types, &mixed));
  CHECK_MPI(MPI_Type_commit(&mixed));

  bcast_gather_scatter(1);
  bcast_gather_scatter(0);
  all_to_all(1);
  all_to_all(0);
  mixed_types();
  every_constructor();
#ifndef OPEN_MPI /* Open MPI 4.1 refuses predefined ops on derived types, which MPI-4.1 allows */
  reductions();
#else
  (void)reductions;
#endif

  MPI_Type_free(&vec);
  MPI_Type_free(&pair3);
  MPI_Type_free(&mixed);
  return conf_finish();
}
