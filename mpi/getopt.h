/* getopt per rank: what a program's own object (mpi/per_rank.c, in libvmc_mpi_per_rank.a,
 * which vmcc, vmcxx and vmc::mpi link into every program) hands libvmc_mpi (mpi/getopt.cpp).
 *
 * libc's getopt keeps its state in the process: optind, optarg, opterr, optopt and a hidden
 * position inside the current argument. Every rank runs in one process, so the object defines
 * the program's own optind, optarg, opterr and optopt (each rank's copy of the program has its
 * own) and the __wrap_ functions that -Wl,--wrap=getopt (and getopt_long, getopt_long_only,
 * __posix_getopt) send the program's calls to; they pass the rank's variables and its scan to
 * vmc_mpi_getopt, which runs libc's function on the rank's behalf. C, so that a C program
 * links it without a C++ runtime. */
#ifndef VMC_MPI_GETOPT_H
#define VMC_MPI_GETOPT_H

#ifdef __cplusplus
extern "C" {
#endif

struct option;

/* Which of libc's functions the program called. */
enum vmc_getopt_call {
  VMC_GETOPT = 0,           /* getopt */
  VMC_GETOPT_POSIX = 1,     /* __posix_getopt: getopt as <unistd.h> names it in strict POSIX */
  VMC_GETOPT_LONG = 2,      /* getopt_long */
  VMC_GETOPT_LONG_ONLY = 3  /* getopt_long_only */
};

/* How many changes of optind by the program in one scan are remembered (below). */
#define VMC_GETOPT_MOVES 16

/* A rank's scan of its arguments, in the program's own data (one per copy of the program).
 * A scan runs from its first call until getopt returns -1, or until the program resets its
 * optind (to 0 or 1). libvmc_mpi fills the fields after `optopt`. */
struct vmc_getopt_scan {
  int* optind; /* the program's variables */
  char** optarg;
  int* opterr;
  int* optopt;
  int scanning; /* a scan has begun and not ended */
  int calls;    /* the calls this scan has made */
  int start;    /* the program's optind when it began */
  int left;     /* the optind the last call left the program */
  /* The program's own changes of optind within the scan (optind++ to take an argument
   * itself): before its call move_call[k], it set optind to move_to[k]. */
  int moves;
  int move_call[VMC_GETOPT_MOVES];
  int move_to[VMC_GETOPT_MOVES];
};

/* Runs libc's `call` for the rank whose scan this is: libc's variables and hidden state are
 * made the rank's, the function runs, and what it leaves in optind, optarg and optopt goes
 * back to the program's. Defined in libvmc_mpi. */
int vmc_mpi_getopt(enum vmc_getopt_call call, struct vmc_getopt_scan* scan, int argc,
                   char* const argv[], const char* optstring, const struct option* longopts,
                   int* longindex);

#ifdef __cplusplus
}
#endif

#endif /* VMC_MPI_GETOPT_H */
