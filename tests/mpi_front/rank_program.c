/* A stand-in for an MPI program, loaded once per rank by RankPrograms (mpi/program.hpp):
 * every kind of state an MPI program keeps per rank, and a call into the loading executable
 * (vmc_hello, which the test defines and exports, as vmc will export the MPI functions).
 * argv[1] is the rank. Built twice: with -Wl,-Bsymbolic (as vmcc will build programs) and
 * without (to show what it prevents: see vmc_shadowed). */
#include <stdlib.h>

int vmc_hello(int rank); /* defined by the executable that loads this program */

int calls_total;              /* bss */
int initialized = 7;          /* data */
int per_rank[64];             /* bss array */
_Thread_local int tls_calls;  /* one per copy and per thread */
int tls_seen;                 /* tls_calls as the last call saw it */
int constructor_runs;         /* set by the constructor */
int hello_result;             /* what vmc_hello returned */
/* A name the test executable also defines and exports: with -Bsymbolic this program's own
 * variable, without it the executable's (one for all ranks). */
int vmc_shadowed;

__attribute__((constructor)) static void on_load(void) {
  ++constructor_runs;
  initialized += 100;
}

int main(int argc, char** argv) {
  static int calls; /* static local */
  const int rank = argc > 1 ? atoi(argv[1]) : 0;
  ++calls;
  ++calls_total;
  per_rank[rank % 64] += rank + 1;
  tls_seen = ++tls_calls;
  ++vmc_shadowed;
  hello_result = vmc_hello(rank);
  /* The caller checks: the calls this copy has had, and its rank. */
  return calls * 1000 + rank;
}
