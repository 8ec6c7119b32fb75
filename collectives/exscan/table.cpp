// The exscan registry table.
#include "collectives/exscan/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

const std::vector<Algorithm>& tables::exscan() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"linear", "chain in rank order: (p-1)(alpha + n beta) + (p-2) n gamma", "nothing",
       applicable_exscan_linear, cost_exscan_linear, run_exscan_linear},
      {"hypercube", "hypercube exclusive prefix (001 prefix sums): log p exchanges",
       "p a power of two", applicable_exscan_hypercube, cost_exscan_hypercube,
       run_exscan_hypercube},
      {"recursive_doubling",
       "hypercube exclusive prefix for any p, non-powers of two folded pairwise (001)",
       "nothing", applicable_exscan_recursive_doubling, cost_exscan_recursive_doubling,
       run_exscan_recursive_doubling},
  };
  return t;
}

}  // namespace vmc
