/* The MPI layer's communicators, groups and attributes against the standard's semantics:
 * MPI_COMM_WORLD and MPI_COMM_SELF, Comm_dup(_with_info), Comm_split (MPI_UNDEFINED, ranks by
 * key), Comm_split_type, Comm_create (one group, disjoint groups, the empty group),
 * Comm_create_group, Comm_free, Comm_compare, names, Comm_test_inter; every group call; user
 * attributes with their copy and delete callbacks. Exit status 0 and "communicators: ok" from
 * rank 0 when every check held on every rank.
 *
 *   vmcc communicators.c -o communicators && vmc mpirun -np 8 ./communicators */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors = 0;
static int me = 0, p = 0;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      if (errors < 10) {                                          \
        fprintf(stderr, "rank %d, line %d: ", me, __LINE__);      \
        fprintf(stderr, __VA_ARGS__);                             \
        fprintf(stderr, "\n");                                    \
      }                                                           \
      ++errors;                                                   \
    }                                                             \
  } while (0)

/* The sum of the world ranks of comm's members, by an allreduce on comm. */
static int member_sum(MPI_Comm comm) {
  int s = 0;
  MPI_Allreduce(&me, &s, 1, MPI_INT, MPI_SUM, comm);
  return s;
}

static void test_predefined(void) {
  int r, n, flag, len;
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm_rank(MPI_COMM_SELF, &r);
  MPI_Comm_size(MPI_COMM_SELF, &n);
  CHECK(r == 0 && n == 1, "MPI_COMM_SELF: rank %d size %d", r, n);
  CHECK(member_sum(MPI_COMM_SELF) == me, "a collective on MPI_COMM_SELF");
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name '%s' (%d)", name, len);
  MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self's name '%s'", name);
  MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
  CHECK(flag == 0, "world is an intercommunicator");
  int result;
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
  CHECK(result == MPI_IDENT, "world vs world: %d", result);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result);
  CHECK(result == (p == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "world vs self: %d", result);
}

static void test_dup_split(void) {
  MPI_Comm dup, dup2, split, odd_even, none;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dup2);
  int r, n, result, len;
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm_rank(dup, &r);
  MPI_Comm_size(dup2, &n);
  CHECK(r == me && n == p, "dup: rank %d size %d", r, n);
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
  CHECK(result == MPI_CONGRUENT, "world vs its dup: %d", result);
  MPI_Comm_compare(dup, dup2, &result);
  CHECK(result == MPI_CONGRUENT, "dup vs dup of dup: %d", result);
  MPI_Comm_get_name(dup, name, &len);
  CHECK(len == 0 && name[0] == '\0', "a dup has no name ('%s')", name);
  MPI_Comm_set_name(dup, "mine");
  MPI_Comm_get_name(dup, name, &len);
  CHECK(strcmp(name, "mine") == 0 && len == 4, "set_name: '%s'", name);
  /* the dups carry their own collectives, interleaved with the world's */
  int a = me, b = 0, c = 0;
  MPI_Bcast(&a, 1, MPI_INT, p - 1, dup);
  MPI_Allreduce(&me, &b, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&me, &c, 1, MPI_INT, MPI_MIN, dup2);
  CHECK(a == p - 1 && b == p - 1 && c == 0, "dups: %d %d %d", a, b, c);

  /* split: colours 0, 1, 2 by rank % 3, ranked by descending world rank */
  MPI_Comm_split(MPI_COMM_WORLD, me % 3, p - me, &split);
  MPI_Comm_rank(split, &r);
  MPI_Comm_size(split, &n);
  int expect_n = 0, expect_r = 0;
  for (int q = 0; q < p; ++q) {
    if (q % 3 != me % 3) continue;
    ++expect_n;
    if (q > me) ++expect_r;
  }
  CHECK(r == expect_r && n == expect_n, "split: rank %d of %d, expected %d of %d", r, n, expect_r,
        expect_n);
  int s = 0;
  for (int q = me % 3; q < p; q += 3) s += q;
  CHECK(member_sum(split) == s, "split's members");
  MPI_Comm_compare(split, MPI_COMM_WORLD, &result);
  CHECK(result == (p == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "split vs world: %d", result);
  /* the same members in another order: similar */
  MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &odd_even);
  MPI_Comm_compare(odd_even, MPI_COMM_WORLD, &result);
  CHECK(result == (p == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "reversed world vs world: %d", result);
  /* MPI_UNDEFINED joins nothing */
  MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : 1, 0, &none);
  CHECK((me == 0) == (none == MPI_COMM_NULL), "split with MPI_UNDEFINED");
  if (none != MPI_COMM_NULL) {
    MPI_Comm_size(none, &n);
    CHECK(n == p - 1, "split without rank 0: size %d", n);
    MPI_Comm_free(&none);
  }
  /* split_type: each rank shares its memory with itself alone */
  MPI_Comm shared, hw;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  MPI_Comm_size(shared, &n);
  MPI_Comm_compare(shared, MPI_COMM_SELF, &result);
  CHECK(n == 1 && result == MPI_CONGRUENT, "split_type shared: size %d, vs self %d", n, result);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &hw);
  CHECK(hw == MPI_COMM_NULL, "split_type MPI_UNDEFINED");
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &hw);
  CHECK(hw == MPI_COMM_NULL, "split_type hw guided");
  MPI_Comm_free(&shared);
  MPI_Comm_free(&odd_even);
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
  CHECK(dup == MPI_COMM_NULL, "Comm_free leaves MPI_COMM_NULL");
}

static void test_groups(void) {
  MPI_Group world, g, h, u, x, d, e;
  int n, r, result;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_size(world, &n);
  MPI_Group_rank(world, &r);
  CHECK(n == p && r == me, "world group: size %d rank %d", n, r);
  /* the even ranks, in reverse order */
  int evens = (p + 1) / 2;
  int* ranks = malloc(sizeof(int) * (p + 1));
  for (int i = 0; i < evens; ++i) ranks[i] = 2 * (evens - 1 - i);
  MPI_Group_incl(world, evens, ranks, &g);
  MPI_Group_size(g, &n);
  MPI_Group_rank(g, &r);
  CHECK(n == evens, "incl: size %d", n);
  CHECK(me % 2 == 0 ? r == evens - 1 - me / 2 : r == MPI_UNDEFINED, "incl: rank %d", r);
  /* range_incl of the same: (last even, 0, -2) */
  int range[1][3] = {{2 * (evens - 1), 0, -2}};
  MPI_Group_range_incl(world, 1, range, &h);
  MPI_Group_compare(g, h, &result);
  CHECK(result == MPI_IDENT, "range_incl vs incl: %d", result);
  MPI_Group_free(&h);
  /* excl of the odd ranks: the evens in order, similar to g */
  int odds = p / 2;
  for (int i = 0; i < odds; ++i) ranks[i] = 2 * i + 1;
  MPI_Group_excl(world, odds, ranks, &h);
  MPI_Group_compare(g, h, &result);
  CHECK(result == (evens > 1 ? MPI_SIMILAR : MPI_IDENT), "excl vs incl: %d", result);
  int odd_range[1][3] = {{1, p - 1, 2}};
  MPI_Group_range_excl(world, odds > 0 ? 1 : 0, odd_range, &x);
  MPI_Group_compare(x, h, &result);
  CHECK(result == MPI_IDENT, "range_excl vs excl: %d", result);
  MPI_Group_free(&x);
  /* union, intersection, difference */
  MPI_Group_difference(world, h, &d); /* the odd ranks */
  MPI_Group_size(d, &n);
  CHECK(n == odds, "difference: size %d", n);
  MPI_Group_union(h, d, &u);
  MPI_Group_size(u, &n);
  MPI_Group_compare(u, world, &result);
  CHECK(n == p && result == (p > 2 ? MPI_SIMILAR : MPI_IDENT), "union: size %d compare %d", n,
        result);
  MPI_Group_intersection(h, d, &x);
  CHECK(x == MPI_GROUP_EMPTY, "intersection of evens and odds is MPI_GROUP_EMPTY");
  MPI_Group_size(MPI_GROUP_EMPTY, &n);
  MPI_Group_rank(MPI_GROUP_EMPTY, &r);
  CHECK(n == 0 && r == MPI_UNDEFINED, "the empty group: size %d rank %d", n, r);
  MPI_Group_intersection(world, g, &e);
  MPI_Group_compare(e, h, &result);
  CHECK(result == MPI_IDENT, "intersection keeps the first group's order: %d", result);
  /* translate ranks from g (reversed evens) to world */
  int* to = malloc(sizeof(int) * (evens + 1));
  for (int i = 0; i < evens; ++i) ranks[i] = i;
  ranks[evens] = MPI_PROC_NULL;
  MPI_Group_translate_ranks(g, evens + 1, ranks, world, to);
  for (int i = 0; i < evens; ++i) CHECK(to[i] == 2 * (evens - 1 - i), "translate %d -> %d", i, to[i]);
  CHECK(to[evens] == MPI_PROC_NULL, "translate MPI_PROC_NULL");
  MPI_Group_translate_ranks(d, odds > 0 ? 1 : 0, ranks, g, to);
  if (odds > 0) CHECK(to[0] == MPI_UNDEFINED, "translate to a group without the rank");
  MPI_Group_compare(g, d, &result);
  CHECK(result == MPI_UNEQUAL, "evens vs odds: %d", result);

  /* Comm_create from the evens (reversed): the odd ranks get MPI_COMM_NULL */
  MPI_Comm c;
  MPI_Comm_create(MPI_COMM_WORLD, g, &c);
  CHECK((me % 2 == 0) == (c != MPI_COMM_NULL), "Comm_create membership");
  if (c != MPI_COMM_NULL) {
    MPI_Comm_rank(c, &r);
    CHECK(r == evens - 1 - me / 2, "Comm_create: rank %d", r);
    MPI_Group cg;
    MPI_Comm_group(c, &cg);
    MPI_Group_compare(cg, g, &result);
    CHECK(result == MPI_IDENT, "the created comm's group: %d", result);
    MPI_Group_free(&cg);
    CHECK(member_sum(c) == 2 * (evens - 1) * evens / 2, "Comm_create's members");
    MPI_Comm_free(&c);
  }
  /* Comm_create with disjoint groups: evens and odds each their own */
  MPI_Comm_create(MPI_COMM_WORLD, me % 2 == 0 ? h : d, &c);
  CHECK(c != MPI_COMM_NULL, "Comm_create with disjoint groups");
  MPI_Comm_size(c, &n);
  CHECK(n == (me % 2 == 0 ? evens : odds), "disjoint create: size %d", n);
  MPI_Comm_free(&c);
  MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c);
  CHECK(c == MPI_COMM_NULL, "Comm_create of the empty group");
  /* Comm_create_group: only the odd ranks call */
  if (me % 2 == 1) {
    MPI_Comm_create_group(MPI_COMM_WORLD, d, 7, &c);
    MPI_Comm_rank(c, &r);
    CHECK(r == me / 2, "create_group: rank %d", r);
    int s = 0;
    for (int q = 1; q < p; q += 2) s += q;
    CHECK(member_sum(c) == s, "create_group's members");
    MPI_Comm_free(&c);
  }
  MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 7, &c);
  CHECK(c == MPI_COMM_NULL, "create_group by a rank outside the group");
  MPI_Group_free(&e);
  MPI_Group_free(&x);
  MPI_Group_free(&u);
  MPI_Group_free(&d);
  MPI_Group_free(&h);
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  CHECK(world == MPI_GROUP_NULL, "Group_free leaves MPI_GROUP_NULL");
  free(ranks);
  free(to);
}

/* Attributes: a copy callback that copies value + 1 and counts, a delete callback that counts. */
static int copies = 0, deletes = 0;
static int copy_fn(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)oldcomm;
  (void)keyval;
  CHECK(extra == &copies, "copy_fn: extra_state");
  *(void**)out = (char*)in + 1;
  *flag = 1;
  ++copies;
  return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}

static void test_attributes(void) {
  int key, nocopy, flag;
  void* v;
  static char base[4];
  MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &copies);
  MPI_Comm_create_keyval(NULL, delete_fn, &nocopy, NULL);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_attr(dup, key, &v, &flag);
  CHECK(flag == 0, "an attribute never set");
  MPI_Comm_set_attr(dup, key, base);
  MPI_Comm_set_attr(dup, nocopy, base + 2);
  MPI_Comm_get_attr(dup, key, &v, &flag);
  CHECK(flag == 1 && v == base, "get_attr");
  MPI_Comm dup2;
  MPI_Comm_dup(dup, &dup2);
  MPI_Comm_get_attr(dup2, key, &v, &flag);
  CHECK(flag == 1 && v == base + 1 && copies == 1, "copied on dup: flag %d, copies %d", flag,
        copies);
  MPI_Comm_get_attr(dup2, nocopy, &v, &flag);
  CHECK(flag == 0, "a key without a copy callback is not copied");
  MPI_Comm_set_attr(dup, key, base + 3); /* replaces: the old value is deleted */
  CHECK(deletes == 1, "set_attr over a value deletes it: %d", deletes);
  MPI_Comm_delete_attr(dup, nocopy);
  CHECK(deletes == 2, "delete_attr: %d", deletes);
  MPI_Comm_free_keyval(&nocopy);
  CHECK(nocopy == MPI_KEYVAL_INVALID, "free_keyval leaves MPI_KEYVAL_INVALID");
  MPI_Comm_free(&dup2); /* deletes its copy */
  MPI_Comm_free(&dup);  /* and this one */
  CHECK(deletes == 4, "Comm_free deletes the attributes: %d", deletes);
  /* the deprecated names */
  int old;
  MPI_Keyval_create(NULL, delete_fn, &old, NULL);
  MPI_Attr_put(MPI_COMM_WORLD, old, base);
  MPI_Attr_get(MPI_COMM_WORLD, old, &v, &flag);
  CHECK(flag == 1 && v == base, "Attr_get");
  MPI_Attr_delete(MPI_COMM_WORLD, old);
  MPI_Keyval_free(&old);
  CHECK(deletes == 5, "Attr_delete: %d", deletes);
  /* an attribute of MPI_COMM_SELF goes at MPI_Finalize */
  MPI_Comm_set_attr(MPI_COMM_SELF, key, base);
  MPI_Comm_free_keyval(&key);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  test_predefined();
  test_dup_split();
  test_groups();
  test_attributes();
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int before = deletes;
  MPI_Finalize();
  if (deletes != before + 1) {
    fprintf(stderr, "rank %d: MPI_Finalize did not delete MPI_COMM_SELF's attribute\n", me);
    total += 1;
  }
  if (me == 0) {
    if (total == 0) printf("communicators: ok, %d ranks\n", p);
    else printf("communicators: %d failures, %d ranks\n", total, p);
  }
  return total != 0;
}
