/* Manager and workers: rank 0 hands out tasks to whichever worker asks first, with
 * MPI_ANY_SOURCE and MPI_ANY_TAG. A task is a range of integers whose squares the worker
 * sums; a worker's answer is also its request for the next task. The manager adds the
 * answers, stops every worker when the tasks run out, and checks the total against the
 * formula; it prints how many tasks each worker did. Under a real MPI that split changes
 * from run to run; under vmc mpirun, which decides wildcards in virtual time, it is the same
 * in every run. Exit status 1 on a wrong total.
 *
 *   vmcc wildcards.c -o wildcards && vmc mpirun -np 6 ./wildcards */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TASKS = 40, TASK_LENGTH = 2500 };
enum { TAG_READY = 1, TAG_ANSWER = 2, TAG_TASK = 3, TAG_STOP = 4 };

/* The sum of i * i for i in [first, first + TASK_LENGTH). */
static long long work(long long first) {
  long long sum = 0;
  for (long long i = first; i < first + TASK_LENGTH; ++i) sum += i * i;
  return sum;
}

static int manager(int size) {
  long long total = 0;
  int next_task = 0, active = size - 1;
  int* done = calloc((size_t)size, sizeof(int));
  if (size == 1) { /* no workers: do it all */
    for (int t = 0; t < TASKS; ++t) total += work((long long)t * TASK_LENGTH);
    done[0] = TASKS;
  }
  while (active > 0) {
    /* Whoever speaks first: a worker's first request (TAG_READY) or an answer. */
    long long answer = 0;
    MPI_Status status;
    MPI_Recv(&answer, 1, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    const int worker = status.MPI_SOURCE;
    if (status.MPI_TAG == TAG_ANSWER) {
      total += answer;
      ++done[worker];
    }
    if (next_task < TASKS) {
      const long long first = (long long)next_task++ * TASK_LENGTH;
      MPI_Send(&first, 1, MPI_LONG_LONG, worker, TAG_TASK, MPI_COMM_WORLD);
    } else {
      MPI_Send(&answer, 0, MPI_LONG_LONG, worker, TAG_STOP, MPI_COMM_WORLD);
      --active;
    }
  }
  /* The sum of squares below n = TASKS * TASK_LENGTH: (n - 1) n (2n - 1) / 6. */
  const long long n = (long long)TASKS * TASK_LENGTH;
  const long long expected = (n - 1) * n * (2 * n - 1) / 6;
  printf("wildcards: %d ranks, total %lld (expected %lld), tasks per rank:", size, total, expected);
  for (int r = 0; r < size; ++r) printf(" %d", done[r]);
  printf("\n");
  free(done);
  return total != expected;
}

static void worker(void) {
  long long answer = 0;
  MPI_Send(&answer, 1, MPI_LONG_LONG, 0, TAG_READY, MPI_COMM_WORLD);
  for (;;) {
    long long first = 0;
    MPI_Status status;
    MPI_Recv(&first, 1, MPI_LONG_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == TAG_STOP) return;
    answer = work(first);
    MPI_Send(&answer, 1, MPI_LONG_LONG, 0, TAG_ANSWER, MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int bad = 0;
  if (rank == 0) bad = manager(size);
  else worker();
  MPI_Finalize();
  return bad;
}
