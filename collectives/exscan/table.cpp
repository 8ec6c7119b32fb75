// The exscan registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (exscan_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

#define VMC_EXSCAN_TABLE(ROW)                   \
  ROW(Algorithm, exscan_linear_row)             \
  ROW(Algorithm, exscan_hypercube_row)          \
  ROW(Algorithm, exscan_recursive_doubling_row)

namespace vmc {

VMC_DECLARE_ROWS(VMC_EXSCAN_TABLE)

const std::vector<Algorithm>& tables::exscan() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_EXSCAN_TABLE);
  return t;
}

}  // namespace vmc
