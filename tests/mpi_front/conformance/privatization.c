/* Every rank's globals are its own, as in separate processes: a static variable, a global
 * array (zero-initialized), an initialized global, a 1 MiB array, a function's static
 * counter, a pointer stored in a global that points into another global, a thread-local
 * variable (__thread and _Thread_local), and errno. Each rank writes its own values, then
 * after barriers (during which other ranks write theirs) finds its own still there. */
#include <errno.h>

#include "conformance.h"

static int counter;                 /* bss, static */
int global_array[64];               /* bss, external */
int initialized = 42;               /* data */
static char big[1 << 20];           /* 1 MiB of bss */
int* pointer_to_global = &global_array[7]; /* data, relocated per copy */
static __thread int tls_gnu;
static _Thread_local long tls_c11 = 5;

static int calls(void) {
  static int n; /* a function's static */
  return ++n;
}

static void write_mine(int rank, int round) {
  counter = rank * 10 + round;
  for (int i = 0; i < 64; ++i) global_array[i] = rank * 1000 + i + round;
  initialized = 42 + rank + round;
  memset(big, (unsigned char)(rank * 3 + round), sizeof big);
  tls_gnu = rank * 7 + round;
  tls_c11 = rank * 11L + round;
}

static void check_mine(int rank, int round) {
  CHECK(counter == rank * 10 + round, "round %d: static counter is %d, expected %d", round,
        counter, rank * 10 + round);
  int bad = 0;
  for (int i = 0; i < 64; ++i) bad += global_array[i] != rank * 1000 + i + round;
  CHECK(bad == 0, "round %d: %d elements of the global array are another rank's (first: %d)",
        round, bad, global_array[0]);
  CHECK(initialized == 42 + rank + round, "round %d: the initialized global is %d, expected %d",
        round, initialized, 42 + rank + round);
  size_t wrong = 0;
  for (size_t i = 0; i < sizeof big; ++i) wrong += big[i] != (char)(unsigned char)(rank * 3 + round);
  CHECK(wrong == 0, "round %d: %zu bytes of the 1 MiB array are not this rank's", round, wrong);
  CHECK(tls_gnu == rank * 7 + round, "round %d: __thread variable is %d, expected %d", round,
        tls_gnu, rank * 7 + round);
  CHECK(tls_c11 == rank * 11L + round, "round %d: _Thread_local variable is %ld, expected %ld",
        round, tls_c11, rank * 11L + round);
  /* The pointer in a global points into this rank's array. */
  CHECK(pointer_to_global == &global_array[7], "the global pointer does not point into this "
        "rank's array");
  CHECK(*pointer_to_global == rank * 1000 + 7 + round, "round %d: through the global pointer: %d",
        round, *pointer_to_global);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Before any rank writes: the initial values, untouched by the others' start. */
  CHECK(initialized == 42 && counter == 0 && global_array[0] == 0 && tls_c11 == 5,
        "initial values: %d, %d, %d, %ld", initialized, counter, global_array[0], tls_c11);
  MPI_Barrier(MPI_COMM_WORLD);

  for (int round = 0; round < 5; ++round) {
    /* Ranks write in turn, one per barrier, and every rank checks after each barrier. */
    for (int writer = 0; writer < size; ++writer) {
      if (rank == writer) write_mine(rank, round);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank <= writer) check_mine(rank, round);
      if (size > 16 && writer >= 16) break; /* enough turns for large p */
    }
    if (size > 17 && rank > 16) write_mine(rank, round);
    MPI_Barrier(MPI_COMM_WORLD);
    check_mine(rank, round);
  }

  /* A function's static counts this rank's calls only. */
  for (int k = 0; k <= rank; ++k) calls();
  MPI_Barrier(MPI_COMM_WORLD);
  const int mine = calls() - 1;
  CHECK(mine == rank + 1, "a function's static counted %d calls, this rank made %d", mine, rank + 1);

  /* errno: each rank sets its own, and keeps it across a barrier. */
  const int codes[4] = {EXDEV, EMLINK, ENOTDIR, EISDIR};
  const int my_code = codes[rank % 4];
  errno = my_code;
  MPI_Barrier(MPI_COMM_WORLD);
  const int seen = errno;
  /* Another rank's value must never show; an MPI library may set errno itself, so only vmc is
   * also held to keeping this rank's own value. */
  int foreign = 0;
  for (int k = 0; k < 4; ++k) foreign |= size > 1 && codes[k] != my_code && seen == codes[k];
  CHECK(!foreign, "errno is %d, the value another rank set (this rank set %d)", seen, my_code);
#ifdef VMC_MPI_H
  CHECK(seen == my_code, "errno is %d after a barrier, this rank set %d", seen, my_code);
#endif

  /* What each rank saw, compared at rank 0: the values were private, so each differs. */
  int* all = conf_alloc(sizeof(int) * (size_t)size);
  MPI_Gather(&counter, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      CHECK(all[r] == r * 10 + 4, "rank %d's static counter ended at %d, expected %d", r, all[r],
            r * 10 + 4);
    }
  }
  free(all);
  return conf_finish();
}
