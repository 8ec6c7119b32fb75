/* One collective of vmc's name (argv[1]: allreduce, broadcast, reduce, allgather, alltoall,
 * gather, scatter, reduce_scatter, scan, exscan, barrier, gatherv, scatterv, allgatherv,
 * alltoallv) on argv[2] doubles per block (MPI's count) with root argv[3], shaped as
 * `vmc run --op OP --n N --root R --type double` calls it: every rank's MPI_Wtime after the
 * call, printed "time RANK SECONDS" with every digit (not with a fourth argument, quiet). The MPI layer's virtual time is vmc's:
 * its test holds these times to vmc run's. Nothing else runs, so the job's time is the call's.
 *
 *   vmcc timing.c -o timing && vmc mpirun -np 8 ./timing allreduce 1000 0 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 4) {
    fprintf(stderr, "usage: timing OP N ROOT\n");
    return 2;
  }
  const char* op = argv[1];
  const int n = atoi(argv[2]), root = atoi(argv[3]);
  double* a = calloc((size_t)n * p + 1, sizeof(double));
  double* b = calloc((size_t)n * p + 1, sizeof(double));
  int* counts = malloc(sizeof(int) * p);
  int* displs = malloc(sizeof(int) * p);
  for (int r = 0; r < p; ++r) {
    counts[r] = n;
    displs[r] = r * n;
  }
  for (int i = 0; i < n * p; ++i) a[i] = me + i;
  int known = 1;
  if (!strcmp(op, "allreduce")) MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  else if (!strcmp(op, "broadcast")) MPI_Bcast(a, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  else if (!strcmp(op, "reduce")) MPI_Reduce(a, b, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
  else if (!strcmp(op, "allgather")) MPI_Allgather(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, MPI_COMM_WORLD);
  else if (!strcmp(op, "alltoall")) MPI_Alltoall(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, MPI_COMM_WORLD);
  else if (!strcmp(op, "gather")) MPI_Gather(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  else if (!strcmp(op, "scatter")) MPI_Scatter(a, n, MPI_DOUBLE, b, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  else if (!strcmp(op, "reduce_scatter"))
    MPI_Reduce_scatter_block(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  else if (!strcmp(op, "scan")) MPI_Scan(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  else if (!strcmp(op, "exscan")) MPI_Exscan(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  else if (!strcmp(op, "barrier")) MPI_Barrier(MPI_COMM_WORLD);
  else if (!strcmp(op, "gatherv"))
    MPI_Gatherv(a, n, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, root, MPI_COMM_WORLD);
  else if (!strcmp(op, "scatterv"))
    MPI_Scatterv(a, counts, displs, MPI_DOUBLE, b, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  else if (!strcmp(op, "allgatherv"))
    MPI_Allgatherv(a, n, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
  else if (!strcmp(op, "alltoallv"))
    MPI_Alltoallv(a, counts, displs, MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
  else known = 0;
  const double t = MPI_Wtime();
  if (!known && me == 0) fprintf(stderr, "timing: unknown operation %s\n", op);
  if (known && argc < 5) printf("time %d %.17g\n", me, t);
  free(a);
  free(b);
  free(counts);
  free(displs);
  MPI_Finalize();
  return !known;
}
