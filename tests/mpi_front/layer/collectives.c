/* The MPI layer's collectives against the standard's semantics: every collective on
 * MPI_COMM_WORLD, on a split that reverses the ranks of each half, on MPI_COMM_SELF and on a
 * dup (only MPI_COMM_WORLD with the argument "world"), the first and the last rank as root,
 * counts 0, 1 and 5 (and counts that differ between ranks for the v-forms, zero among them),
 * in place and not, every predefined operation on types it applies to, MAXLOC and MINLOC with
 * ties. Exit status 0 and "collectives: ok" from rank 0 when every rank's every check held;
 * otherwise each failure is printed.
 *
 *   vmcc collectives.c -o collectives && vmc mpirun -np 8 ./collectives [world] */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors = 0;
static int world_rank = 0;
static const char* where = "";

#define CHECK(cond, ...)                                                     \
  do {                                                                       \
    if (!(cond)) {                                                           \
      if (errors < 10) {                                                     \
        fprintf(stderr, "rank %d, %s, line %d: ", world_rank, where, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                        \
        fprintf(stderr, "\n");                                               \
      }                                                                      \
      ++errors;                                                              \
    }                                                                        \
  } while (0)

/* Rank r's item i: distinct for every (rank, item). */
static int item(int r, int i) { return 1000 * r + i + 1; }

static int counts[] = {0, 1, 5};
#define NCOUNTS 3

/* The roots tried: the first and the last rank (automatic selection simulates each new shape
 * of a call once, about 10 ms, so every root of every p would take long). */
static int roots[4], nroots = 0;
static void pick_roots(int p) {
  int want[4] = {0, p - 1, p - 1, p - 1};
  nroots = 0;
  for (int i = 0; i < 4; ++i) {
    int seen = want[i] >= p;
    for (int j = 0; j < nroots; ++j) seen |= roots[j] == want[i];
    if (!seen) roots[nroots++] = want[i];
  }
}
#define FOR_ROOTS for (int ri = 0, root = roots[0]; ri < nroots; ++ri, root = roots[ri < nroots ? ri : 0])

static void test_bcast(MPI_Comm comm, int me) {
  FOR_ROOTS {
    for (int k = 0; k < NCOUNTS; ++k) {
      int n = counts[k];
      int buf[5];
      double d[5];
      for (int i = 0; i < 5; ++i) {
        buf[i] = me == root ? item(root, i) : -1;
        d[i] = me == root ? item(root, i) / 4.0 : -1;
      }
      MPI_Bcast(buf, n, MPI_INT, root, comm);
      MPI_Bcast(d, n, MPI_DOUBLE, root, comm);
      for (int i = 0; i < n; ++i) {
        CHECK(buf[i] == item(root, i), "bcast root %d n %d: buf[%d] = %d", root, n, i, buf[i]);
        CHECK(d[i] == item(root, i) / 4.0, "bcast double root %d: d[%d] = %g", root, i, d[i]);
      }
      for (int i = n; i < 5; ++i) CHECK(buf[i] == (me == root ? item(root, i) : -1), "bcast wrote past n");
    }
  }
}

static void test_reduce(MPI_Comm comm, int p, int me) {
  FOR_ROOTS {
    for (int k = 0; k < NCOUNTS; ++k) {
      int n = counts[k];
      int in[5], out[5], inplace[5];
      for (int i = 0; i < 5; ++i) {
        in[i] = item(me, i);
        out[i] = -7;
        inplace[i] = item(me, i);
      }
      MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root, comm);
      MPI_Reduce(me == root ? MPI_IN_PLACE : inplace, me == root ? inplace : NULL, n, MPI_INT,
                 MPI_MAX, root, comm);
      if (me == root) {
        for (int i = 0; i < n; ++i) {
          int sum = 0;
          for (int r = 0; r < p; ++r) sum += item(r, i);
          CHECK(out[i] == sum, "reduce sum root %d n %d: out[%d] = %d, expected %d", root, n, i,
                out[i], sum);
          CHECK(inplace[i] == item(p - 1, i), "reduce max in place root %d: %d", root, inplace[i]);
        }
        for (int i = n; i < 5; ++i) CHECK(out[i] == -7, "reduce wrote past n");
      } else {
        for (int i = 0; i < 5; ++i) CHECK(out[i] == -7, "reduce wrote a non-root's recvbuf");
      }
    }
  }
}

/* Every operation on the types it applies to, with allreduce (in place and not). */
static void test_ops(MPI_Comm comm, int p, int me) {
  const int n = 3;
  /* integers: sum, prod, max, min, band, bor, bxor, land, lor, lxor */
  MPI_Op iops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR,
                   MPI_LAND, MPI_LOR, MPI_LXOR};
  for (int o = 0; o < 10; ++o) {
    long long in[3], out[3], expect[3];
    for (int i = 0; i < n; ++i) {
      in[i] = (me + i) % 3 + (o == 1 ? 1 : 5 * me);
      for (int r = 0; r < p; ++r) {
        long long v = (r + i) % 3 + (o == 1 ? 1 : 5 * r);
        long long e = r == 0 ? v : expect[i];
        switch (o) {
          case 0: e = r == 0 ? v : e + v; break;
          case 1: e = r == 0 ? v : e * v; break;
          case 2: e = r == 0 || v > e ? v : e; break;
          case 3: e = r == 0 || v < e ? v : e; break;
          case 4: e = r == 0 ? v : (e & v); break;
          case 5: e = r == 0 ? v : (e | v); break;
          case 6: e = r == 0 ? v : (e ^ v); break;
          case 7: e = r == 0 ? v : (e && v); break;
          case 8: e = r == 0 ? v : (e || v); break;
          case 9: e = r == 0 ? v : ((e != 0) != (v != 0)); break;
        }
        expect[i] = e;
      }
    }
    MPI_Allreduce(in, out, n, MPI_LONG_LONG, iops[o], comm);
    for (int i = 0; i < n; ++i) {
      CHECK(out[i] == expect[i], "allreduce op #%d long long: out[%d] = %lld, expected %lld", o, i,
            out[i], expect[i]);
    }
    MPI_Allreduce(MPI_IN_PLACE, in, n, MPI_LONG_LONG, iops[o], comm);
    for (int i = 0; i < n; ++i) CHECK(in[i] == expect[i], "allreduce in place op #%d", o);
  }
  /* floating point and complex sums, bytes, booleans, unsigned */
  double d = me + 0.5, dsum = 0;
  MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, comm);
  CHECK(dsum == p * (p - 1) / 2.0 + 0.5 * p, "double sum %g", dsum);
  float f = (float)me, fmax = -1;
  MPI_Allreduce(&f, &fmax, 1, MPI_FLOAT, MPI_MAX, comm);
  CHECK(fmax == (float)(p - 1), "float max %g", fmax);
  double complex z = me + 1.0 * I, zsum = 0;
  MPI_Allreduce(&z, &zsum, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, comm);
  CHECK(creal(zsum) == p * (p - 1) / 2.0 && cimag(zsum) == p, "complex sum %g%+gi", creal(zsum),
        cimag(zsum));
  unsigned char b = (unsigned char)(1u << (me % 8)), bor = 0;
  MPI_Allreduce(&b, &bor, 1, MPI_BYTE, MPI_BOR, comm);
  unsigned char ebor = 0;
  for (int r = 0; r < p; ++r) ebor |= (unsigned char)(1u << (r % 8));
  CHECK(bor == ebor, "byte bor %u, expected %u", bor, ebor);
  bool flag = me == p - 1, any = false, all = true;
  MPI_Allreduce(&flag, &any, 1, MPI_C_BOOL, MPI_LOR, comm);
  MPI_Allreduce(&flag, &all, 1, MPI_C_BOOL, MPI_LAND, comm);
  CHECK(any && all == (p == 1), "bool lor %d land %d", any, all);
  char c = (char)(me % 100), cmax = -1; /* MPI_CHAR reduces as MPICH has it */
  MPI_Allreduce(&c, &cmax, 1, MPI_CHAR, MPI_MAX, comm);
  CHECK(cmax == (char)((p - 1) % 100), "char max %d", cmax);
  unsigned u = 1u << me % 31, usum = 0;
  MPI_Allreduce(&u, &usum, 1, MPI_UNSIGNED, MPI_BXOR, comm);
  unsigned eu = 0;
  for (int r = 0; r < p; ++r) eu ^= 1u << r % 31;
  CHECK(usum == eu, "unsigned bxor %u, expected %u", usum, eu);
}

/* MAXLOC and MINLOC: the value, and the smallest index among its holders. */
static void test_loc(MPI_Comm comm, int p, int me) {
  struct { double value; int index; } din[2], dout[2];
  struct { int value; int index; } iin[2], iout[2];
  din[0].value = me % 3; din[0].index = me;        /* ties: every rank with me % 3 == max */
  din[1].value = -(me % 4); din[1].index = 100 - me;
  iin[0].value = me / 2; iin[0].index = me;
  iin[1].value = 7; iin[1].index = p - me;        /* all tie: smallest index wins */
  MPI_Allreduce(din, dout, 2, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  MPI_Allreduce(iin, iout, 2, MPI_2INT, MPI_MINLOC, comm);
  double max0 = -1; int at0 = -1;
  for (int r = 0; r < p; ++r) if (r % 3 > max0) { max0 = r % 3; at0 = r; }
  double max1 = -1e9; int at1 = 1 << 30;
  for (int r = 0; r < p; ++r) {
    double v = -(r % 4);
    if (v > max1 || (v == max1 && 100 - r < at1)) { max1 = v; at1 = 100 - r; }
  }
  CHECK(dout[0].value == max0 && dout[0].index == at0, "maxloc[0] (%g, %d), expected (%g, %d)",
        dout[0].value, dout[0].index, max0, at0);
  CHECK(dout[1].value == max1 && dout[1].index == at1, "maxloc[1] (%g, %d), expected (%g, %d)",
        dout[1].value, dout[1].index, max1, at1);
  CHECK(iout[0].value == 0 && iout[0].index == 0, "minloc[0] (%d, %d)", iout[0].value, iout[0].index);
  CHECK(iout[1].value == 7 && iout[1].index == 1, "minloc[1] (%d, %d)", iout[1].value, iout[1].index);
  MPI_Allreduce(MPI_IN_PLACE, iin, 2, MPI_2INT, MPI_MAXLOC, comm);
  CHECK(iin[0].value == (p - 1) / 2 && iin[0].index == ((p - 1) / 2) * 2, "maxloc in place (%d, %d)",
        iin[0].value, iin[0].index);
}

static void test_gather_scatter(MPI_Comm comm, int p, int me) {
  int* all = malloc(sizeof(int) * 5 * p + 4);
  FOR_ROOTS {
    for (int k = 0; k < NCOUNTS; ++k) {
      int n = counts[k];
      int mine[5];
      for (int i = 0; i < 5; ++i) mine[i] = item(me, i);
      for (int i = 0; i < 5 * p; ++i) all[i] = -1;
      MPI_Gather(mine, n, MPI_INT, all, n, MPI_INT, root, comm);
      if (me == root) {
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < n; ++i)
            CHECK(all[r * n + i] == item(r, i), "gather root %d n %d: block %d item %d = %d", root,
                  n, r, i, all[r * n + i]);
      }
      /* in place: the root's own block is already there */
      for (int i = 0; i < 5 * p; ++i) all[i] = -1;
      for (int i = 0; i < n; ++i) all[me * n + i] = item(me, i);
      if (me == root) {
        MPI_Gather(MPI_IN_PLACE, n, MPI_INT, all, n, MPI_INT, root, comm);
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < n; ++i)
            CHECK(all[r * n + i] == item(r, i), "gather in place root %d", root);
      } else {
        MPI_Gather(mine, n, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, comm);
      }
      /* scatter: the root's blocks item(r, i) + 7 go to rank r */
      for (int i = 0; i < 5 * p; ++i) all[i] = -1;
      if (me == root)
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < n; ++i) all[r * n + i] = item(r, i) + 7;
      int got[5] = {-1, -1, -1, -1, -1};
      MPI_Scatter(all, n, MPI_INT, got, n, MPI_INT, root, comm);
      for (int i = 0; i < n; ++i) CHECK(got[i] == item(me, i) + 7, "scatter root %d n %d: got[%d] = %d", root, n, i, got[i]);
      for (int i = n; i < 5; ++i) CHECK(got[i] == -1, "scatter wrote past n");
      if (me == root) {
        MPI_Scatter(all, n, MPI_INT, MPI_IN_PLACE, n, MPI_INT, root, comm);
        for (int i = 0; i < n; ++i) CHECK(all[me * n + i] == item(me, i) + 7, "scatter in place moved the root's block");
      } else {
        int g2[5] = {-1, -1, -1, -1, -1};
        MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, g2, n, MPI_INT, root, comm);
        for (int i = 0; i < n; ++i) CHECK(g2[i] == item(me, i) + 7, "scatter (root in place) root %d", root);
      }
    }
  }
  free(all);
}

/* The v-forms: rank r's block has (r + shift) % 3 items (zeros among them), placed in
 * reverse rank order with a gap of one item. */
static void layout(int p, int shift, int* cnt, int* displs, int* total) {
  int at = 0;
  for (int r = p - 1; r >= 0; --r) {
    cnt[r] = (r + shift) % 3;
    displs[r] = at;
    at += cnt[r] + 1;
  }
  *total = at;
}

static void test_v(MPI_Comm comm, int p, int me) {
  int* cnt = malloc(sizeof(int) * p);
  int* displs = malloc(sizeof(int) * p);
  int total;
  for (int shift = 0; shift < 2; ++shift) {
    layout(p, shift, cnt, displs, &total);
    int* buf = malloc(sizeof(int) * (total + 1));
    int mine[3];
    for (int i = 0; i < 3; ++i) mine[i] = item(me, i);
    /* allgatherv, then in place */
    for (int i = 0; i < total; ++i) buf[i] = -1;
    MPI_Allgatherv(mine, cnt[me], MPI_INT, buf, cnt, displs, MPI_INT, comm);
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < cnt[r]; ++i)
        CHECK(buf[displs[r] + i] == item(r, i), "allgatherv: block %d item %d = %d", r, i, buf[displs[r] + i]);
    for (int i = 0; i < total; ++i) buf[i] = -1;
    for (int i = 0; i < cnt[me]; ++i) buf[displs[me] + i] = item(me, i);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, cnt, displs, MPI_INT, comm);
    for (int r = 0; r < p; ++r)
      for (int i = 0; i < cnt[r]; ++i)
        CHECK(buf[displs[r] + i] == item(r, i), "allgatherv in place: block %d item %d", r, i);
    FOR_ROOTS {
      for (int i = 0; i < total; ++i) buf[i] = -1;
      MPI_Gatherv(mine, cnt[me], MPI_INT, buf, cnt, displs, MPI_INT, root, comm);
      if (me == root) {
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < cnt[r]; ++i)
            CHECK(buf[displs[r] + i] == item(r, i), "gatherv root %d: block %d item %d = %d", root, r, i, buf[displs[r] + i]);
        for (int r = 0; r < p; ++r) CHECK(buf[displs[r] + cnt[r]] == -1, "gatherv wrote a gap");
      }
      /* scatterv: block r holds item(r, i) + 3 */
      for (int i = 0; i < total; ++i) buf[i] = -1;
      if (me == root)
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < cnt[r]; ++i) buf[displs[r] + i] = item(r, i) + 3;
      int got[3] = {-1, -1, -1};
      MPI_Scatterv(buf, cnt, displs, MPI_INT, got, cnt[me], MPI_INT, root, comm);
      for (int i = 0; i < cnt[me]; ++i) CHECK(got[i] == item(me, i) + 3, "scatterv root %d: got[%d] = %d", root, i, got[i]);
      for (int i = cnt[me]; i < 3; ++i) CHECK(got[i] == -1, "scatterv wrote past the count");
      /* in place at the root */
      if (me == root) {
        MPI_Scatterv(buf, cnt, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root, comm);
        for (int i = 0; i < total; ++i) buf[i] = -1;
        for (int i = 0; i < cnt[me]; ++i) buf[displs[me] + i] = item(me, i);
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, buf, cnt, displs, MPI_INT, root, comm);
        for (int r = 0; r < p; ++r)
          for (int i = 0; i < cnt[r]; ++i)
            CHECK(buf[displs[r] + i] == item(r, i), "gatherv in place root %d: block %d", root, r);
      } else {
        int g2[3] = {-1, -1, -1};
        MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, g2, cnt[me], MPI_INT, root, comm);
        for (int i = 0; i < cnt[me]; ++i) CHECK(g2[i] == item(me, i) + 3, "scatterv (root in place)");
        MPI_Gatherv(mine, cnt[me], MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, comm);
      }
    }
    free(buf);
  }
  free(cnt);
  free(displs);
}

static void test_alltoall(MPI_Comm comm, int p, int me) {
  for (int k = 0; k < NCOUNTS; ++k) {
    int n = counts[k];
    int* s = malloc(sizeof(int) * (n * p + 1));
    int* r = malloc(sizeof(int) * (n * p + 1));
    /* block d of rank me: item(me, d * 10 + i) */
    for (int d = 0; d < p; ++d)
      for (int i = 0; i < n; ++i) s[d * n + i] = item(me, d * 10 + i);
    for (int i = 0; i < n * p; ++i) r[i] = -1;
    MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, comm);
    for (int src = 0; src < p; ++src)
      for (int i = 0; i < n; ++i)
        CHECK(r[src * n + i] == item(src, me * 10 + i), "alltoall n %d: from %d item %d = %d", n, src, i, r[src * n + i]);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s, n, MPI_INT, comm);
    for (int src = 0; src < p; ++src)
      for (int i = 0; i < n; ++i)
        CHECK(s[src * n + i] == item(src, me * 10 + i), "alltoall in place n %d", n);
    free(s);
    free(r);
  }
  /* alltoallv: rank s sends (s + d) % 3 items to d, blocks packed in order; received in
   * reverse source order */
  int *sc = malloc(sizeof(int) * p), *sd = malloc(sizeof(int) * p);
  int *rc = malloc(sizeof(int) * p), *rd = malloc(sizeof(int) * p);
  int st = 0, rt = 0;
  for (int d = 0; d < p; ++d) { sc[d] = (me + d) % 3; sd[d] = st; st += sc[d]; }
  for (int s = p - 1; s >= 0; --s) { rc[s] = (s + me) % 3; rd[s] = rt; rt += rc[s]; }
  int* sb = malloc(sizeof(int) * (st + 1));
  int* rb = malloc(sizeof(int) * (rt + 1));
  for (int d = 0; d < p; ++d)
    for (int i = 0; i < sc[d]; ++i) sb[sd[d] + i] = item(me, d * 10 + i);
  for (int i = 0; i < rt; ++i) rb[i] = -1;
  MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm);
  for (int s = 0; s < p; ++s)
    for (int i = 0; i < rc[s]; ++i)
      CHECK(rb[rd[s] + i] == item(s, me * 10 + i), "alltoallv: from %d item %d = %d", s, i, rb[rd[s] + i]);
  free(sb); free(rb); free(sc); free(sd); free(rc); free(rd);
}

static void test_reduce_scatter_scan(MPI_Comm comm, int p, int me) {
  for (int k = 0; k < NCOUNTS; ++k) {
    int n = counts[k];
    int* s = malloc(sizeof(int) * (n * p + 1));
    int r[5] = {-1, -1, -1, -1, -1};
    for (int i = 0; i < n * p; ++i) s[i] = item(me, i);
    MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < n; ++i) {
      int e = 0;
      for (int q = 0; q < p; ++q) e += item(q, me * n + i);
      CHECK(r[i] == e, "reduce_scatter_block n %d: r[%d] = %d, expected %d", n, i, r[i], e);
    }
    MPI_Reduce_scatter_block(MPI_IN_PLACE, s, n, MPI_INT, MPI_MAX, comm);
    for (int i = 0; i < n; ++i) CHECK(s[i] == item(p - 1, me * n + i), "reduce_scatter_block in place");
    free(s);
    /* scan and exscan */
    int in[5], out[5] = {-1, -1, -1, -1, -1}, ex[5] = {-1, -1, -1, -1, -1};
    for (int i = 0; i < 5; ++i) in[i] = item(me, i);
    MPI_Scan(in, out, n, MPI_INT, MPI_SUM, comm);
    MPI_Exscan(in, ex, n, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < n; ++i) {
      int e = 0;
      for (int q = 0; q < me; ++q) e += item(q, i);
      CHECK(out[i] == e + item(me, i), "scan n %d: out[%d] = %d", n, i, out[i]);
      if (me > 0) CHECK(ex[i] == e, "exscan n %d: ex[%d] = %d, expected %d", n, i, ex[i], e);
    }
    MPI_Scan(MPI_IN_PLACE, in, n, MPI_INT, MPI_MAX, comm);
    for (int i = 0; i < n; ++i) CHECK(in[i] == item(me, i), "scan max in place");
    for (int i = 0; i < 5; ++i) in[i] = item(me, i);
    MPI_Exscan(MPI_IN_PLACE, in, n, MPI_INT, MPI_MIN, comm);
    for (int i = 0; i < n; ++i) if (me > 0) CHECK(in[i] == item(0, i), "exscan min in place");
  }
  /* reduce_scatter with counts (r % 3, zeros among them) */
  int* rc = malloc(sizeof(int) * p);
  int total = 0, before = 0;
  for (int q = 0; q < p; ++q) { rc[q] = q % 3; if (q < me) before += rc[q]; total += rc[q]; }
  int* s = malloc(sizeof(int) * (total + 1));
  for (int i = 0; i < total; ++i) s[i] = item(me, i);
  int r[3] = {-1, -1, -1};
  MPI_Reduce_scatter(s, r, rc, MPI_INT, MPI_SUM, comm);
  for (int i = 0; i < rc[me]; ++i) {
    int e = 0;
    for (int q = 0; q < p; ++q) e += item(q, before + i);
    CHECK(r[i] == e, "reduce_scatter: r[%d] = %d, expected %d", i, r[i], e);
  }
  MPI_Reduce_scatter(MPI_IN_PLACE, s, rc, MPI_INT, MPI_SUM, comm);
  for (int i = 0; i < rc[me]; ++i) {
    int e = 0;
    for (int q = 0; q < p; ++q) e += item(q, before + i);
    CHECK(s[i] == e, "reduce_scatter in place: s[%d] = %d, expected %d", i, s[i], e);
  }
  free(s);
  free(rc);
}

/* Every collective with no items and null buffers (a count of 0 makes any buffer valid). */
static void test_null_buffers(MPI_Comm comm, int p) {
  int* zeros = calloc((size_t)p, sizeof(int));
  MPI_Bcast(NULL, 0, MPI_INT, 0, comm);
  MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_SUM, 0, comm);
  MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, NULL, 0, MPI_INT, MPI_SUM, comm);
  MPI_Gather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, comm);
  MPI_Scatter(NULL, 0, MPI_INT, NULL, 0, MPI_INT, 0, comm);
  MPI_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm);
  MPI_Alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm);
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, NULL, 0, MPI_INT, comm);
  MPI_Allgatherv(NULL, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, comm);
  MPI_Alltoallv(NULL, zeros, zeros, MPI_INT, NULL, zeros, zeros, MPI_INT, comm);
  MPI_Gatherv(NULL, 0, MPI_INT, NULL, zeros, zeros, MPI_INT, 0, comm);
  MPI_Scatterv(NULL, zeros, zeros, MPI_INT, NULL, 0, MPI_INT, 0, comm);
  MPI_Reduce_scatter(NULL, NULL, zeros, MPI_INT, MPI_SUM, comm);
  MPI_Reduce_scatter_block(NULL, NULL, 0, MPI_INT, MPI_SUM, comm);
  MPI_Reduce_scatter_block(MPI_IN_PLACE, NULL, 0, MPI_INT, MPI_SUM, comm);
  MPI_Scan(NULL, NULL, 0, MPI_INT, MPI_SUM, comm);
  MPI_Exscan(NULL, NULL, 0, MPI_INT, MPI_SUM, comm);
  free(zeros);
}

static void test_comm(MPI_Comm comm, const char* name) {
  int p, me;
  where = name;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  pick_roots(p);
  MPI_Barrier(comm);
  test_bcast(comm, me);
  test_reduce(comm, p, me);
  test_ops(comm, p, me);
  test_loc(comm, p, me);
  test_gather_scatter(comm, p, me);
  test_v(comm, p, me);
  test_alltoall(comm, p, me);
  test_reduce_scatter_scan(comm, p, me);
  test_null_buffers(comm, p);
  MPI_Barrier(comm);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int p;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  test_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  if (argc < 2 || strcmp(argv[1], "world") != 0) {
    /* each half, its ranks in reverse order */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < p / 2, p - world_rank, &half);
    test_comm(half, "a half, reversed");
    test_comm(MPI_COMM_SELF, "MPI_COMM_SELF");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    test_comm(dup, "a dup of MPI_COMM_WORLD");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
  }
  where = "the end";
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0) {
    if (total == 0) printf("collectives: ok, %d ranks\n", p);
    else printf("collectives: %d failures, %d ranks\n", total, p);
  }
  MPI_Finalize();
  return total != 0;
}
