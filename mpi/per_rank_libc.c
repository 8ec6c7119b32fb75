/* The rest of libc's hidden state that an MPI program expects once per rank (a member of
 * libvmc_mpi_per_rank.a, as per_rank.c; linked into the program, so each rank's copy of the
 * program has its own): strtok's position, and the random number generators' seeds and
 * sequences (rand and srand, random and srandom, the drand48 family). libc keeps each once per
 * process, so ranks that share vmc's process would share one position and one sequence: one
 * rank's strtok would go on in another's string, and a program that seeds its generator with
 * its rank would draw numbers that depend on how the ranks happen to interleave. Each call
 * (reached through -Wl,--wrap=, cmake/vmc_mpi_program.cmake) runs libc's reentrant form on
 * this copy's state, which starts where a process's starts, so a rank draws the sequence it
 * would draw as a process of its own: unseeded as libc is unseeded (seed 1), with the same
 * algorithm as libc's (glibc's random_r and drand48_r, which its rand and drand48 use). */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

/* --- strtok ------------------------------------------------------------------------------- */

static char* strtok_position;

char* __wrap_strtok(char* s, const char* delim) { return strtok_r(s, delim, &strtok_position); }

/* --- rand, srand, random, srandom ---------------------------------------------------------- */

/* libc's default generator: an additive feedback generator of 128 bytes of state, which libc
 * seeds with 1 until the program seeds it. */
static char random_state[128];
static struct random_data random_data;
static int random_ready;

static struct random_data* generator(void) {
  if (!random_ready) {
    initstate_r(1, random_state, sizeof random_state, &random_data);
    random_ready = 1;
  }
  return &random_data;
}

long __wrap_random(void) {
  int32_t r = 0;
  random_r(generator(), &r);
  return r;
}

void __wrap_srandom(unsigned int seed) { srandom_r(seed, generator()); }

int __wrap_rand(void) { return (int)__wrap_random(); }

void __wrap_srand(unsigned int seed) { __wrap_srandom(seed); }

/* --- drand48 and its family ------------------------------------------------------------------
 * All zero is libc's state before the first call. erand48, nrand48 and jrand48 take their
 * state from the caller but libc's multiplier and addend from the shared state, which lcong48
 * sets: they read this copy's. */
static struct drand48_data rand48;

double __wrap_drand48(void) {
  double r = 0;
  drand48_r(&rand48, &r);
  return r;
}

double __wrap_erand48(unsigned short xsubi[3]) {
  double r = 0;
  erand48_r(xsubi, &rand48, &r);
  return r;
}

long __wrap_lrand48(void) {
  long r = 0;
  lrand48_r(&rand48, &r);
  return r;
}

long __wrap_nrand48(unsigned short xsubi[3]) {
  long r = 0;
  nrand48_r(xsubi, &rand48, &r);
  return r;
}

long __wrap_mrand48(void) {
  long r = 0;
  mrand48_r(&rand48, &r);
  return r;
}

long __wrap_jrand48(unsigned short xsubi[3]) {
  long r = 0;
  jrand48_r(xsubi, &rand48, &r);
  return r;
}

void __wrap_srand48(long seed) { srand48_r(seed, &rand48); }

unsigned short* __wrap_seed48(unsigned short seed16v[3]) {
  static unsigned short previous[3];
  seed48_r(seed16v, &rand48);
  memcpy(previous, rand48.__old_x, sizeof previous);
  return previous;
}

void __wrap_lcong48(unsigned short param[7]) { lcong48_r(param, &rand48); }
