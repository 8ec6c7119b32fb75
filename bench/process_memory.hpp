// The benchmarks' look at this process's memory (Linux): a field of /proc/self/status, and a
// reset of the peak resident set size so that a benchmark measures what it adds.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace vmc::bench {

// A line "Key:   N kB" of /proc/self/status, in KiB (0 if absent).
inline long status_kib(const char* key) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  long kib = 0;
  const std::size_t len = std::strlen(key);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, key, len) == 0 && line[len] == ':') {
      kib = std::strtol(line + len + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return kib;
}

// Resets the peak resident set size (VmHWM) to the current one (clear_refs 5).
inline void reset_peak_rss() {
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
}

}  // namespace vmc::bench
