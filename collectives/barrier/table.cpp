// The barrier registry table.
#include "collectives/barrier/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

const std::vector<Algorithm>& tables::barrier() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"dissemination", "ceil(log p) rounds of empty messages to r + 2^k", "nothing",
       applicable_barrier_dissemination, cost_barrier_dissemination, run_barrier_dissemination},
      {"tree", "empty binomial reduce to rank 0, then empty binomial broadcast", "nothing",
       applicable_barrier_tree, cost_barrier_tree, run_barrier_tree},
  };
  return t;
}

}  // namespace vmc
