// The exscan registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (exscan_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm exscan_linear_row();
Algorithm exscan_hypercube_row();
Algorithm exscan_recursive_doubling_row();
}  // namespace internal

const std::vector<Algorithm>& tables::exscan() {
  using namespace internal;
  static const std::vector<Algorithm> t = joined({
      {exscan_linear_row()},
      {exscan_hypercube_row()},
      {exscan_recursive_doubling_row()},
  });
  return t;
}

}  // namespace vmc
