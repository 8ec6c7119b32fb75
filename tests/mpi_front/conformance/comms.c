/* Communicators: MPI_COMM_WORLD and MPI_COMM_SELF; MPI_Comm_dup and MPI_Comm_dup_with_info
 * (a new context: its messages never match the parent's); MPI_Comm_split with several
 * colours, keys that reverse the order, equal keys (world order) and MPI_UNDEFINED
 * (MPI_COMM_NULL); MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) (a partition of the world that
 * every member agrees on, members in key order); MPI_Comm_create and
 * MPI_Comm_create_group from groups in a new order; MPI_Comm_free (MPI_COMM_NULL);
 * MPI_Comm_compare (IDENT, CONGRUENT, SIMILAR, UNEQUAL); MPI_Comm_set_name and
 * MPI_Comm_get_name; MPI_Comm_test_inter; messages and collectives on every new
 * communicator; many communicators made and freed. */
#include "conformance.h"

static int wrank, wsize;

/* A ring of messages, an allreduce, a broadcast and a barrier on comm, whose rank r must be
 * world rank members[r]. */
static void exercise(MPI_Comm comm, const int* members, int n, const char* what) {
  int rank = -1, size = -1;
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  CHECK(size == n, "%s: size %d, expected %d", what, size, n);
  if (size != n || rank < 0 || rank >= n) return;
  CHECK(members[rank] == wrank, "%s: rank %d is world rank %d, expected world rank %d", what,
        rank, wrank, members[rank]);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int in = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(&wrank, 1, MPI_INT, next, 3, &in, 1, MPI_INT, prev, 3, comm, &st));
  CHECK(in == members[prev] && st.MPI_SOURCE == prev,
        "%s: from rank %d got %d (status source %d), expected world rank %d", what, prev, in,
        st.MPI_SOURCE, members[prev]);
  long sum = 0, mine = wrank, expected = 0;
  for (int r = 0; r < n; ++r) expected += members[r];
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm));
  CHECK(sum == expected, "%s: MPI_Allreduce of world ranks %ld, expected %ld", what, sum, expected);
  int root_rank = wrank;
  CHECK_MPI(MPI_Bcast(&root_rank, 1, MPI_INT, size - 1, comm));
  CHECK(root_rank == members[size - 1], "%s: MPI_Bcast from the last rank gave %d", what,
        root_rank);
  CHECK_MPI(MPI_Barrier(comm));
}

static void world_and_self(void) {
  int* members = conf_alloc(sizeof(int) * (size_t)wsize);
  for (int r = 0; r < wsize; ++r) members[r] = r;
  exercise(MPI_COMM_WORLD, members, wsize, "MPI_COMM_WORLD");
  exercise(MPI_COMM_SELF, &wrank, 1, "MPI_COMM_SELF");
  int result = -1;
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_IDENT, "MPI_Comm_compare(world, world): %d, expected MPI_IDENT", result);
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &result));
  CHECK(result == (wsize == 1 ? MPI_CONGRUENT : MPI_UNEQUAL),
        "MPI_Comm_compare(self, world): %d", result);
  int inter = -1;
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &inter));
  CHECK(inter == 0, "MPI_Comm_test_inter(MPI_COMM_WORLD): %d", inter);
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == (int)strlen(name),
        "MPI_COMM_WORLD's name: \"%s\" (length %d)", name, len);
  CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == (int)strlen(name),
        "MPI_COMM_SELF's name: \"%s\" (length %d)", name, len);
  free(members);
}

/* A duplicate has the same group and a new context: rank 0 sends a value on the world and
 * another on the duplicate, same tag; the duplicate's receive, posted first, gets its own. */
static void dup(void) {
  MPI_Comm d = MPI_COMM_NULL, di = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &di));
  int* members = conf_alloc(sizeof(int) * (size_t)wsize);
  for (int r = 0; r < wsize; ++r) members[r] = r;
  exercise(d, members, wsize, "MPI_Comm_dup(world)");
  exercise(di, members, wsize, "MPI_Comm_dup_with_info(world)");
  int result = -1;
  CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, d, &result));
  CHECK(result == MPI_CONGRUENT, "MPI_Comm_compare(world, dup): %d, expected MPI_CONGRUENT", result);
  CHECK_MPI(MPI_Comm_compare(d, di, &result));
  CHECK(result == MPI_CONGRUENT, "MPI_Comm_compare(dup, dup_with_info): %d", result);
  CHECK_MPI(MPI_Comm_compare(d, d, &result));
  CHECK(result == MPI_IDENT, "MPI_Comm_compare(dup, dup): %d, expected MPI_IDENT", result);

  const int next = (wrank + 1) % wsize, prev = (wrank + wsize - 1) % wsize;
  int on_world = -1, on_dup = -1, on_dupi = -1;
  MPI_Request reqs[6];
  CHECK_MPI(MPI_Irecv(&on_dup, 1, MPI_INT, prev, 9, d, &reqs[0]));
  CHECK_MPI(MPI_Irecv(&on_dupi, 1, MPI_INT, prev, 9, di, &reqs[1]));
  CHECK_MPI(MPI_Irecv(&on_world, 1, MPI_INT, prev, 9, MPI_COMM_WORLD, &reqs[2]));
  const int w = 1000 + wrank, x = 2000 + wrank, y = 3000 + wrank;
  CHECK_MPI(MPI_Isend(&w, 1, MPI_INT, next, 9, MPI_COMM_WORLD, &reqs[3]));
  CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, next, 9, d, &reqs[4]));
  CHECK_MPI(MPI_Isend(&y, 1, MPI_INT, next, 9, di, &reqs[5]));
  CHECK_MPI(MPI_Waitall(6, reqs, MPI_STATUSES_IGNORE));
  CHECK(on_world == 1000 + prev && on_dup == 2000 + prev && on_dupi == 3000 + prev,
        "messages crossed communicators: world got %d, dup %d, dup_with_info %d", on_world,
        on_dup, on_dupi);

  /* Names: set and read back; a new communicator from split has none. */
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Comm_set_name(d, "the duplicate"));
  CHECK_MPI(MPI_Comm_get_name(d, name, &len));
  CHECK(strcmp(name, "the duplicate") == 0 && len == 13, "MPI_Comm_get_name: \"%s\" (%d)", name, len);
  CHECK_MPI(MPI_Comm_set_name(d, "renamed"));
  CHECK_MPI(MPI_Comm_get_name(d, name, &len));
  CHECK(strcmp(name, "renamed") == 0 && len == 7, "MPI_Comm_get_name after renaming: \"%s\"", name);
  MPI_Comm s = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &s));
  CHECK_MPI(MPI_Comm_get_name(s, name, &len));
  CHECK(len == 0 && name[0] == '\0', "a new communicator's name: \"%s\" (%d)", name, len);
  int inter = -1;
  CHECK_MPI(MPI_Comm_test_inter(d, &inter));
  CHECK(inter == 0, "MPI_Comm_test_inter(dup): %d", inter);

  /* A duplicate of a duplicate, freed in a different order than made. */
  MPI_Comm dd = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_dup(d, &dd));
  exercise(dd, members, wsize, "MPI_Comm_dup(dup)");
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK(d == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");
  exercise(dd, members, wsize, "a duplicate whose parent was freed");
  CHECK_MPI(MPI_Comm_free(&di));
  CHECK_MPI(MPI_Comm_free(&dd));
  CHECK_MPI(MPI_Comm_free(&s));
  free(members);
}

/* MPI_Comm_split: colour r mod 3, key -r (reverse order); colour by halves with equal keys
 * (world order); MPI_UNDEFINED for every fourth rank; a split of a split. */
static void split(void) {
  int* members = conf_alloc(sizeof(int) * (size_t)wsize);
  MPI_Comm c = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 3, -wrank, &c));
  int n = 0;
  for (int r = wsize - 1; r >= 0; --r) {
    if (r % 3 == wrank % 3) members[n++] = r;
  }
  exercise(c, members, n, "MPI_Comm_split(colour r mod 3, key -r)");
  int result = -1;
  CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &result));
  CHECK(result == (n == wsize ? (n == 1 ? MPI_CONGRUENT : MPI_SIMILAR) : MPI_UNEQUAL),
        "MPI_Comm_compare(split by r mod 3, world): %d", result);

  /* Split of the split: halves of it by its own rank, keys equal: its order is kept. */
  int crank = 0;
  MPI_Comm_rank(c, &crank);
  MPI_Comm cc = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split(c, crank % 2, 7, &cc));
  int m = 0;
  for (int k = 0; k < n; ++k) {
    if (k % 2 == crank % 2) members[m++] = members[k];
  }
  exercise(cc, members, m, "MPI_Comm_split of a split (equal keys)");
  CHECK_MPI(MPI_Comm_free(&cc));
  CHECK_MPI(MPI_Comm_free(&c));

  /* Halves of the world, equal keys: world order. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank < wsize / 2, 0, &c));
  n = 0;
  for (int r = 0; r < wsize; ++r) {
    if ((r < wsize / 2) == (wrank < wsize / 2)) members[n++] = r;
  }
  exercise(c, members, n, "MPI_Comm_split(halves, equal keys)");
  CHECK_MPI(MPI_Comm_free(&c));

  /* One colour, reversed: the same members in another order. */
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 5, wsize - wrank, &c));
  for (int r = 0; r < wsize; ++r) members[r] = wsize - 1 - r;
  exercise(c, members, wsize, "MPI_Comm_split(one colour, reversed)");
  CHECK_MPI(MPI_Comm_compare(c, MPI_COMM_WORLD, &result));
  CHECK(result == (wsize == 1 ? MPI_CONGRUENT : MPI_SIMILAR),
        "MPI_Comm_compare(world reversed, world): %d, expected MPI_SIMILAR", result);
  CHECK_MPI(MPI_Comm_free(&c));

  /* MPI_UNDEFINED: no communicator for every fourth rank. */
  const int colour = wrank % 4 == 3 ? MPI_UNDEFINED : wrank % 2;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, colour, wrank, &c));
  if (colour == MPI_UNDEFINED) {
    CHECK(c == MPI_COMM_NULL, "MPI_Comm_split with MPI_UNDEFINED did not give MPI_COMM_NULL");
  } else {
    n = 0;
    for (int r = 0; r < wsize; ++r) {
      if (r % 4 != 3 && r % 2 == colour) members[n++] = r;
    }
    exercise(c, members, n, "MPI_Comm_split with some ranks MPI_UNDEFINED");
    CHECK_MPI(MPI_Comm_free(&c));
  }
  free(members);
}

/* MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): what a "shared memory" domain is depends on the
 * machine; the standard asks that it be a partition of the world into communicators whose
 * members agree, in the order of the keys. */
static void split_type(void) {
  MPI_Comm shm = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wsize - wrank,
                                MPI_INFO_NULL, &shm));
  CHECK(shm != MPI_COMM_NULL, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) gave MPI_COMM_NULL");
  if (shm == MPI_COMM_NULL) return;
  int n = 0, r = -1;
  MPI_Comm_size(shm, &n);
  MPI_Comm_rank(shm, &r);
  CHECK(n >= 1 && n <= wsize && r >= 0 && r < n, "shared domain: size %d, rank %d", n, r);
  int* members = conf_alloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  CHECK_MPI(MPI_Allgather(&wrank, 1, MPI_INT, members, 1, MPI_INT, shm));
  for (int k = 1; k < n; ++k) {
    CHECK(members[k] < members[k - 1], "shared domain: not in key order (%d after %d)",
          members[k], members[k - 1]);
  }
  exercise(shm, members, n, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
  /* A partition: every world rank in exactly one domain, the domains' lowest ranks agree. */
  int lowest = wrank;
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, shm));
  int* owner = conf_alloc(sizeof(int) * (size_t)wsize);
  CHECK_MPI(MPI_Allgather(&lowest, 1, MPI_INT, owner, 1, MPI_INT, MPI_COMM_WORLD));
  int count = 0;
  for (int k = 0; k < wsize; ++k) count += owner[k] == lowest;
  CHECK(count == n, "shared domains do not partition the world: %d ranks name domain %d, which has %d",
        count, lowest, n);
  free(owner);
  free(members);
  CHECK_MPI(MPI_Comm_free(&shm));
  /* MPI_UNDEFINED gives MPI_COMM_NULL. */
  CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, wrank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
                                0, MPI_INFO_NULL, &shm));
  if (wrank % 2) {
    CHECK(shm == MPI_COMM_NULL, "MPI_Comm_split_type(MPI_UNDEFINED) did not give MPI_COMM_NULL");
  } else if (shm != MPI_COMM_NULL) {
    CHECK_MPI(MPI_Comm_free(&shm));
  }
}

/* MPI_Comm_create (collective over the world) and MPI_Comm_create_group (over the group's
 * members only) from the even ranks in reverse order and the odd ranks. */
static void create(void) {
  MPI_Group world_group, evens, odds;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  const int n_even = (wsize + 1) / 2, n_odd = wsize / 2;
  int* even_ranks = conf_alloc(sizeof(int) * (size_t)n_even);
  int* odd_ranks = conf_alloc(sizeof(int) * (size_t)(n_odd > 0 ? n_odd : 1));
  for (int k = 0; k < n_even; ++k) even_ranks[k] = 2 * (n_even - 1 - k);
  for (int k = 0; k < n_odd; ++k) odd_ranks[k] = 2 * k + 1;
  CHECK_MPI(MPI_Group_incl(world_group, n_even, even_ranks, &evens));
  CHECK_MPI(MPI_Group_incl(world_group, n_odd, odd_ranks, &odds));

  MPI_Comm c = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
  if (wrank % 2 == 0) {
    exercise(c, even_ranks, n_even, "MPI_Comm_create(even ranks, reversed)");
    CHECK_MPI(MPI_Comm_free(&c));
  } else {
    CHECK(c == MPI_COMM_NULL, "MPI_Comm_create gave a communicator to a non-member");
  }
  /* Every rank in a group of its own parity: both colours in one call. */
  CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, wrank % 2 ? odds : evens, &c));
  if (wrank % 2 == 0) exercise(c, even_ranks, n_even, "MPI_Comm_create(evens | odds)");
  else exercise(c, odd_ranks, n_odd, "MPI_Comm_create(evens | odds)");
  CHECK_MPI(MPI_Comm_free(&c));

  if (wrank % 2 == 1) {
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, odds, 17, &c));
    exercise(c, odd_ranks, n_odd, "MPI_Comm_create_group(odd ranks)");
    int result = -1;
    MPI_Group g;
    CHECK_MPI(MPI_Comm_group(c, &g));
    CHECK_MPI(MPI_Group_compare(g, odds, &result));
    CHECK(result == MPI_IDENT, "MPI_Comm_create_group: its group compares %d to the one given", result);
    CHECK_MPI(MPI_Group_free(&g));
    CHECK_MPI(MPI_Comm_free(&c));
  } else {
    CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 18, &c));
    exercise(c, even_ranks, n_even, "MPI_Comm_create_group(even ranks, reversed)");
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK_MPI(MPI_Group_free(&evens));
  CHECK_MPI(MPI_Group_free(&odds));
  CHECK_MPI(MPI_Group_free(&world_group));
  free(even_ranks);
  free(odd_ranks);
}

/* Communicators made and freed many times, a few kept alive across the others. */
static void many(void) {
  MPI_Comm keep[4];
  for (int k = 0; k < 4; ++k) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &keep[k]));
  for (int k = 0; k < 300; ++k) {
    MPI_Comm c = MPI_COMM_NULL;
    if (k % 2) CHECK_MPI(MPI_Comm_dup(keep[k % 4], &c));
    else CHECK_MPI(MPI_Comm_split(keep[k % 4], wrank % 2, k, &c));
    int v = k, sum = 0, n = 0;
    MPI_Comm_size(c, &n);
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == k * n, "communicator number %d: MPI_Allreduce gave %d", k, sum);
    CHECK_MPI(MPI_Comm_free(&c));
  }
  for (int k = 0; k < 4; ++k) CHECK_MPI(MPI_Comm_free(&keep[k]));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  world_and_self();
  dup();
  split();
  split_type();
  create();
  many();
  return conf_finish();
}
