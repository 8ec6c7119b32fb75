// The loader's cost (mpi/program.hpp), printed, not asserted: the time to copy and load one
// rank's program, for the test program and a 1 MB one, the memory a copy takes once loaded
// and once its main has run, and how many copies of an initial-exec TLS program load.
// Run: build/tests/mpi_front/measure_load [ranks, 64 by default]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "mpi/program.hpp"

extern "C" int vmc_hello(int rank) { return 2 * rank + 1; }
extern "C" {
int vmc_shadowed = 0;
}

namespace {

using Clock = std::chrono::steady_clock;

// Resident set size in KB, from /proc/self/statm.
long rss_kb() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

void measure(const char* label, const std::string& path, int ranks) {
  const auto bytes = std::filesystem::file_size(path);
  // Once to warm the file into the page cache, then timed.
  { vmc::mpi::RankPrograms warm(path, 1); }
  const long before = rss_kb();
  const auto t0 = Clock::now();
  auto programs = std::make_unique<vmc::mpi::RankPrograms>(path, ranks);
  const auto t1 = Clock::now();
  const long loaded = rss_kb();
  std::string name = "prog", arg;
  for (int r = 0; r < ranks; ++r) {
    arg = std::to_string(r);
    char* argv[] = {name.data(), arg.data(), nullptr};
    programs->run(r, 2, argv);
  }
  const long ran = rss_kb();
  const double us = std::chrono::duration<double, std::micro>(t1 - t0).count() / ranks;
  std::printf("%-14s %8ju bytes  %d ranks  %8.1f us/rank load  RSS +%ld KB/rank loaded, "
              "+%ld KB/rank after main\n",
              label, static_cast<std::uintmax_t>(bytes), ranks, us, (loaded - before) / ranks,
              (ran - before) / ranks);
  const auto t2 = Clock::now();
  programs.reset();
  const auto t3 = Clock::now();
  std::printf("%-14s unload of %d ranks: %.1f us/rank\n", label, ranks,
              std::chrono::duration<double, std::micro>(t3 - t2).count() / ranks);
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = argc > 1 ? std::atoi(argv[1]) : 64;
  measure("rank_program", RANK_PROGRAM, ranks);
  measure("big_program", BIG_PROGRAM, ranks);
  // Initial-exec TLS: load more and more copies until the static TLS block runs out.
  int loaded = 0;
  for (int n = 1; n <= 4096; n *= 2) {
    try {
      vmc::mpi::RankPrograms programs(INITIAL_EXEC_TLS_PROGRAM, n);
      loaded = n;
    } catch (const std::exception& e) {
      std::printf("initial-exec TLS (128 bytes a copy): %d copies load, %d do not: %s\n",
                  loaded, n, e.what());
      break;
    }
  }
  return 0;
}
