// The gather and gatherv registry tables: one line per algorithm, in the order `vmc list`
// prints them; each algorithm's file (gather_<name>.cpp) defines its row. Every gather
// algorithm works on an explicit block layout, so gatherv runs the same rows.
#include "collectives/registry/tables.hpp"

#define VMC_GATHER_TABLE(ROW)         \
  ROW(Algorithm, gather_linear_row)   \
  ROW(Algorithm, gather_binomial_row) \
  ROW(Algorithm, gather_mesh_mst_row)

namespace vmc {

VMC_DECLARE_ROWS(VMC_GATHER_TABLE)

const std::vector<Algorithm>& tables::gather() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_GATHER_TABLE);
  return t;
}

const std::vector<Algorithm>& tables::gatherv() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_GATHER_TABLE);
  return t;
}

}  // namespace vmc
