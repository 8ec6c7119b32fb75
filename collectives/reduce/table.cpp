// The reduce registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (reduce_<name>.cpp) defines its row.
// 000's hybrid global combine rows are defined in collectives/global_combine/.
#include "collectives/registry/tables.hpp"

#define VMC_REDUCE_TABLE(ROW)                             \
  ROW(Algorithm, reduce_linear_row)                       \
  ROW(Algorithm, reduce_binomial_row)                     \
  ROW(Algorithm, reduce_reduce_scatter_gather_row)        \
  ROW(Algorithm, reduce_mesh_mst_row)                     \
  ROW(Algorithm, reduce_mesh_dg_row)                      \
  ROW(Algorithm, reduce_mesh_dopl_row)                    \
  ROW(Algorithm, reduce_allport_binomial_row)             \
  ROW(std::vector<Algorithm>, reduce_global_combine_rows) \
  ROW(std::vector<Algorithm>, reduce_mesh_mst_dg_rows)

namespace vmc {

VMC_DECLARE_ROWS(VMC_REDUCE_TABLE)

const std::vector<Algorithm>& tables::reduce() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_REDUCE_TABLE);
  return t;
}

}  // namespace vmc
