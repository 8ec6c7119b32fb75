// The scatter and scatterv registry tables: one line per algorithm, in the order `vmc list`
// prints them; each algorithm's file (scatter_<name>.cpp) defines its row. Every scatter
// algorithm works on an explicit block layout, so scatterv runs the same rows.
#include "collectives/registry/tables.hpp"

#define VMC_SCATTER_TABLE(ROW)         \
  ROW(Algorithm, scatter_linear_row)   \
  ROW(Algorithm, scatter_binomial_row) \
  ROW(Algorithm, scatter_mesh_mst_row)

namespace vmc {

VMC_DECLARE_ROWS(VMC_SCATTER_TABLE)

const std::vector<Algorithm>& tables::scatter() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_SCATTER_TABLE);
  return t;
}

const std::vector<Algorithm>& tables::scatterv() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_SCATTER_TABLE);
  return t;
}

}  // namespace vmc
