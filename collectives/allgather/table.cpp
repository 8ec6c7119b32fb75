// The allgather and allgatherv registry tables. Every allgather algorithm works on an
// explicit block layout, so allgatherv runs the same four.
#include "collectives/allgather/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
bool always(const CostQuery&) { return true; }

std::vector<Algorithm> rows() {
  using namespace internal;
  return {
      {"ring", "ring: p-1 steps, each block travels once around the ring (001)", "nothing",
       always, cost_allgather_ring, run_allgather_ring},
      {"recursive_doubling",
       "recursive doubling: log p exchanges of doubling ranges (001 hypercube); "
       "non-powers of two fold the extra ranks in and out",
       "nothing", always, cost_allgather_recursive_doubling, run_allgather_recursive_doubling},
      {"gather_broadcast", "binomial gather to rank 0, then binomial broadcast (004 MST collect)",
       "nothing", always, cost_allgather_gather_broadcast, run_allgather_gather_broadcast},
      {"bruck", "Bruck dissemination: ceil(log p) shifted steps for any p", "nothing", always,
       cost_allgather_bruck, run_allgather_bruck},
  };
}
}  // namespace

const std::vector<Algorithm>& tables::allgather() {
  static const std::vector<Algorithm> t = rows();
  return t;
}
const std::vector<Algorithm>& tables::allgatherv() {
  static const std::vector<Algorithm> t = rows();
  return t;
}

}  // namespace vmc
