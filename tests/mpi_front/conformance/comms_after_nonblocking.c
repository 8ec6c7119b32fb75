/* Communicator constructors right after nonblocking collectives completed by MPI_Waitall or
 * MPI_Testall: each rank completes two MPI_Ialltoall and goes straight on to a constructor
 * on MPI_COMM_WORLD, with no barrier between (MPI_Comm_split, _dup, _create, _create_group,
 * _split_type, MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create_adjacent,
 * MPI_Intercomm_create, MPI_Intercomm_merge). A correct program: a rank already in the
 * constructor must not hold back another rank that is still completing its requests. Each new
 * communicator carries an allreduce, which must count its members. */
#include "conformance.h"

static int wrank, wsize;

/* Two alltoalls in flight at once, completed together (by MPI_Waitall, or by MPI_Testall
 * until it says so), their blocks checked. */
static void two_alltoalls(int by_test, const char* what) {
  int* out = conf_alloc(sizeof(int) * 2 * (size_t)wsize);
  int* in = conf_alloc(sizeof(int) * 2 * (size_t)wsize);
  for (int k = 0; k < 2; ++k) {
    for (int r = 0; r < wsize; ++r) out[k * wsize + r] = 1000 * k + 100 * wrank + r;
  }
  MPI_Request req[2];
  for (int k = 0; k < 2; ++k) {
    CHECK_MPI(MPI_Ialltoall(out + k * wsize, 1, MPI_INT, in + k * wsize, 1, MPI_INT,
                            MPI_COMM_WORLD, &req[k]));
  }
  if (by_test) {
    int done = 0;
    while (!done) CHECK_MPI(MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE));
  } else {
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  }
  for (int k = 0; k < 2; ++k) {
    for (int r = 0; r < wsize; ++r) {
      const int want = 1000 * k + 100 * r + wrank;
      CHECK(in[k * wsize + r] == want, "%s: alltoall %d's block from rank %d: %d, expected %d",
            what, k, r, in[k * wsize + r], want);
    }
  }
  free(out);
  free(in);
}

/* comm (not MPI_COMM_NULL) has `size` ranks and its allreduce of ones says so; then freed. */
static void check_and_free(MPI_Comm* comm, int size, const char* what) {
  CHECK(*comm != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
  if (*comm == MPI_COMM_NULL) return;
  int got = -1, one = 1, sum = -1;
  CHECK_MPI(MPI_Comm_size(*comm, &got));
  CHECK(got == size, "%s: size %d, expected %d", what, got, size);
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, *comm));
  CHECK(sum == size, "%s: allreduce of ones %d, expected %d", what, sum, size);
  CHECK_MPI(MPI_Comm_free(comm));
}

enum { CONSTRUCTORS = 10 };
static const char* const names[CONSTRUCTORS] = {
    "MPI_Comm_split",   "MPI_Comm_dup",        "MPI_Comm_create",
    "MPI_Comm_create_group", "MPI_Comm_split_type", "MPI_Cart_create",
    "MPI_Graph_create", "MPI_Dist_graph_create_adjacent", "MPI_Intercomm_create",
    "MPI_Intercomm_merge"};

/* Constructor k on MPI_COMM_WORLD, its result checked and freed. */
static void construct(int k) {
  const char* what = names[k];
  MPI_Comm made = MPI_COMM_NULL;
  MPI_Group world_group;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  switch (k) {
    case 0: {
      CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &made));
      check_and_free(&made, (wsize + 1 - wrank % 2) / 2, what);
      break;
    }
    case 1:
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &made));
      check_and_free(&made, wsize, what);
      break;
    case 2:
      CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, world_group, &made));
      check_and_free(&made, wsize, what);
      break;
    case 3:
      CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 7, &made));
      check_and_free(&made, wsize, what);
      break;
    case 4:
      CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL,
                                    &made));
      CHECK(made != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
      if (made != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&made));
      break;
    case 5: {
      int dims[1] = {wsize}, periods[1] = {1};
      CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &made));
      check_and_free(&made, wsize, what);
      break;
    }
    case 6: {
      /* A ring: node i's neighbours are i - 1 and i + 1 (none at p = 1). */
      int* index = conf_alloc(sizeof(int) * (size_t)wsize);
      int* edges = conf_alloc(sizeof(int) * 2 * (size_t)wsize);
      int m = 0;
      for (int i = 0; i < wsize; ++i) {
        if (wsize > 1) {
          edges[m++] = (i + wsize - 1) % wsize;
          edges[m++] = (i + 1) % wsize;
        }
        index[i] = m;
      }
      CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 0, &made));
      check_and_free(&made, wsize, what);
      free(index);
      free(edges);
      break;
    }
    case 7: {
      const int prev = (wrank + wsize - 1) % wsize, next = (wrank + 1) % wsize, weight = 1;
      CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, &weight, 1, &next,
                                               &weight, MPI_INFO_NULL, 0, &made));
      check_and_free(&made, wsize, what);
      break;
    }
    case 8:
    case 9: {
      if (wsize < 2) break;  /* two groups need two ranks */
      /* Even and odd ranks, their leaders world ranks 0 and 1. */
      MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
      CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &local));
      CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - wrank % 2, 5, &inter));
      if (k == 9) {
        CHECK_MPI(MPI_Intercomm_merge(inter, wrank % 2, &made));
        check_and_free(&made, wsize, what);
      } else {
        int remote = -1;
        CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
        CHECK(remote == (wsize + wrank % 2) / 2, "%s: remote size %d", what, remote);
      }
      CHECK_MPI(MPI_Comm_free(&inter));
      CHECK_MPI(MPI_Comm_free(&local));
      break;
    }
    default:
      break;
  }
  CHECK_MPI(MPI_Group_free(&world_group));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &wsize));
  for (int by_test = 0; by_test < 2; ++by_test) {
    for (int k = 0; k < CONSTRUCTORS; ++k) {
      two_alltoalls(by_test, names[k]);
      construct(k);
    }
  }
  /* A constructor right after another: the second finds every rank past the first. */
  two_alltoalls(0, "back to back");
  construct(0);
  construct(1);
  return conf_finish();
}
