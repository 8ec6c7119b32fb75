/* Groups: MPI_Comm_group, MPI_Group_incl, MPI_Group_excl, MPI_Group_range_incl and
 * MPI_Group_range_excl (strides up and down, several triplets), MPI_Group_union,
 * MPI_Group_intersection and MPI_Group_difference (members and their order as the standard
 * defines them), MPI_Group_translate_ranks (MPI_UNDEFINED for non-members, MPI_PROC_NULL to
 * MPI_PROC_NULL), MPI_Group_compare (IDENT, SIMILAR, UNEQUAL), MPI_Group_size,
 * MPI_Group_rank, MPI_Group_free and MPI_GROUP_EMPTY; a communicator made from a computed
 * group; the group of a split communicator. Each group is checked by its members' world
 * ranks, in order. */
#include "conformance.h"

static int wrank, wsize;
static MPI_Group world;

/* Frees g unless it is MPI_GROUP_EMPTY (an operation may hand that back for an empty result;
 * freeing it is not needed). */
static void release(MPI_Group* g) {
  if (*g == MPI_GROUP_EMPTY) return;
  CHECK_MPI(MPI_Group_free(g));
  CHECK(*g == MPI_GROUP_NULL, "MPI_Group_free did not set MPI_GROUP_NULL");
}

/* g must have exactly the world ranks want[0..n) in that order, and this rank's rank in it
 * must be its index there (MPI_UNDEFINED if absent). */
static void expect(MPI_Group g, const int* want, int n, const char* what) {
  int size = -1, rank = -2;
  CHECK_MPI(MPI_Group_size(g, &size));
  CHECK(size == n, "%s: size %d, expected %d", what, size, n);
  if (size != n) return;
  int* ranks = conf_alloc(sizeof(int) * (size_t)(n + 1));
  int* in_world = conf_alloc(sizeof(int) * (size_t)(n + 1));
  for (int k = 0; k < n; ++k) ranks[k] = k;
  if (n > 0) CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world, in_world));
  int expected_rank = MPI_UNDEFINED;
  for (int k = 0; k < n; ++k) {
    CHECK(in_world[k] == want[k], "%s: member %d is world rank %d, expected %d", what, k,
          in_world[k], want[k]);
    if (want[k] == wrank) expected_rank = k;
  }
  CHECK_MPI(MPI_Group_rank(g, &rank));
  CHECK(rank == expected_rank, "%s: MPI_Group_rank %d, expected %d", what, rank, expected_rank);
  free(ranks);
  free(in_world);
}

static void world_group(void) {
  int* all = conf_alloc(sizeof(int) * (size_t)wsize);
  for (int r = 0; r < wsize; ++r) all[r] = r;
  expect(world, all, wsize, "MPI_Comm_group(MPI_COMM_WORLD)");
  MPI_Group self;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_SELF, &self));
  expect(self, &wrank, 1, "MPI_Comm_group(MPI_COMM_SELF)");
  int result = -1;
  CHECK_MPI(MPI_Group_compare(world, world, &result));
  CHECK(result == MPI_IDENT, "MPI_Group_compare(world, world): %d", result);
  CHECK_MPI(MPI_Group_compare(self, world, &result));
  CHECK(result == (wsize == 1 ? MPI_IDENT : MPI_UNEQUAL), "MPI_Group_compare(self, world): %d", result);
  release(&self);
  free(all);
}

static void incl_excl(void) {
  int* list = conf_alloc(sizeof(int) * (size_t)wsize);
  int* want = conf_alloc(sizeof(int) * (size_t)wsize);
  /* Every rank, reversed: similar to the world. */
  for (int k = 0; k < wsize; ++k) list[k] = wsize - 1 - k;
  MPI_Group g;
  CHECK_MPI(MPI_Group_incl(world, wsize, list, &g));
  expect(g, list, wsize, "MPI_Group_incl(reversed)");
  int result = -1;
  CHECK_MPI(MPI_Group_compare(g, world, &result));
  CHECK(result == (wsize == 1 ? MPI_IDENT : MPI_SIMILAR), "MPI_Group_compare(reversed, world): %d", result);
  release(&g);
  /* In order: identical to the world. */
  for (int k = 0; k < wsize; ++k) list[k] = k;
  CHECK_MPI(MPI_Group_incl(world, wsize, list, &g));
  CHECK_MPI(MPI_Group_compare(g, world, &result));
  CHECK(result == MPI_IDENT, "MPI_Group_compare(incl of all in order, world): %d", result);
  release(&g);
  /* Some ranks in a scrambled order: 3r mod p for r < p/2 + 1, distinct when gcd(3, p) = 1,
   * so take every rank r with r mod 3 == 1 from the top down, then rank 0. */
  int n = 0;
  for (int r = wsize - 1; r >= 0; --r) {
    if (r % 3 == 1) list[n++] = r;
  }
  list[n++] = 0;
  CHECK_MPI(MPI_Group_incl(world, n, list, &g));
  expect(g, list, n, "MPI_Group_incl(r mod 3 == 1 downwards, then 0)");
  if (n < wsize) {
    CHECK_MPI(MPI_Group_compare(g, world, &result));
    CHECK(result == MPI_UNEQUAL, "MPI_Group_compare(subset, world): %d", result);
  }
  /* Excluding those leaves the rest in the world's order. */
  MPI_Group rest;
  CHECK_MPI(MPI_Group_excl(world, n, list, &rest));
  int m = 0;
  for (int r = 1; r < wsize; ++r) {
    if (r % 3 != 1) want[m++] = r;
  }
  expect(rest, want, m, "MPI_Group_excl(r mod 3 == 1, and 0)");
  /* Excluding from a reordered group keeps that group's order. */
  MPI_Group sub;
  const int drop[1] = {0};
  CHECK_MPI(MPI_Group_excl(g, 1, drop, &sub));
  expect(sub, list + 1, n - 1, "MPI_Group_excl of a reordered group");
  release(&sub);
  release(&rest);
  release(&g);
  /* Nothing: the empty group. */
  CHECK_MPI(MPI_Group_incl(world, 0, list, &g));
  expect(g, list, 0, "MPI_Group_incl of no ranks");
  CHECK_MPI(MPI_Group_compare(g, MPI_GROUP_EMPTY, &result));
  CHECK(result == MPI_IDENT, "MPI_Group_compare(incl of nothing, MPI_GROUP_EMPTY): %d", result);
  release(&g);
  CHECK_MPI(MPI_Group_excl(world, 0, list, &g));
  CHECK_MPI(MPI_Group_compare(g, world, &result));
  CHECK(result == MPI_IDENT, "MPI_Group_excl of nothing compared to the world: %d", result);
  release(&g);
  free(list);
  free(want);
}

static void ranges(void) {
  int* want = conf_alloc(sizeof(int) * (size_t)wsize);
  MPI_Group g;
  /* Even ranks. */
  int tri[3][3] = {{0, wsize - 1, 2}};
  CHECK_MPI(MPI_Group_range_incl(world, 1, tri, &g));
  int n = 0;
  for (int r = 0; r < wsize; r += 2) want[n++] = r;
  expect(g, want, n, "MPI_Group_range_incl(0..p-1 by 2)");
  release(&g);
  /* Downwards by 3 from the top. */
  tri[0][0] = wsize - 1;
  tri[0][1] = 0;
  tri[0][2] = -3;
  CHECK_MPI(MPI_Group_range_incl(world, 1, tri, &g));
  n = 0;
  for (int r = wsize - 1; r >= 0; r -= 3) want[n++] = r;
  expect(g, want, n, "MPI_Group_range_incl(p-1..0 by -3)");
  release(&g);
  /* Two triplets: odd ranks upwards, then rank 0 alone. */
  if (wsize >= 2) {
    int two[2][3] = {{1, wsize - 1, 2}, {0, 0, 1}};
    CHECK_MPI(MPI_Group_range_incl(world, 2, two, &g));
    n = 0;
    for (int r = 1; r < wsize; r += 2) want[n++] = r;
    want[n++] = 0;
    expect(g, want, n, "MPI_Group_range_incl(odd ranks, then 0)");
    release(&g);
  }
  /* Excluding every third rank. */
  tri[0][0] = 0;
  tri[0][1] = wsize - 1;
  tri[0][2] = 3;
  CHECK_MPI(MPI_Group_range_excl(world, 1, tri, &g));
  n = 0;
  for (int r = 0; r < wsize; ++r) {
    if (r % 3 != 0) want[n++] = r;
  }
  expect(g, want, n, "MPI_Group_range_excl(0..p-1 by 3)");
  release(&g);
  /* Excluding a range downwards: the top half. */
  tri[0][0] = wsize - 1;
  tri[0][1] = wsize / 2;
  tri[0][2] = -1;
  CHECK_MPI(MPI_Group_range_excl(world, 1, tri, &g));
  n = 0;
  for (int r = 0; r < wsize / 2; ++r) want[n++] = r;
  expect(g, want, n, "MPI_Group_range_excl(p-1..p/2 by -1)");
  release(&g);
  free(want);
}

/* Set operations on a = the even ranks downwards and b = the ranks below 2p/3 upwards. */
static void set_operations(void) {
  int* a_list = conf_alloc(sizeof(int) * (size_t)wsize);
  int* b_list = conf_alloc(sizeof(int) * (size_t)wsize);
  int* want = conf_alloc(sizeof(int) * (size_t)(2 * wsize));
  int na = 0, nb = 0;
  for (int r = wsize - 1; r >= 0; --r) {
    if (r % 2 == 0) a_list[na++] = r;
  }
  const int cut = (2 * wsize) / 3;
  for (int r = 0; r < cut; ++r) b_list[nb++] = r;
  MPI_Group a, b, u, i, d, d2;
  CHECK_MPI(MPI_Group_incl(world, na, a_list, &a));
  CHECK_MPI(MPI_Group_incl(world, nb, b_list, &b));

  /* Union: a's members in a's order, then b's that are not in a, in b's order. */
  CHECK_MPI(MPI_Group_union(a, b, &u));
  int n = 0;
  for (int k = 0; k < na; ++k) want[n++] = a_list[k];
  for (int k = 0; k < nb; ++k) {
    if (b_list[k] % 2 != 0) want[n++] = b_list[k];
  }
  expect(u, want, n, "MPI_Group_union");
  /* Intersection: a's members that are in b, in a's order. */
  CHECK_MPI(MPI_Group_intersection(a, b, &i));
  n = 0;
  for (int k = 0; k < na; ++k) {
    if (a_list[k] < cut) want[n++] = a_list[k];
  }
  expect(i, want, n, "MPI_Group_intersection");
  /* Difference: a's members not in b, in a's order; and b minus a. */
  CHECK_MPI(MPI_Group_difference(a, b, &d));
  n = 0;
  for (int k = 0; k < na; ++k) {
    if (a_list[k] >= cut) want[n++] = a_list[k];
  }
  expect(d, want, n, "MPI_Group_difference(a, b)");
  CHECK_MPI(MPI_Group_difference(b, a, &d2));
  n = 0;
  for (int k = 0; k < nb; ++k) {
    if (b_list[k] % 2 != 0) want[n++] = b_list[k];
  }
  expect(d2, want, n, "MPI_Group_difference(b, a)");

  /* With the empty group and with themselves. */
  MPI_Group e1, e2, e3, same;
  int result = -1;
  CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, a, &same));
  CHECK_MPI(MPI_Group_compare(same, a, &result));
  CHECK(result == MPI_IDENT, "MPI_Group_union(MPI_GROUP_EMPTY, a) compared to a: %d", result);
  release(&same);
  CHECK_MPI(MPI_Group_intersection(a, MPI_GROUP_EMPTY, &e1));
  expect(e1, want, 0, "MPI_Group_intersection(a, MPI_GROUP_EMPTY)");
  CHECK_MPI(MPI_Group_difference(a, a, &e2));
  expect(e2, want, 0, "MPI_Group_difference(a, a)");
  CHECK_MPI(MPI_Group_intersection(d, d2, &e3)); /* disjoint */
  expect(e3, want, 0, "MPI_Group_intersection of disjoint groups");
  CHECK_MPI(MPI_Group_compare(e3, MPI_GROUP_EMPTY, &result));
  CHECK(result == MPI_IDENT, "an empty result compared to MPI_GROUP_EMPTY: %d", result);
  CHECK_MPI(MPI_Group_union(a, a, &same));
  CHECK_MPI(MPI_Group_compare(same, a, &result));
  CHECK(result == MPI_IDENT, "MPI_Group_union(a, a) compared to a: %d", result);
  release(&same);
  /* Union in the other order: the same members, another order unless one holds the other. */
  CHECK_MPI(MPI_Group_union(b, a, &same));
  CHECK_MPI(MPI_Group_compare(same, u, &result));
  CHECK(result == MPI_IDENT || result == MPI_SIMILAR,
        "MPI_Group_union(b, a) compared to MPI_Group_union(a, b): %d", result);
  release(&same);

  /* MPI_GROUP_EMPTY itself. */
  int size = -1, rank = -1;
  CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &size));
  CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &rank));
  CHECK(size == 0 && rank == MPI_UNDEFINED, "MPI_GROUP_EMPTY: size %d, rank %d", size, rank);

  /* A communicator from the union, which holds every rank below 2p/3 and the even ones. */
  MPI_Comm c = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, u, &c));
  int in_u = MPI_UNDEFINED;
  MPI_Group_rank(u, &in_u);
  if (in_u == MPI_UNDEFINED) {
    CHECK(c == MPI_COMM_NULL, "MPI_Comm_create gave a communicator to a non-member");
  } else {
    int crank = -1, csize = -1, usize = -1;
    MPI_Comm_rank(c, &crank);
    MPI_Comm_size(c, &csize);
    MPI_Group_size(u, &usize);
    CHECK(crank == in_u && csize == usize, "MPI_Comm_create(union): rank %d of %d, expected %d of %d",
          crank, csize, in_u, usize);
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, c));
    int expected = 0;
    for (int k = 0; k < na; ++k) expected += a_list[k];
    for (int k = 0; k < nb; ++k) expected += b_list[k] % 2 ? b_list[k] : 0;
    CHECK(sum == expected, "MPI_Allreduce on the union's communicator: %d, expected %d", sum, expected);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  release(&a);
  release(&b);
  release(&u);
  release(&i);
  release(&d);
  release(&d2);
  release(&e1);
  release(&e2);
  release(&e3);
  free(a_list);
  free(b_list);
  free(want);
}

/* MPI_Group_translate_ranks between the world and the world reversed, with non-members and
 * MPI_PROC_NULL. */
static void translate(void) {
  int* list = conf_alloc(sizeof(int) * (size_t)wsize);
  for (int k = 0; k < wsize; ++k) list[k] = wsize - 1 - k;
  MPI_Group rev, evens;
  CHECK_MPI(MPI_Group_incl(world, wsize, list, &rev));
  int evens_tri[1][3] = {{0, wsize - 1, 2}};
  CHECK_MPI(MPI_Group_range_incl(world, 1, evens_tri, &evens));
  int* from = conf_alloc(sizeof(int) * (size_t)(wsize + 1));
  int* to = conf_alloc(sizeof(int) * (size_t)(wsize + 1));
  for (int k = 0; k < wsize; ++k) from[k] = k;
  from[wsize] = MPI_PROC_NULL;
  CHECK_MPI(MPI_Group_translate_ranks(world, wsize + 1, from, rev, to));
  for (int k = 0; k < wsize; ++k) {
    CHECK(to[k] == wsize - 1 - k, "translate world %d to reversed: %d", k, to[k]);
  }
  CHECK(to[wsize] == MPI_PROC_NULL, "translate MPI_PROC_NULL: %d", to[wsize]);
  CHECK_MPI(MPI_Group_translate_ranks(world, wsize, from, evens, to));
  for (int k = 0; k < wsize; ++k) {
    const int want = k % 2 == 0 ? k / 2 : MPI_UNDEFINED;
    CHECK(to[k] == want, "translate world %d to the even ranks: %d, expected %d", k, to[k], want);
  }
  /* The group of a split communicator, translated to the world. */
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &c));
  MPI_Group cg;
  CHECK_MPI(MPI_Comm_group(c, &cg));
  int n = 0;
  for (int r = wsize - 1; r >= 0; --r) {
    if (r % 2 == wrank % 2) list[n++] = r;
  }
  expect(cg, list, n, "the group of a split communicator");
  release(&cg);
  CHECK_MPI(MPI_Comm_free(&c));
  release(&rev);
  release(&evens);
  free(list);
  free(from);
  free(to);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  world_group();
  incl_excl();
  ranges();
  set_operations();
  translate();
  release(&world);
  return conf_finish();
}
