/* Fortran's named datatypes from C, through the collectives: a C program may name every
 * predefined datatype of the standard, Fortran's too (MPI-4.1 section 19.3.6), and MPI's
 * reductions apply to them by the standard's groups (section 6.9.2): MPI_INTEGER and
 * MPI_INTEGERn are Fortran integers (MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD and the bitwise
 * operations), MPI_REAL, MPI_DOUBLE_PRECISION and MPI_REALn floating point, MPI_COMPLEX,
 * MPI_DOUBLE_COMPLEX and MPI_COMPLEXn complex, MPI_LOGICAL logical (MPI_LAND, MPI_LOR,
 * MPI_LXOR), and MPI_2INTEGER, MPI_2REAL and MPI_2DOUBLE_PRECISION the pairs of
 * MPI_MAXLOC and MPI_MINLOC (a value and its index, both of the value's type). Each type
 * crosses MPI_Bcast and MPI_Allgather, and every operation that applies to it runs through
 * MPI_Allreduce and MPI_Reduce; the C buffers are of the types of the same sizes (checked
 * first: a Fortran INTEGER, REAL and LOGICAL of 4 bytes, DOUBLE PRECISION of 8). */
#include "conformance.h"

static int rank, size;

/* Fortran integers: int32_t, int8_t, int16_t, int64_t by size. */
static void integers(MPI_Datatype t, const char* name, int bytes) {
  int s = 0;
  CHECK_MPI(MPI_Type_size(t, &s));
  CHECK(s == bytes, "MPI_Type_size(%s) is %d, expected %d", name, s, bytes);
  if (s != bytes) return;
  /* Values small enough for every width: rank + 1 and the ranks' bits. */
  long long in[4] = {rank + 1, -(rank + 1), 1LL << (rank % 7), rank % 3 + 1};
  unsigned char send[4 * 8], out[4 * 8];
  for (int i = 0; i < 4; ++i) {
    switch (bytes) {
      case 1: ((int8_t*)send)[i] = (int8_t)in[i]; break;
      case 2: ((int16_t*)send)[i] = (int16_t)in[i]; break;
      case 4: ((int32_t*)send)[i] = (int32_t)in[i]; break;
      default: ((int64_t*)send)[i] = (int64_t)in[i]; break;
    }
  }
  struct {
    MPI_Op op;
    const char* name;
  } ops[] = {{MPI_SUM, "MPI_SUM"}, {MPI_MAX, "MPI_MAX"}, {MPI_MIN, "MPI_MIN"},
             {MPI_BOR, "MPI_BOR"}, {MPI_BAND, "MPI_BAND"}, {MPI_BXOR, "MPI_BXOR"}};
  for (int k = 0; k < 6; ++k) {
    /* Element 0 (rank + 1) of every rank, combined; the bit pattern 1 << (r % 7) for BOR. */
    long long expect = 0;
    for (int r = 0; r < size; ++r) {
      const long long v = r + 1;
      if (ops[k].op == MPI_SUM) expect += v;
      if (ops[k].op == MPI_MAX) expect = r == 0 ? v : (v > expect ? v : expect);
      if (ops[k].op == MPI_MIN) expect = r == 0 ? v : (v < expect ? v : expect);
      if (ops[k].op == MPI_BOR) expect |= v;
      if (ops[k].op == MPI_BAND) expect = r == 0 ? v : (expect & v);
      if (ops[k].op == MPI_BXOR) expect ^= v;
    }
    memset(out, 0, sizeof out);
    CHECK_MPI(MPI_Allreduce(send, out, 4, t, ops[k].op, MPI_COMM_WORLD));
    long long got = 0;
    switch (bytes) {
      case 1: got = ((int8_t*)out)[0]; expect = (int8_t)expect; break;
      case 2: got = ((int16_t*)out)[0]; expect = (int16_t)expect; break;
      case 4: got = ((int32_t*)out)[0]; break;
      default: got = ((int64_t*)out)[0]; break;
    }
    CHECK(got == expect, "MPI_Allreduce(%s, %s): %lld, expected %lld", name, ops[k].name, got,
          expect);
  }
  /* MPI_PROD of element 3 (r % 3 + 1) at the root. */
  long long prod = 1;
  for (int r = 0; r < size; ++r) prod *= r % 3 + 1;
  memset(out, 0, sizeof out);
  CHECK_MPI(MPI_Reduce(send, out, 4, t, MPI_PROD, size - 1, MPI_COMM_WORLD));
  if (rank == size - 1 && bytes >= 4) {
    const long long got = bytes == 4 ? ((int32_t*)out)[3] : ((int64_t*)out)[3];
    const long long want = bytes == 4 ? (int32_t)prod : prod;
    CHECK(got == want, "MPI_Reduce(%s, MPI_PROD): %lld, expected %lld", name, got, want);
  }
}

static void reals(void) {
  float f[2] = {(float)rank + 0.5f, -(float)rank}, fo[2];
  double d[2] = {(double)rank + 0.25, -(double)rank}, dout[2];
  CHECK_MPI(MPI_Allreduce(f, fo, 2, MPI_REAL, MPI_SUM, MPI_COMM_WORLD));
  CHECK(fo[0] == (float)(size * (size - 1)) / 2.0f + 0.5f * (float)size,
        "MPI_Allreduce(MPI_REAL, MPI_SUM): %g", (double)fo[0]);
  CHECK_MPI(MPI_Allreduce(f, fo, 2, MPI_REAL4, MPI_MIN, MPI_COMM_WORLD));
  CHECK(fo[1] == -(float)(size - 1), "MPI_Allreduce(MPI_REAL4, MPI_MIN): %g", (double)fo[1]);
  CHECK_MPI(MPI_Allreduce(d, dout, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD));
  CHECK(dout[0] == (double)(size - 1) + 0.25, "MPI_Allreduce(MPI_DOUBLE_PRECISION, MPI_MAX): %g",
        dout[0]);
  CHECK_MPI(MPI_Allreduce(d, dout, 2, MPI_REAL8, MPI_SUM, MPI_COMM_WORLD));
  CHECK(dout[1] == -(double)(size * (size - 1)) / 2.0, "MPI_Allreduce(MPI_REAL8, MPI_SUM): %g",
        dout[1]);
}

static void complexes(void) {
  /* (1 + i) to the power p, by MPI_PROD of 1 + i on every rank; and a sum. */
  float _Complex fc = 1.0f + 1.0f * I, fco = 0;
  double _Complex dc = 1.0 + 1.0 * I, dco = 0;
  double _Complex want = 1;
  for (int r = 0; r < size; ++r) want *= 1.0 + 1.0 * I;
  CHECK_MPI(MPI_Allreduce(&dc, &dco, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
  CHECK(dco == want, "MPI_Allreduce(MPI_DOUBLE_COMPLEX, MPI_PROD): %g%+gi, expected %g%+gi",
        creal(dco), cimag(dco), creal(want), cimag(want));
  CHECK_MPI(MPI_Allreduce(&dc, &dco, 1, MPI_COMPLEX16, MPI_SUM, MPI_COMM_WORLD));
  CHECK(dco == (double)size * (1.0 + 1.0 * I), "MPI_Allreduce(MPI_COMPLEX16, MPI_SUM): %g%+gi",
        creal(dco), cimag(dco));
  CHECK_MPI(MPI_Allreduce(&fc, &fco, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  CHECK(fco == (float)size * (1.0f + 1.0f * I), "MPI_Allreduce(MPI_COMPLEX, MPI_SUM): %g%+gi",
        (double)crealf(fco), (double)cimagf(fco));
  CHECK_MPI(MPI_Reduce(&fc, &fco, 1, MPI_COMPLEX8, MPI_PROD, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK(fco == (float _Complex)want, "MPI_Reduce(MPI_COMPLEX8, MPI_PROD): %g%+gi",
          (double)crealf(fco), (double)cimagf(fco));
  }
}

/* MPI_LOGICAL: a Fortran LOGICAL in a 4-byte integer, 0 false and nonzero true. */
static void logicals(void) {
  int32_t v[3] = {1, 0, rank == size - 1}, out[3];
  CHECK_MPI(MPI_Allreduce(v, out, 3, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
  CHECK(out[0] != 0 && out[1] == 0 && (out[2] != 0) == (size == 1),
        "MPI_Allreduce(MPI_LOGICAL, MPI_LAND): %d %d %d", out[0], out[1], out[2]);
  CHECK_MPI(MPI_Allreduce(v, out, 3, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
  CHECK(out[0] != 0 && out[1] == 0 && out[2] != 0, "MPI_Allreduce(MPI_LOGICAL, MPI_LOR): %d %d %d",
        out[0], out[1], out[2]);
  CHECK_MPI(MPI_Allreduce(v, out, 3, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD));
  CHECK((out[0] != 0) == (size % 2 == 1) && out[1] == 0 && out[2] != 0,
        "MPI_Allreduce(MPI_LOGICAL, MPI_LXOR): %d %d %d", out[0], out[1], out[2]);
}

/* The pairs: the value rank % 3 (the largest, 2 or less, first held by rank 2), its index
 * the rank; MPI_MINLOC's value 0 is first held by rank 0. */
static void pairs(void) {
  int32_t ii[2] = {rank % 3, rank}, io[2] = {-1, -1};
  float ff[2] = {(float)(rank % 3), (float)rank}, fo[2] = {-1, -1};
  double dd[2] = {(double)(rank % 3), (double)rank}, dout[2] = {-1, -1};
  const int max = size < 3 ? size - 1 : 2, at = max;
  CHECK_MPI(MPI_Allreduce(ii, io, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
  CHECK(io[0] == max && io[1] == at, "MPI_Allreduce(MPI_2INTEGER, MPI_MAXLOC): (%d, %d)", io[0],
        io[1]);
  CHECK_MPI(MPI_Allreduce(ff, fo, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD));
  CHECK(fo[0] == (float)max && fo[1] == (float)at, "MPI_Allreduce(MPI_2REAL, MPI_MAXLOC): (%g, %g)",
        (double)fo[0], (double)fo[1]);
  CHECK_MPI(MPI_Allreduce(dd, dout, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK(dout[0] == 0 && dout[1] == 0, "MPI_Allreduce(MPI_2DOUBLE_PRECISION, MPI_MINLOC): (%g, %g)",
        dout[0], dout[1]);
}

/* Every Fortran type with data moves: MPI_Bcast from the last rank and MPI_Allgather. */
static void moves(void) {
  const struct {
    MPI_Datatype t;
    const char* name;
  } all[] = {{MPI_CHARACTER, "MPI_CHARACTER"}, {MPI_LOGICAL, "MPI_LOGICAL"},
             {MPI_INTEGER, "MPI_INTEGER"}, {MPI_REAL, "MPI_REAL"},
             {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"}, {MPI_COMPLEX, "MPI_COMPLEX"},
             {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"}, {MPI_2INTEGER, "MPI_2INTEGER"},
             {MPI_2REAL, "MPI_2REAL"}, {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"},
             {MPI_INTEGER8, "MPI_INTEGER8"}, {MPI_REAL8, "MPI_REAL8"}};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; ++k) {
    int s = 0;
    CHECK_MPI(MPI_Type_size(all[k].t, &s));
    CHECK(s > 0, "MPI_Type_size(%s) is %d", all[k].name, s);
    if (s <= 0) continue;
    unsigned char* buf = conf_alloc((size_t)s * 3);
    unsigned char* gathered = conf_alloc((size_t)s * (size_t)size);
    for (int b = 0; b < s * 3; ++b) buf[b] = (unsigned char)(rank * 31 + b);
    CHECK_MPI(MPI_Bcast(buf, 3, all[k].t, size - 1, MPI_COMM_WORLD));
    int wrong = 0;
    for (int b = 0; b < s * 3; ++b) wrong += buf[b] != (unsigned char)((size - 1) * 31 + b);
    CHECK(wrong == 0, "MPI_Bcast(%s): %d bytes differ from the root's", all[k].name, wrong);
    for (int b = 0; b < s; ++b) buf[b] = (unsigned char)(rank * 7 + b);
    CHECK_MPI(MPI_Allgather(buf, 1, all[k].t, gathered, 1, all[k].t, MPI_COMM_WORLD));
    wrong = 0;
    for (int r = 0; r < size; ++r) {
      for (int b = 0; b < s; ++b) wrong += gathered[r * s + b] != (unsigned char)(r * 7 + b);
    }
    CHECK(wrong == 0, "MPI_Allgather(%s): %d bytes wrong", all[k].name, wrong);
    free(buf);
    free(gathered);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  integers(MPI_INTEGER, "MPI_INTEGER", 4);
  integers(MPI_INTEGER1, "MPI_INTEGER1", 1);
  integers(MPI_INTEGER2, "MPI_INTEGER2", 2);
  integers(MPI_INTEGER4, "MPI_INTEGER4", 4);
  integers(MPI_INTEGER8, "MPI_INTEGER8", 8);
  reals();
  complexes();
  logicals();
  pairs();
  moves();
  return conf_finish();
}
