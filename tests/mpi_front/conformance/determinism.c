/* What wildcards decide, printed: rank 0 receives from MPI_ANY_SOURCE, completes receives
 * with MPI_Waitany and MPI_Testany, and polls with MPI_Iprobe, while the other ranks send
 * messages of different sizes at different times; rank 0 prints the order in which sources
 * were matched, how many polls each wait took, and the MPI_Wtime of each match since the
 * start, then every rank's MPI_Wtime at the end. Under another MPI the output changes from
 * run to run (the program only checks that every message arrived once); vmc decides
 * wildcards in virtual time, so its output must be the same in every run, on either engine,
 * under any load: the conformance driver runs it many times and compares. */
#include "conformance.h"

enum { K = 3, MAX_BYTES = 6000 };

static int rank, size;

/* The size of rank r's k-th message: different per rank, so that they arrive apart. */
static int bytes_of(int r, int k) { return 8 + ((r * 37 + k * 11) % 12) * 500; }

static void sender(void) {
  char* buf = conf_alloc(MAX_BYTES);
  memset(buf, rank, MAX_BYTES);
  /* Phase 1: K messages to MPI_ANY_SOURCE receives. */
  for (int k = 0; k < K; ++k) {
    MPI_Send(buf, bytes_of(rank, k), MPI_CHAR, 0, k, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* phase 1's MPI_ANY_TAG sees phase 1's messages only */
  /* Phases 2 to 4: one message each, sizes rotated. */
  for (int phase = 2; phase <= 4; ++phase) {
    MPI_Send(buf, bytes_of(rank, phase), MPI_CHAR, 0, 100 * phase, MPI_COMM_WORLD);
  }
  free(buf);
}

static void receiver(void) {
  char* buf = conf_alloc(MAX_BYTES);
  const double t0 = MPI_Wtime();
  int* got = calloc((size_t)size, sizeof(int));
  const int n = size - 1;

  printf("phase 1: MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) x %d\n", n * K);
  for (int k = 0; k < n * K; ++k) {
    MPI_Status st;
    MPI_Recv(buf, MAX_BYTES, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_CHAR, &count);
    const int s = st.MPI_SOURCE;
    CHECK(s > 0 && s < size && st.MPI_TAG == got[s] && count == bytes_of(s, got[s]),
          "phase 1: from %d tag %d, %d bytes (expected tag %d)", s, st.MPI_TAG, count,
          s > 0 && s < size ? got[s] : -1);
    if (s > 0 && s < size) ++got[s];
    printf("  %d: source %d tag %d bytes %d at %.17g\n", k, s, st.MPI_TAG, count, MPI_Wtime() - t0);
  }
  for (int r = 1; r < size; ++r) CHECK(got[r] == K, "phase 1: %d messages from rank %d", got[r], r);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Phase 2: one MPI_Irecv(MPI_ANY_SOURCE) per sender, completed by MPI_Waitany. */
  MPI_Request* reqs = conf_alloc(sizeof(MPI_Request) * (size_t)(n + 1));
  char* bufs = conf_alloc((size_t)MAX_BYTES * (size_t)(n + 1));
  for (int k = 0; k < n; ++k) {
    MPI_Irecv(bufs + (size_t)k * MAX_BYTES, MAX_BYTES, MPI_CHAR, MPI_ANY_SOURCE, 200,
              MPI_COMM_WORLD, &reqs[k]);
  }
  memset(got, 0, sizeof(int) * (size_t)size);
  printf("phase 2: MPI_Irecv(MPI_ANY_SOURCE) x %d, MPI_Waitany\n", n);
  for (int k = 0; k < n; ++k) {
    int index = -1;
    MPI_Status st;
    MPI_Waitany(n, reqs, &index, &st);
    const int s = st.MPI_SOURCE;
    CHECK(s > 0 && s < size && got[s] == 0, "phase 2: source %d", s);
    if (s > 0 && s < size) ++got[s];
    printf("  %d: index %d source %d at %.17g\n", k, index, s, MPI_Wtime() - t0);
  }

  /* Phase 3: MPI_Iprobe until something comes, then receive it. */
  memset(got, 0, sizeof(int) * (size_t)size);
  printf("phase 3: MPI_Iprobe(MPI_ANY_SOURCE) loops\n");
  for (int k = 0; k < n; ++k) {
    int flag = 0;
    long polls = 0;
    MPI_Status st;
    while (!flag) {
      MPI_Iprobe(MPI_ANY_SOURCE, 300, MPI_COMM_WORLD, &flag, &st);
      ++polls;
    }
    const int s = st.MPI_SOURCE;
    MPI_Recv(buf, MAX_BYTES, MPI_CHAR, s, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(s > 0 && s < size && got[s] == 0, "phase 3: source %d", s);
    if (s > 0 && s < size) ++got[s];
    printf("  %d: source %d after %ld polls at %.17g\n", k, s, polls, MPI_Wtime() - t0);
  }

  /* Phase 4: MPI_Testany over one receive per sender (specific sources). */
  for (int k = 0; k < n; ++k) {
    MPI_Irecv(bufs + (size_t)k * MAX_BYTES, MAX_BYTES, MPI_CHAR, k + 1, 400, MPI_COMM_WORLD,
              &reqs[k]);
  }
  memset(got, 0, sizeof(int) * (size_t)size);
  printf("phase 4: MPI_Testany over one receive per source\n");
  for (int k = 0; k < n; ++k) {
    int index = -1, flag = 0;
    long polls = 0;
    MPI_Status st;
    while (!flag) {
      MPI_Testany(n, reqs, &index, &flag, &st);
      ++polls;
    }
    CHECK(index >= 0 && index < n && got[index + 1] == 0, "phase 4: index %d", index);
    if (index >= 0 && index < n) ++got[index + 1];
    printf("  %d: source %d after %ld polls at %.17g\n", k, st.MPI_SOURCE, polls, MPI_Wtime() - t0);
  }
  free(reqs);
  free(bufs);
  free(got);
  free(buf);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double start = MPI_Wtime();
  if (rank == 0) receiver();
  else sender();
  /* Every rank's clock at the end. */
  double mine = MPI_Wtime() - start;
  double* all = conf_alloc(sizeof(double) * (size_t)size);
  MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("end times:");
    for (int r = 0; r < size; ++r) printf(" %.17g", all[r]);
    printf("\n");
    fflush(stdout);
  }
  free(all);
  return conf_finish();
}
