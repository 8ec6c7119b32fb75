/* Every rank writes argv[1] lines to stdout and to stderr, each line in several pieces
 * through different stdio calls, so that lines of ranks running at once would mix within a
 * line if they were not kept whole. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank = 0, i = 0;
  const int lines = argc > 1 ? atoi(argv[1]) : 10;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (i = 0; i < lines; ++i) {
    printf("rank %d", rank);
    fputs(" line ", stdout);
    fprintf(stdout, "%d", i);
    fwrite(" of", 1, 3, stdout);
    putchar(' ');
    printf("%d\n", lines);
    fprintf(stderr, "rank %d ", rank);
    fputc('e', stderr);
    fprintf(stderr, "rr %d\n", i);
    if (i % 16 == 0) MPI_Barrier(MPI_COMM_WORLD);
  }
  puts("done");
  printf("no newline at the end");
  MPI_Finalize();
  return 0;
}
