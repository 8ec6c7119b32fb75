/* One misuse of MPI per argument, each of which ends the run with a report under the default
 * handler (or MPI_ERRORS_ABORT, or MPI_Abort), or, for "deadlock", a deadlock report that
 * names each waiting rank's MPI call; "thread" calls MPI from a thread of the program's own,
 * which is no rank: the call fails, the run goes on. The test holds the reports' wording.
 *
 *   vmcc fatal.c -o fatal && vmc mpirun -np 3 ./fatal count */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int thread_rc = -1;
static void* call_from_thread(void* unused) {
  int r;
  (void)unused;
  thread_rc = MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return NULL;
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "";
  int r, p, x[4] = {0, 0, 0, 0}, y[4];
  if (!strcmp(what, "before-init")) return MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (!strcmp(what, "count")) MPI_Bcast(x, -1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!strcmp(what, "freed")) {
    MPI_Comm d, c;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    c = d;
    MPI_Comm_free(&d);
    MPI_Barrier(c);
  }
  if (!strcmp(what, "mismatch-count"))
    MPI_Allreduce(x, y, r == 1 ? 2 : 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(what, "mismatch-root")) MPI_Bcast(x, 1, MPI_INT, r == 1 ? 1 : 0, MPI_COMM_WORLD);
  if (!strcmp(what, "mismatch-type"))
    MPI_Bcast(x, 1, r == 1 ? MPI_FLOAT : MPI_INT, 0, MPI_COMM_WORLD);
  if (!strcmp(what, "mismatch-op"))
    MPI_Allreduce(x, y, 1, MPI_INT, r == 1 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
  if (!strcmp(what, "abort-handler")) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT);
    MPI_Bcast(x, 1, MPI_INT, 99, MPI_COMM_WORLD);
  }
  if (!strcmp(what, "abort")) {
    if (r == p - 1) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (!strcmp(what, "deadlock") && r != 0) MPI_Bcast(x, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!strcmp(what, "group")) MPI_Group_size(12345, &p);
  if (!strcmp(what, "thread")) {
    pthread_t t;
    pthread_create(&t, NULL, call_from_thread, NULL);
    pthread_join(t, NULL);
    if (r == 0) printf("from a thread: %d\n", thread_rc);
  }
  MPI_Finalize();
  if (!strcmp(what, "after-finalize")) MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}
