/* Start and end, and what the environment says: MPI_Initialized and MPI_Finalized before
 * MPI_Init_thread, during the run and after MPI_Finalize; MPI_Init_thread's provided level
 * (any of the four, in the standard's order); the ranks of MPI_COMM_WORLD (0..p-1, each
 * once); MPI_Wtime never decreasing, also across messages, and MPI_Wtick > 0;
 * MPI_Get_version (equal to MPI_VERSION and MPI_SUBVERSION, callable before MPI_Init and after
 * MPI_Finalize; 4.1 on vmc); MPI_Get_library_version and MPI_Get_processor_name (non-empty,
 * lengths right); the predefined attributes of MPI_COMM_WORLD: MPI_TAG_UB (at least 32767),
 * MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL (present, valid, the same on every rank), MPI_APPNUM
 * and MPI_UNIVERSE_SIZE (valid when present). The other programs start with MPI_Init. */
#include <math.h>

#include "conformance.h"

static int rank, size;

/* The same value on every rank (MPI_Allgather, then compared). */
static void same_everywhere(int value, const char* what) {
  int* all = conf_alloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&value, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) {
    CHECK(all[r] == value, "%s differs between ranks: %d here, %d at rank %d", what, value,
          all[r], r);
  }
  free(all);
}

/* A predefined attribute of MPI_COMM_WORLD: its value, *present set. */
static int world_attr(int key, int* present, const char* name) {
  int* value = NULL;
  *present = -1;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &value, present));
  CHECK(*present == 0 || *present == 1, "MPI_Comm_get_attr(%s): flag %d", name, *present);
  CHECK(!*present || value != NULL, "MPI_Comm_get_attr(%s): present but no value", name);
  return *present == 1 && value != NULL ? *value : 0;
}

static void attributes(void) {
  int present = 0;
  const int tag_ub = world_attr(MPI_TAG_UB, &present, "MPI_TAG_UB");
  CHECK(present && tag_ub >= 32767, "MPI_TAG_UB: present %d, value %d", present, tag_ub);
  same_everywhere(tag_ub, "MPI_TAG_UB");

  const int host = world_attr(MPI_HOST, &present, "MPI_HOST");
  CHECK(present, "MPI_HOST is not attached to MPI_COMM_WORLD");
  CHECK(host == MPI_PROC_NULL || (host >= 0 && host < size), "MPI_HOST: %d", host);
  same_everywhere(host, "MPI_HOST");

  const int io = world_attr(MPI_IO, &present, "MPI_IO");
  CHECK(present, "MPI_IO is not attached to MPI_COMM_WORLD");
  CHECK(io == MPI_ANY_SOURCE || io == MPI_PROC_NULL || (io >= 0 && io < size), "MPI_IO: %d", io);

  const int global = world_attr(MPI_WTIME_IS_GLOBAL, &present, "MPI_WTIME_IS_GLOBAL");
  CHECK(present, "MPI_WTIME_IS_GLOBAL is not attached to MPI_COMM_WORLD");
  CHECK(global == 0 || global == 1, "MPI_WTIME_IS_GLOBAL: %d", global);
  same_everywhere(global, "MPI_WTIME_IS_GLOBAL");

  /* Optional ones: valid when present. One program started once: application number 0. */
  const int appnum = world_attr(MPI_APPNUM, &present, "MPI_APPNUM");
  CHECK(!present || appnum == 0, "MPI_APPNUM: %d", appnum);
  const int universe = world_attr(MPI_UNIVERSE_SIZE, &present, "MPI_UNIVERSE_SIZE");
  CHECK(!present || universe >= 1, "MPI_UNIVERSE_SIZE: %d", universe);
#ifdef VMC_MPI_H
  CHECK(!present || universe >= size, "MPI_UNIVERSE_SIZE %d below the %d ranks", universe, size);
#endif
}

static void clocks(void) {
  const double tick = MPI_Wtick();
  CHECK(tick > 0 && tick < 1, "MPI_Wtick: %g", tick);
  double last = MPI_Wtime();
  CHECK(isfinite(last) && last >= 0, "MPI_Wtime: %g", last);
  int backwards = 0;
  for (int k = 0; k < 1000; ++k) {
    const double t = MPI_Wtime();
    backwards += t < last;
    last = t;
  }
  CHECK(backwards == 0, "MPI_Wtime went backwards %d times in 1000 calls", backwards);
  /* Across messages: a round trip ends no earlier than it started. */
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int k = 0; k < 20; ++k) {
    const double before = MPI_Wtime();
    char out[1000] = {0}, in[1000];
    MPI_Sendrecv(out, 1000, MPI_CHAR, next, k, in, 1000, MPI_CHAR, prev, k, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    const double after = MPI_Wtime();
    CHECK(after >= before, "MPI_Wtime went backwards across MPI_Sendrecv: %.9f then %.9f", before,
          after);
  }
}

static void strings(void) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = -1;
  CHECK_MPI(MPI_Get_library_version(lib, &len));
  int expected_len = (int)strlen(lib);
#ifdef OPEN_MPI
  /* Open MPI 4.1 counts the terminating null in resultlen; the standard does not. */
  if (len == expected_len + 1) expected_len = len;
#endif
  CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && len == expected_len,
        "MPI_Get_library_version: length %d for \"%s\"", len, lib);
#ifdef VMC_MPI_H
  CHECK(strstr(lib, "vmc") != NULL, "MPI_Get_library_version does not name vmc: \"%s\"", lib);
#endif
  char name[MPI_MAX_PROCESSOR_NAME];
  len = -1;
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && len == (int)strlen(name),
        "MPI_Get_processor_name: length %d for \"%s\"", len, name);
}

static void ranks(void) {
  CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d of %d", rank, size);
  int* all = conf_alloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) CHECK(all[r] == r, "rank %d says it is rank %d", r, all[r]);
  free(all);
  int self_rank = -1, self_size = -1;
  MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
  MPI_Comm_size(MPI_COMM_SELF, &self_size);
  CHECK(self_rank == 0 && self_size == 1, "MPI_COMM_SELF: rank %d of %d", self_rank, self_size);
}

int main(int argc, char** argv) {
  int flag = -1;
  MPI_Initialized(&flag);
  CHECK(flag == 0, "MPI_Initialized before MPI_Init_thread: %d", flag);
  MPI_Finalized(&flag);
  CHECK(flag == 0, "MPI_Finalized before MPI_Init_thread: %d", flag);
  int version = -1, subversion = -1;
  MPI_Get_version(&version, &subversion);
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
        "MPI_Get_version before MPI_Init_thread: %d.%d, mpi.h says %d.%d", version, subversion,
        MPI_VERSION, MPI_SUBVERSION);

  int provided = -1;
  const int rc = MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  CHECK(rc == MPI_SUCCESS, "MPI_Init_thread returned %d", rc);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
            MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
        "the thread levels are out of order");
  CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
            provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
        "MPI_Init_thread provided %d", provided);
  same_everywhere(provided, "MPI_Init_thread's provided level");
  MPI_Initialized(&flag);
  CHECK(flag == 1, "MPI_Initialized after MPI_Init_thread: %d", flag);
  MPI_Finalized(&flag);
  CHECK(flag == 0, "MPI_Finalized before MPI_Finalize: %d", flag);
  version = subversion = -1;
  CHECK_MPI(MPI_Get_version(&version, &subversion));
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION && version >= 3,
        "MPI_Get_version: %d.%d, mpi.h says %d.%d", version, subversion, MPI_VERSION,
        MPI_SUBVERSION);
#ifdef VMC_MPI_H
  CHECK(version == 4 && subversion == 1, "vmc's MPI_Get_version: %d.%d, expected 4.1", version,
        subversion);
#endif

  ranks();
  attributes();
  clocks();
  strings();

  /* The end: the tally while MPI can still count, then the checks after MPI_Finalize, which
   * each rank reports for itself. */
  const int before = conf_failures;
  const int total = conf_tally();
  CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize failed");
  MPI_Initialized(&flag);
  CHECK(flag == 1, "MPI_Initialized after MPI_Finalize: %d (it stays true)", flag);
  MPI_Finalized(&flag);
  CHECK(flag == 1, "MPI_Finalized after MPI_Finalize: %d", flag);
  version = subversion = -1;
  MPI_Get_version(&version, &subversion);
  CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
        "MPI_Get_version after MPI_Finalize: %d.%d", version, subversion);
  const int after = conf_failures - before;
  conf_verdict(total + after);
  return total == 0 && conf_failures == 0 ? 0 : 1;
}
