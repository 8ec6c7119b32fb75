// The scan registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (scan_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm scan_linear_row();
Algorithm scan_hypercube_row();
Algorithm scan_recursive_doubling_row();
}  // namespace internal

const std::vector<Algorithm>& tables::scan() {
  using namespace internal;
  static const std::vector<Algorithm> t = joined({
      {scan_linear_row()},
      {scan_hypercube_row()},
      {scan_recursive_doubling_row()},
  });
  return t;
}

}  // namespace vmc
