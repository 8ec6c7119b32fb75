// getopt per rank (mpi/getopt.h): libc's getopt, getopt_long, getopt_long_only and
// __posix_getopt, run for the rank that calls them.
//
// libc keeps one state for the process: optind, optarg, opterr and optopt, and a hidden one
// (where it is inside an argument of grouped short options, and how far it has permuted the
// operands), which only a call with optind 0 resets. Each rank has its own variables (in its
// copy of the program) and its own scan; every call, under one lock, makes libc's state the
// rank's, calls libc, and gives the rank what libc left:
// - the first call of a scan starts libc afresh: optind 0, which makes libc initialize itself
//   (from the program's optind when that is above 1: libc is initialized on an empty argument
//   list first, then given the program's optind);
// - a later call finds libc's state as its own last call left it when no other scan has used
//   libc since; otherwise it is rebuilt: libc started afresh and the scan's calls made again,
//   quietly (opterr 0, a long option's flag written to a scratch int), with the program's own
//   changes of optind where it made them. libc's getopt is a function of the arguments and
//   those calls, so the rebuilt state is the one the scan left (a scan that changes its
//   optstring or its options between calls is rebuilt with the last ones);
// - the scan ends when libc returns -1, or when the program sets its optind to 0 or 1.
// libc's messages for unknown options and missing arguments go straight to its stderr, not
// through the rank's output (mpi/stdio.cpp). With --privatize none the ranks share one copy
// of the program, hence one optind and one scan, as they share every global.
#include "mpi/getopt.h"

#include <getopt.h>
#include <unistd.h>

#include <mutex>
#include <vector>

// getopt as <unistd.h> declares it in strict POSIX mode (glibc's name for it).
extern "C" int __posix_getopt(int argc, char* const argv[], const char* optstring);

namespace {

std::mutex g_mutex;
// The scan whose state libc holds (its last call was libc's last), or null.
const vmc_getopt_scan* g_owner = nullptr;

int call_libc(vmc_getopt_call call, int argc, char* const argv[], const char* optstring,
              const option* longopts, int* longindex) {
  switch (call) {
    case VMC_GETOPT_POSIX: return __posix_getopt(argc, argv, optstring);
    case VMC_GETOPT_LONG: return getopt_long(argc, argv, optstring, longopts, longindex);
    case VMC_GETOPT_LONG_ONLY:
      return getopt_long_only(argc, argv, optstring, longopts, longindex);
    case VMC_GETOPT: break;
  }
  return getopt(argc, argv, optstring);
}

// The long options with every flag pointing at a scratch int, so that calls made again do
// not write the program's variables.
std::vector<option> quiet_options(const option* longopts, int* scratch) {
  std::vector<option> quiet;
  if (longopts == nullptr) return quiet;
  for (const option* o = longopts; o->name != nullptr; ++o) {  // libc's end of the list
    quiet.push_back(*o);
    if (quiet.back().flag != nullptr) quiet.back().flag = scratch;
  }
  quiet.push_back(option{nullptr, 0, nullptr, 0});
  return quiet;
}

// Makes libc's state the one scan `s` left after its s.calls calls (under g_mutex).
void rebuild(const vmc_getopt_scan& s, vmc_getopt_call call, int argc, char* const argv[],
             const char* optstring, const option* longopts) {
  int scratch = 0;
  const std::vector<option> quiet = quiet_options(longopts, &scratch);
  const option* options = longopts != nullptr ? quiet.data() : nullptr;
  const int opterr_before = opterr;
  opterr = 0;
  optind = 0;
  if (s.start > 1 && argc > 0) {
    call_libc(call, 1, argv, optstring, options, nullptr);  // initializes libc, returns -1
    optind = s.start;
  }
  int m = 0;
  for (int i = 0; i < s.calls; ++i) {
    for (; m < s.moves && s.move_call[m] == i; ++m) optind = s.move_to[m];
    call_libc(call, argc, argv, optstring, options, nullptr);
  }
  opterr = opterr_before;
}

}  // namespace

extern "C" int vmc_mpi_getopt(vmc_getopt_call call, vmc_getopt_scan* scan, int argc,
                              char* const argv[], const char* optstring,
                              const option* longopts, int* longindex) {
  std::lock_guard lock(g_mutex);
  vmc_getopt_scan& s = *scan;
  const int wanted = *s.optind;
  const bool reset = s.scanning != 0 && wanted != s.left && (wanted == 0 || wanted == 1);
  if (s.scanning == 0 || reset) {
    s.scanning = 1;
    s.calls = 0;
    s.moves = 0;
    s.start = wanted;
    rebuild(s, call, argc, argv, optstring, longopts);  // a fresh start
  } else {
    if (wanted != s.left && s.moves < VMC_GETOPT_MOVES) {
      s.move_call[s.moves] = s.calls;
      s.move_to[s.moves] = wanted;
      ++s.moves;
    }
    if (g_owner != &s) rebuild(s, call, argc, argv, optstring, longopts);
    optind = wanted;
  }
  opterr = *s.opterr;
  const int c = call_libc(call, argc, argv, optstring, longopts, longindex);
  *s.optind = optind;
  *s.optarg = optarg;
  *s.optopt = optopt;
  s.left = optind;
  ++s.calls;
  g_owner = &s;
  if (c == -1) s.scanning = 0;
  return c;
}
