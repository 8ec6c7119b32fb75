// The scan registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (scan_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

#define VMC_SCAN_TABLE(ROW)                   \
  ROW(Algorithm, scan_linear_row)             \
  ROW(Algorithm, scan_hypercube_row)          \
  ROW(Algorithm, scan_recursive_doubling_row)

namespace vmc {

VMC_DECLARE_ROWS(VMC_SCAN_TABLE)

const std::vector<Algorithm>& tables::scan() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_SCAN_TABLE);
  return t;
}

}  // namespace vmc
