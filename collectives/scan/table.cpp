// The scan registry table.
#include "collectives/scan/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

const std::vector<Algorithm>& tables::scan() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"linear", "chain in rank order: (p-1)(alpha + n beta + n gamma)", "nothing",
       applicable_scan_linear, cost_scan_linear, run_scan_linear},
      {"hypercube", "hypercube prefix (001 prefix sums): log p exchanges", "p a power of two",
       applicable_scan_hypercube, cost_scan_hypercube, run_scan_hypercube},
      {"recursive_doubling",
       "hypercube prefix for any p, non-powers of two folded pairwise (001)", "nothing",
       applicable_scan_recursive_doubling, cost_scan_recursive_doubling,
       run_scan_recursive_doubling},
  };
  return t;
}

}  // namespace vmc
