/* What every program built for vmc mpirun holds of its own (libvmc_mpi_per_rank.a, which
 * vmcc, vmcxx and vmc::mpi link into it): the state that libc keeps once per process but an
 * MPI program expects once per rank. Linked into the program, it is in each rank's copy.
 *
 * getopt's variables: the program's references to optind, optarg, opterr and optopt bind to
 * these (they are defined here, and hidden, so no other object sees them), and its calls of
 * getopt, getopt_long, getopt_long_only and __posix_getopt reach the __wrap_ functions below
 * (-Wl,--wrap=, cmake/vmc_mpi_program.cmake), which run libc's function for this copy
 * (mpi/getopt.h, mpi/getopt.cpp). An archive member is linked only when the program refers to
 * one of its symbols: a program that never calls getopt gets none of this. */
#include "mpi/getopt.h"

#define VMC_HIDDEN __attribute__((visibility("hidden")))

VMC_HIDDEN int optind = 1;
VMC_HIDDEN int opterr = 1;
VMC_HIDDEN int optopt = '?';
VMC_HIDDEN char* optarg = 0;

static struct vmc_getopt_scan scan = {&optind, &optarg, &opterr, &optopt, 0, 0, 0, 0, 0, {0}, {0}};

int __wrap_getopt(int argc, char* const argv[], const char* optstring) {
  return vmc_mpi_getopt(VMC_GETOPT, &scan, argc, argv, optstring, 0, 0);
}

int __wrap___posix_getopt(int argc, char* const argv[], const char* optstring) {
  return vmc_mpi_getopt(VMC_GETOPT_POSIX, &scan, argc, argv, optstring, 0, 0);
}

int __wrap_getopt_long(int argc, char* const argv[], const char* optstring,
                       const struct option* longopts, int* longindex) {
  return vmc_mpi_getopt(VMC_GETOPT_LONG, &scan, argc, argv, optstring, longopts, longindex);
}

int __wrap_getopt_long_only(int argc, char* const argv[], const char* optstring,
                            const struct option* longopts, int* longindex) {
  return vmc_mpi_getopt(VMC_GETOPT_LONG_ONLY, &scan, argc, argv, optstring, longopts,
                        longindex);
}
