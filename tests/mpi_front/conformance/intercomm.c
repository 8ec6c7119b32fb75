/* Intercommunicators, made by MPI_Intercomm_create from three splits of the world: two
 * halves (unequal at odd p), the even and the odd ranks (each group in reverse world order),
 * and the last rank against the rest (its group has the higher world ranks). On each:
 * MPI_Comm_test_inter, size, rank and group (the local group), MPI_Comm_remote_size and
 * _remote_group; point to point across (a rank names a remote rank; MPI_ANY_SOURCE among the
 * remote group; statuses give the remote rank; probe, sendrecv); every blocking collective
 * (MPI-4.1 6.2.2) with every root of both groups (MPI_ROOT at the root, MPI_PROC_NULL at its
 * group's others, the root's rank in the other group), a derived type on one side, a
 * non-commutative user op; MPI_Scan and MPI_Exscan refused (MPI_ERR_COMM); MPI_Intercomm_merge
 * with high both ways (the low group's ranks first) and collectives on the merged comm;
 * MPI_Comm_dup (still an intercommunicator, congruent), MPI_Comm_split and MPI_Comm_create of
 * one, MPI_Comm_compare, MPI_Comm_free; and MPI-4's MPI_Intercomm_create_from_groups. At p = 1 the world cannot be split into two groups:
 * only the intracommunicator checks run. */
#include "conformance.h"

static int wrank, wsize;

/* A split of the world into groups 0 and 1: each group's world ranks in rank order. */
typedef struct {
  const char* name;
  int n[2];
  int* members[2];
  int mine;  /* this rank's group */
  int rank;  /* this rank's rank in it */
} split;

static int group_of(const char* scheme, int w) {
  if (strcmp(scheme, "halves") == 0) return w < wsize / 2 ? 0 : 1;
  if (strcmp(scheme, "even/odd") == 0) return w % 2;
  return w == wsize - 1 ? 0 : 1; /* "last vs rest" */
}

/* even/odd orders each group by descending world rank; the others by world rank. */
static split make_split(const char* scheme) {
  split s = {scheme, {0, 0}, {NULL, NULL}, 0, 0};
  for (int g = 0; g < 2; ++g) s.members[g] = conf_alloc(sizeof(int) * (size_t)wsize);
  const int reverse = strcmp(scheme, "even/odd") == 0;
  for (int i = 0; i < wsize; ++i) {
    const int w = reverse ? wsize - 1 - i : i;
    const int g = group_of(scheme, w);
    if (w == wrank) {
      s.mine = g;
      s.rank = s.n[g];
    }
    s.members[g][s.n[g]++] = w;
  }
  return s;
}

static void release_split(split* s) {
  free(s->members[0]);
  free(s->members[1]);
}

/* The intercommunicator of the split: local comm by MPI_Comm_split, leaders the groups' rank
 * 0, peer MPI_COMM_WORLD. */
static MPI_Comm make_inter(const split* s, int tag) {
  const int reverse = strcmp(s->name, "even/odd") == 0;
  MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, s->mine, reverse ? -wrank : wrank, &local));
  const int other = 1 - s->mine;
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, s->members[other][0], tag, &inter));
  CHECK_MPI(MPI_Comm_free(&local));
  return inter;
}

/* The world ranks of a group, in its order. */
static void check_group(MPI_Group g, const int* expected, int n, const char* what,
                        const char* scheme) {
  int size = -1;
  CHECK_MPI(MPI_Group_size(g, &size));
  CHECK(size == n, "%s: %s group size %d, expected %d", scheme, what, size, n);
  if (size != n) return;
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int* ranks = conf_alloc(sizeof(int) * (size_t)n);
  int* out = conf_alloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) ranks[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(g, n, ranks, world, out));
  for (int i = 0; i < n; ++i) {
    CHECK(out[i] == expected[i], "%s: %s group's rank %d is world rank %d, expected %d", scheme,
          what, i, out[i], expected[i]);
  }
  MPI_Group_free(&world);
  free(ranks);
  free(out);
}

/* Sizes, ranks and groups of intercommunicator ic: local group `local`, remote `remote`. */
static void check_shape(MPI_Comm ic, const int* local, int nl, const int* remote, int nr,
                        int rank, const char* what) {
  int flag = -1, size = -1, r = -1;
  CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
  CHECK(flag == 1, "%s: MPI_Comm_test_inter %d", what, flag);
  CHECK_MPI(MPI_Comm_size(ic, &size));
  CHECK(size == nl, "%s: size %d, expected the local group's %d", what, size, nl);
  CHECK_MPI(MPI_Comm_rank(ic, &r));
  CHECK(r == rank, "%s: rank %d, expected %d", what, r, rank);
  CHECK_MPI(MPI_Comm_remote_size(ic, &size));
  CHECK(size == nr, "%s: remote size %d, expected %d", what, size, nr);
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(ic, &g));
  check_group(g, local, nl, "local", what);
  MPI_Group_free(&g);
  CHECK_MPI(MPI_Comm_remote_group(ic, &g));
  check_group(g, remote, nr, "remote", what);
  MPI_Group_free(&g);
}

/* Point to point across: every rank sends its world rank to every remote rank and receives
 * theirs; then the remote group sends to local rank 0, which takes them by MPI_ANY_SOURCE
 * (probing first); then a sendrecv with the remote rank of the same rank, when there is one. */
static void point_to_point(MPI_Comm ic, const int* remote, int nr, int rank, int nl,
                           const char* what) {
  int* in = conf_alloc(sizeof(int) * (size_t)nr);
  MPI_Request* rs = conf_alloc(sizeof(MPI_Request) * (size_t)(2 * nr));
  MPI_Status* st = conf_alloc(sizeof(MPI_Status) * (size_t)(2 * nr));
  for (int j = 0; j < nr; ++j) {
    in[j] = -1;
    MPI_Irecv(&in[j], 1, MPI_INT, j, 11, ic, &rs[j]);
    MPI_Isend(&wrank, 1, MPI_INT, j, 11, ic, &rs[nr + j]);
  }
  CHECK_MPI(MPI_Waitall(2 * nr, rs, st));
  for (int j = 0; j < nr; ++j) {
    CHECK(in[j] == remote[j] && st[j].MPI_SOURCE == j && st[j].MPI_TAG == 11,
          "%s: from remote rank %d got %d (source %d), expected world rank %d", what, j, in[j],
          st[j].MPI_SOURCE, remote[j]);
  }
  /* MPI_ANY_SOURCE among the remote group, at local rank 0. */
  MPI_Request to_zero;
  MPI_Isend(&wrank, 1, MPI_INT, 0, 12, ic, &to_zero);
  if (rank == 0) {
    int* seen = conf_alloc(sizeof(int) * (size_t)nr);
    for (int j = 0; j < nr; ++j) seen[j] = 0;
    for (int k = 0; k < nr; ++k) {
      MPI_Status s;
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 12, ic, &s));
      const int from = s.MPI_SOURCE;
      CHECK(from >= 0 && from < nr, "%s: probe source %d", what, from);
      if (from < 0 || from >= nr) break;
      int v = -1;
      if (k % 2 == 0) { /* the probed message, by its source */
        MPI_Recv(&v, 1, MPI_INT, from, 12, ic, &s);
        CHECK(s.MPI_SOURCE == from && v == remote[from],
              "%s: a receive from the probed %d gave %d from %d", what, from, v, s.MPI_SOURCE);
      } else { /* any remote rank's */
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 12, ic, &s);
        CHECK(s.MPI_SOURCE >= 0 && s.MPI_SOURCE < nr && v == remote[s.MPI_SOURCE],
              "%s: MPI_ANY_SOURCE gave %d from %d", what, v, s.MPI_SOURCE);
      }
      if (s.MPI_SOURCE >= 0 && s.MPI_SOURCE < nr) ++seen[s.MPI_SOURCE];
    }
    for (int j = 0; j < nr; ++j) {
      CHECK(seen[j] == 1, "%s: remote rank %d seen %d times", what, j, seen[j]);
    }
    free(seen);
  }
  MPI_Wait(&to_zero, MPI_STATUS_IGNORE);
  if (rank < nr) {
    int got = -1;
    MPI_Status s;
    CHECK_MPI(MPI_Sendrecv(&wrank, 1, MPI_INT, rank, 13, &got, 1, MPI_INT, rank, 13, ic, &s));
    CHECK(got == remote[rank] && s.MPI_SOURCE == rank, "%s: sendrecv got %d from %d", what, got,
          s.MPI_SOURCE);
  }
  (void)nl;
  free(in);
  free(rs);
  free(st);
}

/* A non-commutative op: the left operand wins (x0 op x1 op ... = x0). */
static void first_of(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  memcpy(inout, in, sizeof(int) * (size_t)*len);
}

/* Every collective, with every root of both groups. */
static void collectives(MPI_Comm ic, const split* s) {
  const char* what = s->name;
  const int me = s->mine, other = 1 - s->mine;
  const int nl = s->n[me], nr = s->n[other], rank = s->rank;
  const int* local = s->members[me];
  const int* remote = s->members[other];
  int big = nl > nr ? nl : nr;
  int* buf = conf_alloc(sizeof(int) * (size_t)(4 * big * big + 16));
  int* out = conf_alloc(sizeof(int) * (size_t)(4 * big * big + 16));

  CHECK_MPI(MPI_Barrier(ic));

  /* Rooted: every root of each group. */
  for (int g = 0; g < 2; ++g) {
    for (int r = 0; r < s->n[g]; ++r) {
      const int in_root_group = g == me;
      const int root = in_root_group ? (r == rank ? MPI_ROOT : MPI_PROC_NULL) : r;
      const int root_world = s->members[g][r];
      /* Bcast of 3 ints; the root sends one vector of 3 ints spaced by 2. */
      if (root == MPI_ROOT) {
        MPI_Datatype spaced;
        MPI_Type_vector(3, 1, 2, MPI_INT, &spaced);
        MPI_Type_commit(&spaced);
        for (int i = 0; i < 6; ++i) buf[i] = 100 * wrank + i;
        CHECK_MPI(MPI_Bcast(buf, 1, spaced, root, ic));
        MPI_Type_free(&spaced);
      } else {
        for (int i = 0; i < 3; ++i) buf[i] = -1;
        CHECK_MPI(MPI_Bcast(buf, 3, MPI_INT, root, ic));
        if (!in_root_group) {
          for (int i = 0; i < 3; ++i) {
            CHECK(buf[i] == 100 * root_world + 2 * i, "%s: bcast from %d: [%d] = %d", what,
                  root_world, i, buf[i]);
          }
        }
      }
      /* Reduce: the root gets the sum over the other group. */
      for (int i = 0; i < 2; ++i) buf[i] = wrank + i;
      out[0] = out[1] = -1;
      CHECK_MPI(MPI_Reduce(buf, out, 2, MPI_INT, MPI_SUM, root, ic));
      if (root == MPI_ROOT) {
        int sum = 0;
        for (int j = 0; j < nr; ++j) sum += remote[j];
        CHECK(out[0] == sum && out[1] == sum + nr, "%s: reduce at %d: %d %d, expected %d %d",
              what, wrank, out[0], out[1], sum, sum + nr);
      }
      /* Gather: 2 ints a rank. */
      buf[0] = wrank;
      buf[1] = -wrank;
      for (int i = 0; i < 2 * nr; ++i) out[i] = -7;
      CHECK_MPI(MPI_Gather(buf, 2, MPI_INT, out, 2, MPI_INT, root, ic));
      if (root == MPI_ROOT) {
        for (int j = 0; j < nr; ++j) {
          CHECK(out[2 * j] == remote[j] && out[2 * j + 1] == -remote[j],
                "%s: gather at %d: block %d is %d %d", what, wrank, j, out[2 * j],
                out[2 * j + 1]);
        }
      }
      /* Gatherv: remote rank j sends j % 3 + 1 ints, placed with a gap of one. */
      {
        int counts[wsize], displs[wsize]; /* wsize >= either group */
        int at = 0;
        for (int j = 0; j < nr; ++j) {
          counts[j] = j % 3 + 1;
          displs[j] = at;
          at += counts[j] + 1;
        }
        for (int i = 0; i < rank % 3 + 1; ++i) buf[i] = wrank * 10 + i;
        for (int i = 0; i < at; ++i) out[i] = -7;
        CHECK_MPI(MPI_Gatherv(buf, rank % 3 + 1, MPI_INT, out, counts, displs, MPI_INT, root, ic));
        if (root == MPI_ROOT) {
          for (int j = 0; j < nr; ++j) {
            for (int i = 0; i < counts[j]; ++i) {
              CHECK(out[displs[j] + i] == remote[j] * 10 + i, "%s: gatherv block %d [%d] = %d",
                    what, j, i, out[displs[j] + i]);
            }
            CHECK(out[displs[j] + counts[j]] == -7, "%s: gatherv wrote into a gap", what);
          }
        }
      }
      /* Scatter: remote rank j gets 2 ints, 1000 * root + 2j, +1. */
      if (root == MPI_ROOT) {
        for (int j = 0; j < 2 * nr; ++j) buf[j] = 1000 * wrank + j;
      }
      out[0] = out[1] = -1;
      CHECK_MPI(MPI_Scatter(buf, 2, MPI_INT, out, 2, MPI_INT, root, ic));
      if (!in_root_group) {
        CHECK(out[0] == 1000 * root_world + 2 * rank && out[1] == out[0] + 1,
              "%s: scatter from %d gave %d %d", what, root_world, out[0], out[1]);
      }
      /* Scatterv: remote rank j gets j % 2 + 1 ints from offset 3j. */
      {
        int counts[wsize], displs[wsize]; /* wsize >= either group */
        for (int j = 0; j < nr; ++j) {
          counts[j] = j % 2 + 1;
          displs[j] = 3 * j;
        }
        if (root == MPI_ROOT) {
          for (int j = 0; j < 3 * nr; ++j) buf[j] = 1000 * wrank + j;
        }
        out[0] = out[1] = -1;
        CHECK_MPI(MPI_Scatterv(buf, counts, displs, MPI_INT, out, rank % 2 + 1, MPI_INT, root, ic));
        if (!in_root_group) {
          for (int i = 0; i < rank % 2 + 1; ++i) {
            CHECK(out[i] == 1000 * root_world + 3 * rank + i, "%s: scatterv [%d] = %d", what, i,
                  out[i]);
          }
        }
      }
    }
  }

  /* Allreduce: each group gets the other's sum; and a non-commutative op: the other group's
   * rank 0's value. */
  {
    int mine = wrank, sum = -1, first = -1, expected = 0;
    for (int j = 0; j < nr; ++j) expected += remote[j];
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == expected, "%s: allreduce %d, expected %d", what, sum, expected);
    MPI_Op op;
    MPI_Op_create(first_of, 0, &op);
    CHECK_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, op, ic));
    CHECK(first == remote[0], "%s: a non-commutative allreduce %d, expected %d", what, first,
          remote[0]);
    MPI_Op_free(&op);
  }
  /* Allgather: the other group's blocks in its rank order. */
  buf[0] = wrank;
  buf[1] = wrank + 1;
  for (int i = 0; i < 2 * nr; ++i) out[i] = -1;
  CHECK_MPI(MPI_Allgather(buf, 2, MPI_INT, out, 2, MPI_INT, ic));
  for (int j = 0; j < nr; ++j) {
    CHECK(out[2 * j] == remote[j] && out[2 * j + 1] == remote[j] + 1,
          "%s: allgather block %d: %d %d", what, j, out[2 * j], out[2 * j + 1]);
  }
  /* Allgatherv: remote rank j gave j % 3 + 1 ints, placed in reverse order. */
  {
    int counts[wsize], displs[wsize]; /* wsize >= either group */
    int at = 0;
    for (int j = nr - 1; j >= 0; --j) {
      counts[j] = j % 3 + 1;
      displs[j] = at;
      at += counts[j];
    }
    for (int i = 0; i < rank % 3 + 1; ++i) buf[i] = wrank * 10 + i;
    for (int i = 0; i < at; ++i) out[i] = -1;
    CHECK_MPI(MPI_Allgatherv(buf, rank % 3 + 1, MPI_INT, out, counts, displs, MPI_INT, ic));
    for (int j = 0; j < nr; ++j) {
      for (int i = 0; i < counts[j]; ++i) {
        CHECK(out[displs[j] + i] == remote[j] * 10 + i, "%s: allgatherv block %d [%d] = %d",
              what, j, i, out[displs[j] + i]);
      }
    }
  }
  /* Alltoall: to remote rank j, 1000 * wrank + j. */
  for (int j = 0; j < nr; ++j) buf[j] = 1000 * wrank + j;
  for (int j = 0; j < nr; ++j) out[j] = -1;
  CHECK_MPI(MPI_Alltoall(buf, 1, MPI_INT, out, 1, MPI_INT, ic));
  for (int j = 0; j < nr; ++j) {
    CHECK(out[j] == 1000 * remote[j] + rank, "%s: alltoall from %d: %d", what, j, out[j]);
  }
  /* Alltoallv: to remote rank j, j % 2 + 1 ints; from it, rank % 2 + 1. */
  {
    int sc[wsize], sd[wsize], rc[wsize], rd[wsize];
    for (int j = 0; j < nr; ++j) {
      sc[j] = j % 2 + 1;
      sd[j] = 2 * j;
      rc[j] = rank % 2 + 1;
      rd[j] = 3 * j;
      buf[2 * j] = 100 * wrank + j;
      buf[2 * j + 1] = -(100 * wrank + j);
    }
    for (int i = 0; i < 3 * nr; ++i) out[i] = -7;
    CHECK_MPI(MPI_Alltoallv(buf, sc, sd, MPI_INT, out, rc, rd, MPI_INT, ic));
    for (int j = 0; j < nr; ++j) {
      CHECK(out[3 * j] == 100 * remote[j] + rank, "%s: alltoallv from %d: %d", what, j,
            out[3 * j]);
      if (rank % 2 == 1) {
        CHECK(out[3 * j + 1] == -(100 * remote[j] + rank), "%s: alltoallv from %d [1]: %d", what,
              j, out[3 * j + 1]);
      }
    }
  }
  /* Reduce_scatter_block: each group's vector is nl * rc ints with rc = nr (so that both
   * groups' counts are nl * nr); element k is wrank + k. Remote rank j gets elements
   * j * rc'.. of the other group's sum, rc' its own block (= nl here, the remote's nr). */
  {
    const int n = nl * nr;
    for (int k = 0; k < n; ++k) buf[k] = wrank + k;
    for (int k = 0; k < nl; ++k) out[k] = -1;
    CHECK_MPI(MPI_Reduce_scatter_block(buf, out, nr, MPI_INT, MPI_SUM, ic));
    int sum = 0;
    for (int j = 0; j < nr; ++j) sum += remote[j];
    for (int i = 0; i < nr; ++i) {
      const int k = rank * nr + i;
      CHECK(out[i] == sum + nr * k, "%s: reduce_scatter_block [%d] = %d, expected %d", what, i,
            out[i], sum + nr * k);
    }
  }
  /* Reduce_scatter: both vectors nl * nr ints; local rank i gets counts[i] of them. */
  {
    const int n = nl * nr;
    int counts[wsize], at = 0, mine_at = 0;
    for (int i = 0; i < nl; ++i) {
      counts[i] = n / nl + (i < n % nl ? 1 : 0);
      if (i < rank) mine_at += counts[i];
      at += counts[i];
    }
    for (int k = 0; k < n; ++k) buf[k] = wrank + k;
    for (int k = 0; k < counts[rank]; ++k) out[k] = -1;
    CHECK_MPI(MPI_Reduce_scatter(buf, out, counts, MPI_INT, MPI_SUM, ic));
    int sum = 0;
    for (int j = 0; j < nr; ++j) sum += remote[j];
    for (int i = 0; i < counts[rank]; ++i) {
      const int k = mine_at + i;
      CHECK(out[i] == sum + nr * k, "%s: reduce_scatter [%d] = %d, expected %d", what, i, out[i],
            sum + nr * k);
    }
    (void)at;
  }
  /* Scan and Exscan are not defined on an intercommunicator. */
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  int cls = -1, rc = MPI_Scan(buf, out, 1, MPI_INT, MPI_SUM, ic);
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS, "%s: MPI_Scan on an intercommunicator succeeded", what);
#ifdef VMC_MPI_H
  CHECK(cls == MPI_ERR_COMM, "%s: MPI_Scan's class %d, expected MPI_ERR_COMM", what, cls);
#endif
#ifndef OPEN_MPI /* Open MPI 4.1 calls a null function for MPI_Exscan on an intercommunicator */
  rc = MPI_Exscan(buf, out, 1, MPI_INT, MPI_SUM, ic);
  CHECK(rc != MPI_SUCCESS, "%s: MPI_Exscan on an intercommunicator succeeded", what);
#endif
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL);
  (void)local;
  free(buf);
  free(out);
}

/* Merge with high given to group 0 (or 1): the low group's ranks first; an allgather of world
 * ranks on the merged comm says its order. */
static void merge(MPI_Comm ic, const split* s, int high_group) {
  MPI_Comm merged = MPI_COMM_NULL;
  CHECK_MPI(MPI_Intercomm_merge(ic, s->mine == high_group, &merged));
  const int low = 1 - high_group;
  const int n = s->n[0] + s->n[1];
  int size = -1, rank = -1, flag = -1;
  CHECK_MPI(MPI_Comm_size(merged, &size));
  CHECK_MPI(MPI_Comm_rank(merged, &rank));
  CHECK_MPI(MPI_Comm_test_inter(merged, &flag));
  CHECK(size == n && flag == 0, "%s: merged size %d (inter %d), expected %d", s->name, size,
        flag, n);
  const int expected_rank = s->mine == low ? s->rank : s->n[low] + s->rank;
  CHECK(rank == expected_rank, "%s, high group %d: merged rank %d, expected %d", s->name,
        high_group, rank, expected_rank);
  int* all = conf_alloc(sizeof(int) * (size_t)n);
  CHECK_MPI(MPI_Allgather(&wrank, 1, MPI_INT, all, 1, MPI_INT, merged));
  for (int i = 0; i < n; ++i) {
    const int want = i < s->n[low] ? s->members[low][i] : s->members[high_group][i - s->n[low]];
    CHECK(all[i] == want, "%s: merged rank %d is world rank %d, expected %d", s->name, i, all[i],
          want);
  }
  long sum = 0, mine = wrank;
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, merged));
  CHECK(sum == (long)wsize * (wsize - 1) / 2, "%s: a sum on the merged comm: %ld", s->name, sum);
  free(all);
  CHECK_MPI(MPI_Comm_free(&merged));
}

/* Dup (an intercommunicator, congruent), split by local rank parity with keys reversed, and
 * create from the local group's first half. */
static void derived(MPI_Comm ic, const split* s) {
  const int me = s->mine, other = 1 - me;
  const int nl = s->n[me], nr = s->n[other];
  MPI_Comm dup = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_dup(ic, &dup));
  int result = -1;
  CHECK_MPI(MPI_Comm_compare(ic, dup, &result));
  CHECK(result == MPI_CONGRUENT, "%s: compare(intercomm, its dup) %d", s->name, result);
  CHECK_MPI(MPI_Comm_compare(ic, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_UNEQUAL, "%s: compare(intercomm, world) %d", s->name, result);
  check_shape(dup, s->members[me], nl, s->members[other], nr, s->rank, "dup");
  point_to_point(dup, s->members[other], nr, s->rank, nl, "dup");
  {
    int mine = wrank, sum = -1, expected = 0;
    for (int j = 0; j < nr; ++j) expected += s->members[other][j];
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, dup));
    CHECK(sum == expected, "%s: allreduce on the dup %d, expected %d", s->name, sum, expected);
  }
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free left a handle");

  /* Split: colour = rank % 2, key = -rank: the new local group is this group's ranks of the
   * same parity in reverse order; the remote one the other group's of that parity, reversed.
   * A parity the other group lacks gives MPI_COMM_NULL. */
  MPI_Comm sub = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_split(ic, s->rank % 2, -s->rank, &sub));
  int sl[wsize], sr[wsize], nsl = 0, nsr = 0;
  for (int i = nl - 1; i >= 0; --i) {
    if (i % 2 == s->rank % 2) sl[nsl++] = s->members[me][i];
  }
  for (int i = nr - 1; i >= 0; --i) {
    if (i % 2 == s->rank % 2) sr[nsr++] = s->members[other][i];
  }
  if (nsr == 0) {
    CHECK(sub == MPI_COMM_NULL, "%s: split with no remote rank of colour %d gave a comm",
          s->name, s->rank % 2);
  } else {
    CHECK(sub != MPI_COMM_NULL, "%s: split gave MPI_COMM_NULL", s->name);
    if (sub != MPI_COMM_NULL) {
      int myrank = 0;
      for (int i = 0; i < nsl; ++i) {
        if (sl[i] == wrank) myrank = i;
      }
      check_shape(sub, sl, nsl, sr, nsr, myrank, "split");
      point_to_point(sub, sr, nsr, myrank, nsl, "split");
      CHECK_MPI(MPI_Comm_free(&sub));
    }
  }

  /* Create: each group's first (n + 1) / 2 ranks. */
  MPI_Group g, first;
  CHECK_MPI(MPI_Comm_group(ic, &g));
  int range[1][3] = {{0, (nl + 1) / 2 - 1, 1}};
  CHECK_MPI(MPI_Group_range_incl(g, 1, range, &first));
  MPI_Comm made = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_create(ic, first, &made));
  if (s->rank < (nl + 1) / 2) {
    CHECK(made != MPI_COMM_NULL, "%s: MPI_Comm_create gave MPI_COMM_NULL to a member", s->name);
    if (made != MPI_COMM_NULL) {
      check_shape(made, s->members[me], (nl + 1) / 2, s->members[other], (nr + 1) / 2, s->rank,
                  "create");
      CHECK_MPI(MPI_Barrier(made));
      CHECK_MPI(MPI_Comm_free(&made));
    }
  } else {
    CHECK(made == MPI_COMM_NULL, "%s: MPI_Comm_create gave a comm to a non-member", s->name);
  }
  MPI_Group_free(&first);
  MPI_Group_free(&g);
}

#if MPI_VERSION >= 4
/* MPI-4's MPI_Intercomm_create_from_groups, from the world's group (MPI-3 libraries, as Open
 * MPI 4.1, lack it). */
static void from_groups(const split* s) {
  const int me = s->mine, other = 1 - me;
  MPI_Group world, local, remote;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, s->n[me], s->members[me], &local);
  MPI_Group_incl(world, s->n[other], s->members[other], &remote);
  MPI_Comm ic = MPI_COMM_NULL;
  CHECK_MPI(MPI_Intercomm_create_from_groups(local, 0, remote, 0, "conformance", MPI_INFO_NULL,
                                             MPI_ERRORS_ARE_FATAL, &ic));
  check_shape(ic, s->members[me], s->n[me], s->members[other], s->n[other], s->rank,
              "from groups");
  int mine = wrank, sum = -1, expected = 0;
  for (int j = 0; j < s->n[other]; ++j) expected += s->members[other][j];
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic));
  CHECK(sum == expected, "%s: allreduce on the one from groups %d, expected %d", s->name, sum,
        expected);
  CHECK_MPI(MPI_Comm_free(&ic));
  MPI_Group_free(&local);
  MPI_Group_free(&remote);
  MPI_Group_free(&world);
}
#endif

static void scheme(const char* name, int tag) {
  split s = make_split(name);
  if (s.n[0] == 0 || s.n[1] == 0) {
    release_split(&s);
    return;
  }
  MPI_Comm ic = make_inter(&s, tag);
  if (ic != MPI_COMM_NULL) {
    const int me = s.mine, other = 1 - me;
    check_shape(ic, s.members[me], s.n[me], s.members[other], s.n[other], s.rank, name);
    point_to_point(ic, s.members[other], s.n[other], s.rank, s.n[me], name);
    collectives(ic, &s);
    merge(ic, &s, 0);
    merge(ic, &s, 1);
    derived(ic, &s);
    CHECK_MPI(MPI_Comm_free(&ic));
#if MPI_VERSION >= 4
    from_groups(&s);
#endif
  }
  release_split(&s);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  int flag = -1;
  CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0, "MPI_Comm_test_inter(MPI_COMM_WORLD): %d", flag);
  if (wsize >= 2) { /* p = 1 has no two groups to make an intercommunicator of */
    scheme("halves", 21);
    scheme("even/odd", 22);
    scheme("last vs rest", 23);
  }
  return conf_finish();
}
