/* MPI_Barrier: no rank leaves before every rank has entered. Observed without a clock: before
 * entering, each rank creates a file named after the round and itself in a directory that
 * every rank sees (rank 0 makes it and broadcasts its name); after leaving, each rank checks
 * that every member's file of that round exists. Rounds on MPI_COMM_WORLD, MPI_COMM_SELF, a
 * duplicate, the world reversed and half of the world, ranks reaching the barrier in a chain
 * (rank r after rank r - 1's message) so that they arrive at different times. Where
 * MPI_WTIME_IS_GLOBAL says the clocks agree (vmc's virtual time), also: the earliest time
 * any rank leaves is not before the latest time any rank entered. Barriers with messages
 * in flight around them must not disturb the messages. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <sys/stat.h>
#include <unistd.h>

#include "conformance.h"

static char dir[512];
static int have_dir;

static void file_name(char* out, size_t size, const char* tag, int round, int world_rank) {
  snprintf(out, size, "%s/%s.%d.%d", dir, tag, round, world_rank);
}

/* One round on comm: enter in a chain, create this rank's file, barrier, then look for every
 * member's file of the round, before any other call. */
static void round_checked(MPI_Comm comm, const char* comm_name, const char* tag, int round) {
  int rank = 0, size = 1, world_rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  /* Each rank learns the members' world ranks first (this is not the barrier under test). */
  int* members = conf_alloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&world_rank, 1, MPI_INT, members, 1, MPI_INT, comm);
  int token = 0;
  if (rank > 0) MPI_Recv(&token, 1, MPI_INT, rank - 1, 77, comm, MPI_STATUS_IGNORE);
  if (rank < size - 1) {
    token = rank + 1;
    MPI_Send(&token, 1, MPI_INT, rank + 1, 77, comm);
  }
  char name[600];
  if (have_dir) {
    file_name(name, sizeof name, tag, round, world_rank);
    FILE* f = fopen(name, "w");
    CHECK(f != NULL, "cannot create %s", name);
    if (f != NULL) fclose(f);
  }
  const double entered = MPI_Wtime();
  const int rc = MPI_Barrier(comm);
  const double left = MPI_Wtime();
  CHECK(rc == MPI_SUCCESS, "MPI_Barrier on %s returned %d", comm_name, rc);
  if (have_dir) {
    for (int j = 0; j < size; ++j) {
      file_name(name, sizeof name, tag, round, members[j]);
      struct stat st;
      CHECK(stat(name, &st) == 0,
            "MPI_Barrier on %s, round %d: left before rank %d (world rank %d) entered", comm_name,
            round, j, members[j]);
    }
  }
  /* With global clocks: min(left) >= max(entered). */
  int flag = 0;
  int* global = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag);
  if (flag && *global) {
    double times[2] = {-left, entered}, extremes[2];
    MPI_Allreduce(times, extremes, 2, MPI_DOUBLE, MPI_MAX, comm);
    CHECK(-extremes[0] >= extremes[1],
          "MPI_Barrier on %s, round %d: a rank left at %.9f s, before another entered at %.9f s "
          "(global clocks)", comm_name, round, -extremes[0], extremes[1]);
  }
  free(members);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (rank == 0) {
    const char* tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/vmc_barrier_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) dir[0] = '\0';
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  struct stat st;
  have_dir = dir[0] != '\0' && stat(dir, &st) == 0; /* false if the ranks share no files */

  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  conf_comm comms[CONF_NCOMMS];
  conf_make_comms(comms);
  for (int round = 0; round < 10; ++round) {
    round_checked(MPI_COMM_WORLD, "MPI_COMM_WORLD", "world", round);
    round_checked(MPI_COMM_SELF, "MPI_COMM_SELF", "self", round);
    round_checked(dup, "a duplicate of MPI_COMM_WORLD", "dup", round);
    round_checked(comms[1].comm, comms[1].name, "reversed", round);
    round_checked(comms[2].comm, comms[2].name, rank % 2 ? "odd" : "even", round);
  }

  /* Messages in flight across barriers: each rank sends 5 messages to the next before a
   * barrier and receives them from the previous after two more. */
  int out[5], in[5];
  MPI_Request reqs[5];
  for (int k = 0; k < 5; ++k) {
    out[k] = rank * 100 + k;
    MPI_Isend(&out[k], 1, MPI_INT, (rank + 1) % size, k, MPI_COMM_WORLD, &reqs[k]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(dup);
  MPI_Barrier(MPI_COMM_WORLD);
  const int prev = (rank + size - 1) % size;
  for (int k = 4; k >= 0; --k) {
    MPI_Recv(&in[k], 1, MPI_INT, prev, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(in[k] == prev * 100 + k, "message %d across barriers: got %d, expected %d", k, in[k],
          prev * 100 + k);
  }
  MPI_Waitall(5, reqs, MPI_STATUSES_IGNORE);

  /* Many in a row. */
  for (int k = 0; k < 200; ++k) CHECK_MPI(MPI_Barrier(k % 2 ? dup : MPI_COMM_WORLD));

  MPI_Barrier(MPI_COMM_WORLD);
  if (have_dir) {
    const char* tags[] = {"world", "self", "dup", "reversed", rank % 2 ? "odd" : "even"};
    for (int round = 0; round < 10; ++round) {
      for (int k = 0; k < 5; ++k) {
        char name[600];
        file_name(name, sizeof name, tags[k], round, rank);
        CHECK(unlink(name) == 0, "could not remove %s", name);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && have_dir) CHECK(rmdir(dir) == 0, "could not remove %s", dir);
  conf_free_comms(comms);
  MPI_Comm_free(&dup);
  return conf_finish();
}
