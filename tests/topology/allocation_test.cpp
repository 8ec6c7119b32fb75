// route() is on the runtime's hot path: apart from growing `out` it must not allocate.
// This file replaces the global operator new of the test program with a counting one.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "topology/topology.hpp"

namespace {
std::atomic<long> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// GCC (under AddressSanitizer) takes the operator new above for the standard one and flags
// the free below as a mismatch: both are this file's, malloc and free.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace vmc {
namespace {

TEST(Allocation, RouteAllocatesNothingBeyondItsOutput) {
  for (const char* spec : {"full:64", "ring:101", "array:50", "mesh:13x7", "torus:16x16",
                           "mesh:4x3x5", "mesh:4x5w", "hypercube:64", "hypercube:100", "tree:100",
                           "tree:7"}) {
    const auto t = parse_topology(spec);
    std::vector<LinkId> out;
    out.reserve(4096);
    const long before = allocations.load();
    for (int a = 0; a < t->nodes(); ++a) {
      for (int b = 0; b < t->nodes(); ++b) {
        out.clear();
        t->route(a, b, out);
      }
    }
    EXPECT_EQ(allocations.load(), before) << spec;
  }
}

}  // namespace
}  // namespace vmc
