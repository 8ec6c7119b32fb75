// The barrier registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (barrier_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

#define VMC_BARRIER_TABLE(ROW)              \
  ROW(Algorithm, barrier_dissemination_row) \
  ROW(Algorithm, barrier_tree_row)

namespace vmc {

VMC_DECLARE_ROWS(VMC_BARRIER_TABLE)

const std::vector<Algorithm>& tables::barrier() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_BARRIER_TABLE);
  return t;
}

}  // namespace vmc
