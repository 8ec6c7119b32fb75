/* getopt is per rank: every rank parses its own arguments with getopt_long (-n NUMBER, -v,
 * --verbose, --long WORD) and prints what it got, twice: before MPI_Init, each rank on its own,
 * and after it, with optind reset to 1 (a second scan) and a barrier after every call, so that
 * between two calls of one rank every other rank has called libc's getopt too. A third scan
 * resets with optind 0 and runs plain getopt over arguments of its own (-v -n 3 -l w). Each
 * line says what the scan found:
 *   rank R scan S: n=N v=V long=WORD optind=I rest=OPERANDS
 * Returns 1 when a scan found an option it did not know. */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct found {
  int n, v, bad, optind;
  char word[32];
  char rest[64];
};

static const struct option longs[] = {{"long", required_argument, NULL, 'l'},
                                      {"verbose", no_argument, NULL, 'v'},
                                      {NULL, 0, NULL, 0}};

static void scan(int argc, char** argv, int use_long, int sync, struct found* f) {
  int c, i;
  memset(f, 0, sizeof *f);
  f->n = -1;
  strcpy(f->word, "-");
  for (;;) {
    c = use_long ? getopt_long(argc, argv, "n:v", longs, NULL) : getopt(argc, argv, "n:vl:");
    if (c == -1) break;
    switch (c) {
      case 'n': f->n = atoi(optarg); break;
      case 'v': ++f->v; break;
      case 'l': snprintf(f->word, sizeof f->word, "%s", optarg); break;
      default: f->bad = 1; break;
    }
    if (sync) MPI_Barrier(MPI_COMM_WORLD);
  }
  f->optind = optind;
  for (i = optind; i < argc; ++i) {
    strncat(f->rest, argv[i], sizeof f->rest - strlen(f->rest) - 2);
    if (i + 1 < argc) strcat(f->rest, ",");
  }
}

static void report(int rank, int number, const struct found* f) {
  printf("rank %d scan %d: n=%d v=%d long=%s optind=%d rest=%s\n", rank, number, f->n, f->v,
         f->word, f->optind, f->rest);
}

int main(int argc, char** argv) {
  struct found first, second, third;
  char a0[] = "prog", a1[] = "-v", a2[] = "-n", a3[] = "3", a4[] = "-lw";
  char* mine[] = {a0, a1, a2, a3, a4, NULL};
  int rank = 0;
  scan(argc, argv, 1, 0, &first);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  optind = 1;
  scan(argc, argv, 1, 1, &second);
  optind = 0;
  scan(5, mine, 0, 0, &third);
  report(rank, 1, &first);
  report(rank, 2, &second);
  report(rank, 3, &third);
  MPI_Finalize();
  return first.bad || second.bad || third.bad;
}
