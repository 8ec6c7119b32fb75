/* Derived datatypes: every constructor's size, bounds and true bounds against values computed
 * by hand (struct padding, MPI_LB and MPI_UB markers, resized types and types made of them,
 * subarrays in both orders, zero-size types); envelopes and contents; names; MPI_Get_address,
 * MPI_Aint_add and MPI_Aint_diff; MPI_Pack, MPI_Unpack and MPI_Pack_size round trips; and
 * every constructor through point to point (blocking, nonblocking, persistent, Sendrecv,
 * matched probes), sent as the derived type and received as its signature's plain ints and
 * the reverse, with MPI_Get_count and MPI_Get_elements on whole and cut messages. Then the
 * errors: an uncommitted type, a freed handle, a message longer than the receive, freeing a
 * predefined type, a predefined op on a type of mixed elements. */
#include "conformance.h"
#include "shapes.h"

static int rank, size, next, prev;

/* --- bounds --------------------------------------------------------------------------------- */

static void expect_bounds(MPI_Datatype t, const char* what, MPI_Count size_want, MPI_Aint lb_want,
                          MPI_Aint extent_want, MPI_Aint true_lb_want, MPI_Aint true_extent_want) {
  int sz = -1;
  MPI_Aint lb = -1, extent = -1, tlb = -1, textent = -1;
  CHECK_MPI(MPI_Type_size(t, &sz));
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  CHECK_MPI(MPI_Type_get_true_extent(t, &tlb, &textent));
  CHECK(sz == size_want, "%s: size %d, expected %lld", what, sz, (long long)size_want);
  CHECK(lb == lb_want && extent == extent_want, "%s: lb %ld extent %ld, expected %ld and %ld", what,
        (long)lb, (long)extent, (long)lb_want, (long)extent_want);
  CHECK(tlb == true_lb_want && textent == true_extent_want,
        "%s: true lb %ld true extent %ld, expected %ld and %ld", what, (long)tlb, (long)textent,
        (long)true_lb_want, (long)true_extent_want);
  MPI_Count lbx = -1, extentx = -1, sizex = -1;
  CHECK_MPI(MPI_Type_get_extent_x(t, &lbx, &extentx));
  CHECK_MPI(MPI_Type_size_x(t, &sizex));
  CHECK(lbx == lb_want && extentx == extent_want && sizex == size_want, "%s: the _x forms disagree",
        what);
}

struct with_padding {
  int i;
  double d;
  char c;
};

/* A predefined type's size (MPI_Type_size answers it from the type's row) is the size of the
   derived type of one of it (answered from its typemap), in all three forms. */
static void predefined_sizes(void) {
  const MPI_Datatype types[] = {MPI_CHAR,        MPI_SHORT,      MPI_INT,         MPI_LONG,
                                MPI_LONG_LONG,   MPI_FLOAT,      MPI_DOUBLE,      MPI_LONG_DOUBLE,
                                MPI_BYTE,        MPI_PACKED,     MPI_FLOAT_INT,   MPI_DOUBLE_INT,
                                MPI_2INT,        MPI_SHORT_INT,  MPI_LONG_DOUBLE_INT,
                                MPI_C_DOUBLE_COMPLEX, MPI_INT64_T, MPI_AINT,      MPI_COUNT};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
    MPI_Datatype one;
    CHECK_MPI(MPI_Type_contiguous(1, types[i], &one));
    int fast = -1, slow = -2;
    MPI_Count fast_x = -1, fast_c = -1;
    CHECK_MPI(MPI_Type_size(types[i], &fast));
    CHECK_MPI(MPI_Type_size_x(types[i], &fast_x));
    CHECK_MPI(MPI_Type_size_c(types[i], &fast_c));
    CHECK_MPI(MPI_Type_size(one, &slow));
    CHECK(fast > 0 && fast == slow && fast_x == slow && fast_c == slow,
          "predefined type %zu: size %d (x %lld, c %lld), of contiguous(1) %d", i, fast,
          (long long)fast_x, (long long)fast_c, slow);
    MPI_Type_free(&one);
  }
}

static void bounds(void) {
  const MPI_Aint SI = (MPI_Aint)sizeof(int), SD = (MPI_Aint)sizeof(double);
  MPI_Datatype t, u;

  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
  expect_bounds(t, "contiguous(3, int)", 3 * SI, 0, 3 * SI, 0, 3 * SI);
  MPI_Type_free(&t);

  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
  expect_bounds(t, "vector(3, 2, 4, int)", 6 * SI, 0, 10 * SI, 0, 10 * SI);
  MPI_Type_free(&t);

  CHECK_MPI(MPI_Type_vector(2, 1, -3, MPI_INT, &t));
  expect_bounds(t, "vector(2, 1, -3, int)", 2 * SI, -3 * SI, 4 * SI, -3 * SI, 4 * SI);
  MPI_Type_free(&t);

  CHECK_MPI(MPI_Type_create_hvector(2, 1, 16, MPI_DOUBLE, &t));
  expect_bounds(t, "hvector(2, 1, 16 bytes, double)", 2 * SD, 0, 16 + SD, 0, 16 + SD);
  MPI_Type_free(&t);

  {
    const int lengths[] = {2, 1, 3}, displs[] = {4, 0, 8};
    CHECK_MPI(MPI_Type_indexed(3, lengths, displs, MPI_INT, &t));
    expect_bounds(t, "indexed({2,1,3}, {4,0,8}, int)", 6 * SI, 0, 11 * SI, 0, 11 * SI);
    MPI_Type_free(&t);
  }
  {
    const int lengths[] = {1, 2};
    const MPI_Aint displs[] = {8, 0};
    CHECK_MPI(MPI_Type_create_hindexed(2, lengths, displs, MPI_SHORT, &t));
    expect_bounds(t, "hindexed({1,2}, {8,0} bytes, short)", 3 * (MPI_Aint)sizeof(short), 0,
                  8 + (MPI_Aint)sizeof(short), 0, 8 + (MPI_Aint)sizeof(short));
    MPI_Type_free(&t);
  }
  {
    const int displs[] = {1, 5, 9};
    CHECK_MPI(MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &t));
    expect_bounds(t, "indexed_block(2, {1,5,9}, int)", 6 * SI, SI, 10 * SI, SI, 10 * SI);
    MPI_Type_free(&t);
  }
  {
    const MPI_Aint displs[] = {24, 0};
    CHECK_MPI(MPI_Type_create_hindexed_block(2, 1, displs, MPI_DOUBLE, &t));
    expect_bounds(t, "hindexed_block(1, {24,0} bytes, double)", 2 * SD, 0, 24 + SD, 0, 24 + SD);
    MPI_Type_free(&t);
  }
  {
    /* A C struct: its extent is the struct's size (padded to the double's alignment). */
    const int lengths[] = {1, 1, 1};
    const MPI_Aint displs[] = {offsetof(struct with_padding, i), offsetof(struct with_padding, d),
                               offsetof(struct with_padding, c)};
    const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    CHECK_MPI(MPI_Type_create_struct(3, lengths, displs, types, &t));
    expect_bounds(t, "struct {int, double, char}", SI + SD + 1, 0,
                  (MPI_Aint)sizeof(struct with_padding), 0,
                  (MPI_Aint)offsetof(struct with_padding, c) + 1);
    /* Two of them back to back. */
    CHECK_MPI(MPI_Type_contiguous(2, t, &u));
    expect_bounds(
        u, "contiguous(2, struct)", 2 * (SI + SD + 1), 0, 2 * (MPI_Aint)sizeof(struct with_padding),
        0, (MPI_Aint)sizeof(struct with_padding) + (MPI_Aint)offsetof(struct with_padding, c) + 1);
    MPI_Type_free(&u);
    MPI_Type_free(&t);
  }
#ifdef VMC_MPI_H /* MPI-3.0 removed the markers; vmc keeps them, Open MPI does not */
  {
    /* MPI-1's markers set the bounds, and stick to the types made of it. */
    const int lengths[] = {1, 1, 1};
    const MPI_Aint displs[] = {-8, 0, 40};
    const MPI_Datatype types[] = {MPI_LB, MPI_INT, MPI_UB};
    CHECK_MPI(MPI_Type_create_struct(3, lengths, displs, types, &t));
    expect_bounds(t, "struct {MPI_LB -8, int 0, MPI_UB 40}", SI, -8, 48, 0, SI);
    CHECK_MPI(MPI_Type_contiguous(2, t, &u));
    expect_bounds(u, "contiguous(2, markers)", 2 * SI, -8, 96, 0, 48 + SI);
    MPI_Type_free(&u);
    MPI_Type_free(&t);
  }
#endif
  {
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
    expect_bounds(t, "resized(int, -4, 16)", SI, -4, 16, 0, SI);
    CHECK_MPI(MPI_Type_contiguous(2, t, &u));
    expect_bounds(u, "contiguous(2, resized(int, -4, 16))", 2 * SI, -4, 32, 0, 16 + SI);
    MPI_Type_free(&u);
    MPI_Type_free(&t);
  }
  {
    const int sizes[] = {4, 6}, subsizes[] = {2, 3}, starts[] = {1, 2};
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
    expect_bounds(t, "subarray C {4,6} {2,3} {1,2}", 6 * SI, 0, 24 * SI, 8 * SI, 9 * SI);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
    expect_bounds(t, "subarray Fortran {4,6} {2,3} {1,2}", 6 * SI, 0, 24 * SI, 9 * SI, 10 * SI);
    MPI_Type_free(&t);
  }
  {
    CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &t));
    expect_bounds(t, "contiguous(0, int)", 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
    CHECK_MPI(MPI_Type_vector(0, 1, 2, MPI_DOUBLE, &t));
    expect_bounds(t, "vector(0, ...)", 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
  }
  {
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
    CHECK_MPI(MPI_Type_dup(t, &u));
    expect_bounds(u, "dup(vector(3, 2, 4, int))", 6 * SI, 0, 10 * SI, 0, 10 * SI);
    MPI_Type_free(&u);
    MPI_Type_free(&t);
  }
  {
    /* The pairs: MPI_DOUBLE_INT in a derived type keeps its size and extent. */
    CHECK_MPI(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &t));
    MPI_Aint lb, ext;
    MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext);
    expect_bounds(t, "contiguous(2, MPI_DOUBLE_INT)", 2 * (SD + SI), 0, 2 * ext, 0, ext + SD + SI);
    MPI_Type_free(&t);
  }
}

/* --- envelopes, contents, names, addresses -------------------------------------------------- */

static void envelopes(void) {
  MPI_Datatype t, s, got[3];
  /* The arrays sized as the envelope says (Open MPI 4.1 fails with larger maxima). */
  int ni, na, nd, combiner, ints[8];
  MPI_Aint addrs[4];
  CHECK_MPI(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nd == 0,
        "MPI_INT's envelope: combiner %d, %d %d %d", combiner, ni, na, nd);
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
  CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1,
        "vector's envelope: combiner %d, %d %d %d", combiner, ni, na, nd);
  CHECK_MPI(MPI_Type_get_contents(t, ni, na, nd, ints, addrs, got));
  CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && got[0] == MPI_INT,
        "vector's contents: %d %d %d", ints[0], ints[1], ints[2]);

  const int lengths[] = {1, 2};
  const MPI_Aint displs[] = {0, 16};
  const MPI_Datatype types[] = {MPI_DOUBLE, t};
  CHECK_MPI(MPI_Type_create_struct(2, lengths, displs, types, &s));
  CHECK_MPI(MPI_Type_get_envelope(s, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_STRUCT && ni == 3 && na == 2 && nd == 2,
        "struct's envelope: combiner %d, %d %d %d", combiner, ni, na, nd);
  CHECK_MPI(MPI_Type_get_contents(s, ni, na, nd, ints, addrs, got));
  CHECK(ints[0] == 2 && ints[1] == 1 && ints[2] == 2 && addrs[0] == 0 && addrs[1] == 16 &&
            got[0] == MPI_DOUBLE,
        "struct's contents");
  /* The derived old type comes back as a type of its own, to be freed. */
  int sz = 0;
  CHECK_MPI(MPI_Type_size(got[1], &sz));
  CHECK(sz == 6 * (int)sizeof(int), "struct's contents: the vector's size is %d", sz);
  CHECK_MPI(MPI_Type_free(&got[1]));

  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(len == 0, "a new type's name is \"%s\"", name);
  CHECK_MPI(MPI_Type_set_name(t, "columns"));
  CHECK_MPI(MPI_Type_get_name(t, name, &len));
  CHECK(len == 7 && strcmp(name, "columns") == 0, "the type's name is \"%s\"", name);
  MPI_Type_free(&s);
  CHECK_MPI(MPI_Type_free(&t));
  CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free did not set the handle to MPI_DATATYPE_NULL");

  struct with_padding x;
  MPI_Aint base, at_d, at_c;
  CHECK_MPI(MPI_Get_address(&x, &base));
  CHECK_MPI(MPI_Get_address(&x.d, &at_d));
  CHECK_MPI(MPI_Get_address(&x.c, &at_c));
  CHECK(MPI_Aint_diff(at_d, base) == (MPI_Aint)offsetof(struct with_padding, d),
        "MPI_Aint_diff gave %ld", (long)MPI_Aint_diff(at_d, base));
  CHECK(MPI_Aint_add(base, (MPI_Aint)offsetof(struct with_padding, c)) == at_c,
        "MPI_Aint_add disagrees with MPI_Get_address");
}

/* --- pack and unpack ------------------------------------------------------------------------ */

static void packing(void) {
  MPI_Datatype vec;
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_commit(&vec));
  int src[10], one = 77, size_vec = 0, size_int = 0, size_d = 0;
  for (int i = 0; i < 10; ++i) src[i] = 100 + i;
  const double d = 2.5;
  CHECK_MPI(MPI_Pack_size(2, vec, MPI_COMM_WORLD, &size_vec));
  CHECK_MPI(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &size_int));
  CHECK_MPI(MPI_Pack_size(1, MPI_DOUBLE, MPI_COMM_WORLD, &size_d));
  CHECK(size_vec >= 6 * (int)sizeof(int), "MPI_Pack_size(2, vector of 3 ints) = %d", size_vec);
  const int room = size_vec + size_int + size_d;
  char* packed = conf_alloc((size_t)room);
  int position = 0;
  CHECK_MPI(MPI_Pack(src, 2, vec, packed, room, &position, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack(&one, 1, MPI_INT, packed, room, &position, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack(&d, 1, MPI_DOUBLE, packed, room, &position, MPI_COMM_WORLD));
  CHECK(position <= room, "MPI_Pack went to %d of %d", position, room);
  /* Unpacked as plain ints: the vector's elements in typemap order. */
  int flat[7];
  double e = 0;
  const int want[6] = {100, 102, 104, 105, 107, 109};
  position = 0;
  CHECK_MPI(MPI_Unpack(packed, room, &position, flat, 7, MPI_INT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(packed, room, &position, &e, 1, MPI_DOUBLE, MPI_COMM_WORLD));
  for (int i = 0; i < 6; ++i) {
    CHECK(flat[i] == want[i], "unpacked int %d is %d, expected %d", i, flat[i], want[i]);
  }
  CHECK(flat[6] == 77 && e == 2.5, "unpacked %d and %g, expected 77 and 2.5", flat[6], e);
  /* And back into the vector's places, the holes untouched. */
  int dst[10];
  for (int i = 0; i < 10; ++i) dst[i] = -1;
  position = 0;
  CHECK_MPI(MPI_Unpack(packed, room, &position, dst, 2, vec, MPI_COMM_WORLD));
  for (int i = 0; i < 10; ++i) {
    const int expected = (i == 0 || i == 2 || i == 4 || i == 5 || i == 7 || i == 9) ? 100 + i : -1;
    CHECK(dst[i] == expected, "unpacked vector [%d] = %d, expected %d", i, dst[i], expected);
  }
  free(packed);
  MPI_Type_free(&vec);
}

/* --- point to point ------------------------------------------------------------------------- */

static void point_to_point(const shaped* s) {
  enum { ITEMS = 2 };
  int send[2 * SPAN], recv[2 * SPAN], flat[2 * MAXN + 1];
  const int n = ITEMS * s->n, base = 1000 * rank;
  const int from = 1000 * prev;
  char what[120];
  MPI_Status status;
  int count = -1;

  /* Derived out, plain ints in (Sendrecv). */
  for (int i = 0; i < 2 * SPAN; ++i) send[i] = -2;
  fill_items(s, send, ITEMS, base);
  for (int i = 0; i < 2 * MAXN + 1; ++i) flat[i] = -1;
  CHECK_MPI(MPI_Sendrecv(send, ITEMS, s->type, next, 1, flat, n + 1, MPI_INT, prev, 1,
                         MPI_COMM_WORLD, &status));
  MPI_Get_count(&status, MPI_INT, &count);
  CHECK(count == n, "%s as ints: MPI_Get_count %d, expected %d", s->name, count, n);
  for (int j = 0; j < n; ++j) {
    CHECK(flat[j] == from + j, "%s as ints: [%d] = %d, expected %d", s->name, j, flat[j], from + j);
  }
  CHECK(flat[n] == -1, "%s as ints: the int after the message was written", s->name);

  /* Plain ints out, derived in (Isend, Irecv, Waitall). */
  for (int j = 0; j < n; ++j) flat[j] = base + j;
  for (int i = 0; i < 2 * SPAN; ++i) recv[i] = -1;
  MPI_Request rq[2];
  MPI_Status st[2];
  CHECK_MPI(MPI_Irecv(recv, ITEMS, s->type, prev, 2, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(flat, n, MPI_INT, next, 2, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Waitall(2, rq, st));
  snprintf(what, sizeof what, "ints into %d items", ITEMS);
  expect_items(s, recv, ITEMS, from, 2 * SPAN, what);
  MPI_Get_count(&st[0], s->type, &count);
  CHECK(count == ITEMS, "%s: MPI_Get_count %d, expected %d", s->name, count, ITEMS);
  MPI_Get_elements(&st[0], s->type, &count);
  CHECK(count == n, "%s: MPI_Get_elements %d, expected %d", s->name, count, n);

  /* A message one element short of two items: one item and a part (persistent requests). */
  for (int i = 0; i < 2 * SPAN; ++i) recv[i] = -1;
  MPI_Request ps[2];
  CHECK_MPI(MPI_Recv_init(recv, ITEMS, s->type, prev, 3, MPI_COMM_WORLD, &ps[0]));
  CHECK_MPI(MPI_Send_init(flat, n - 1, MPI_INT, next, 3, MPI_COMM_WORLD, &ps[1]));
  CHECK_MPI(MPI_Startall(2, ps));
  CHECK_MPI(MPI_Waitall(2, ps, st));
  MPI_Get_count(&st[0], s->type, &count);
  CHECK(count == MPI_UNDEFINED, "%s cut: MPI_Get_count %d, expected MPI_UNDEFINED", s->name, count);
  MPI_Get_elements(&st[0], s->type, &count);
  CHECK(count == n - 1, "%s cut: MPI_Get_elements %d, expected %d", s->name, count, n - 1);
  MPI_Aint lb, ext;
  MPI_Type_get_extent(s->type, &lb, &ext);
  const int stride = (int)(ext / (MPI_Aint)sizeof(int));
  CHECK(recv[stride + s->at[s->n - 1]] == -1, "%s cut: the element not sent was written", s->name);
  CHECK(recv[stride + s->at[s->n - 2]] == from + n - 2, "%s cut: the last element sent is %d",
        s->name, recv[stride + s->at[s->n - 2]]);
  MPI_Request_free(&ps[0]);
  MPI_Request_free(&ps[1]);

  /* Derived both ways: a matched probe, then the receive of what it took. */
  for (int i = 0; i < 2 * SPAN; ++i) recv[i] = -1;
  MPI_Request sr;
  CHECK_MPI(MPI_Issend(send, ITEMS, s->type, next, 4, MPI_COMM_WORLD, &sr));
  MPI_Message msg;
  CHECK_MPI(MPI_Mprobe(prev, 4, MPI_COMM_WORLD, &msg, &status));
  MPI_Get_count(&status, s->type, &count);
  CHECK(count == ITEMS, "%s probed: MPI_Get_count %d, expected %d", s->name, count, ITEMS);
  CHECK_MPI(MPI_Mrecv(recv, ITEMS, s->type, &msg, &status));
  CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
  expect_items(s, recv, ITEMS, from, 2 * SPAN, "derived to derived");

  /* Sendrecv_replace in the derived type. */
  CHECK_MPI(MPI_Sendrecv_replace(send, ITEMS, s->type, next, 5, prev, 5, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE));
  fill_items(s, recv, 0, 0);
  for (int j = 0; j < ITEMS * s->n; ++j) {
    const int it = j / s->n, e = j % s->n;
    CHECK(send[it * stride + s->at[e]] == from + j, "%s replaced: element %d is %d", s->name, j,
          send[it * stride + s->at[e]]);
  }
}

/* Structs whose elements have different sizes, point to point (blocking and nonblocking): a
 * record of a length and 28 chars, and a char before a double (offsetof from mpi.h's
 * <stddef.h>, as programs written for other MPI libraries expect). */
struct record {
  int len;
  char s[28];
};
struct char_double {
  char c;
  double d;
};

static void mixed_structs(void) {
  int lengths[2] = {1, 28};
  MPI_Aint at[2] = {offsetof(struct record, len), offsetof(struct record, s)};
  MPI_Datatype types[2] = {MPI_INT, MPI_CHAR}, rec, cd;
  CHECK_MPI(MPI_Type_create_struct(2, lengths, at, types, &rec));
  CHECK_MPI(MPI_Type_commit(&rec));
  int one[2] = {1, 1};
  MPI_Aint cd_at[2] = {offsetof(struct char_double, c), offsetof(struct char_double, d)};
  MPI_Datatype cd_types[2] = {MPI_CHAR, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct(2, one, cd_at, cd_types, &cd));
  CHECK_MPI(MPI_Type_commit(&cd));

  struct record out[3], in[3];
  struct char_double cd_out[2], cd_in[2];
  memset(out, 0, sizeof out);
  memset(in, 0, sizeof in);
  for (int i = 0; i < 3; ++i) {
    out[i].len = 1000 * rank + i;
    snprintf(out[i].s, sizeof out[i].s, "rank %d record %d", rank, i);
  }
  for (int i = 0; i < 2; ++i) {
    cd_out[i].c = (char)('a' + rank % 26);
    cd_out[i].d = rank + 0.5 * i;
    cd_in[i].c = 0;
    cd_in[i].d = -1;
  }
  MPI_Status status;
  CHECK_MPI(MPI_Sendrecv(out, 3, rec, next, 6, in, 3, rec, prev, 6, MPI_COMM_WORLD, &status));
  int count = -1;
  MPI_Get_count(&status, rec, &count);
  CHECK(count == 3, "records: MPI_Get_count %d, expected 3", count);
  for (int i = 0; i < 3; ++i) {
    char want[28];
    snprintf(want, sizeof want, "rank %d record %d", prev, i);
    CHECK(in[i].len == 1000 * prev + i && strcmp(in[i].s, want) == 0,
          "record %d from rank %d: %d \"%s\"", i, prev, in[i].len, in[i].s);
  }
  MPI_Request rq[2];
  CHECK_MPI(MPI_Irecv(cd_in, 2, cd, prev, 7, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Isend(cd_out, 2, cd, next, 7, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 2; ++i) {
    CHECK(cd_in[i].c == (char)('a' + prev % 26) && cd_in[i].d == prev + 0.5 * i,
          "char and double %d from rank %d: '%c' %g", i, prev, cd_in[i].c, cd_in[i].d);
  }
  MPI_Type_free(&rec);
  MPI_Type_free(&cd);
}

/* --- errors --------------------------------------------------------------------------------- */

static void expect_class(int rc, int cls, const char* what) {
  int got = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &got);
  CHECK(got == cls, "%s: class %d, expected %d", what, got, cls);
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  CHECK(len > 0, "%s: no error text", what);
}

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int buf[8] = {0};
  MPI_Datatype t, kept;
  MPI_Type_vector(2, 1, 2, MPI_INT, &t);
  expect_class(MPI_Send(buf, 1, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
               "MPI_Send of an uncommitted type");
  expect_class(MPI_Bcast(buf, 1, t, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
               "MPI_Bcast of an uncommitted type");
  MPI_Type_commit(&t);
  kept = t;
  MPI_Type_free(&t);
#ifdef VMC_MPI_H /* erroneous, and undefined: vmc finds it, other libraries need not */
  expect_class(MPI_Send(buf, 1, kept, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
               "MPI_Send of a freed type");
  expect_class(MPI_Type_commit(&kept), MPI_ERR_TYPE, "MPI_Type_commit of a freed type");
#else
  (void)kept;
#endif
  t = MPI_INT;
  expect_class(MPI_Type_free(&t), MPI_ERR_TYPE, "MPI_Type_free(MPI_INT)");
  /* A message longer than the receive. */
  MPI_Datatype two;
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_commit(&two);
  int out[5] = {1, 2, 3, 4, 5}, in[8];
  MPI_Request r;
  MPI_Isend(out, 5, MPI_INT, next, 9, MPI_COMM_WORLD, &r);
  expect_class(MPI_Recv(in, 2, two, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE,
               "MPI_Recv of 5 ints into 2 x contiguous(2, int)");
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  /* A predefined op on a type of mixed elements (every rank fails before the reduction). */
  const int lengths[] = {1, 1};
  const MPI_Aint displs[] = {0, 8};
  const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype mixed;
  MPI_Type_create_struct(2, lengths, displs, types, &mixed);
  MPI_Type_commit(&mixed);
  double x[4] = {0}, y[4];
  expect_class(MPI_Allreduce(x, y, 1, mixed, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP,
               "MPI_Allreduce(MPI_SUM) on struct {int, double}");
  /* At one rank alone: a gather whose send and receive signatures differ. */
  if (size == 1) {
    int g[4];
    expect_class(MPI_Gather(buf, 3, MPI_INT, g, 1, two, 0, MPI_COMM_WORLD), MPI_ERR_TRUNCATE,
                 "MPI_Gather of 3 ints into 1 x contiguous(2, int)");
#ifdef VMC_MPI_H /* signatures of different basic types: vmc finds it */
    expect_class(MPI_Gather(buf, 2, MPI_INT, x, 1, MPI_DOUBLE_INT, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
                 "MPI_Gather of ints into MPI_DOUBLE_INT");
#endif
  }
  MPI_Type_free(&mixed);
  MPI_Type_free(&two);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  predefined_sizes();
  bounds();
  envelopes();
  packing();
  shaped shapes[16];
  const int k = make_shapes(shapes);
  for (int i = 0; i < k; ++i) point_to_point(&shapes[i]);
  for (int i = 0; i < k; ++i) MPI_Type_free(&shapes[i].type);
  mixed_structs();
  errors();
  return conf_finish();
}
