// The reduce_scatter registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (reduce_scatter_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

#define VMC_REDUCE_SCATTER_TABLE(ROW)                          \
  ROW(Algorithm, reduce_scatter_ring_row)                      \
  ROW(Algorithm, reduce_scatter_recursive_halving_row)         \
  ROW(Algorithm, reduce_scatter_pairwise_row)                  \
  ROW(Algorithm, reduce_scatter_mesh_dr_row)                   \
  ROW(Algorithm, reduce_scatter_mesh_pfr_row)                  \
  ROW(Algorithm, reduce_scatter_mesh_pfr_alt_row)              \
  ROW(std::vector<Algorithm>, reduce_scatter_mesh_pfr_dr_rows) \
  ROW(std::vector<Algorithm>, reduce_scatter_mesh_pfr_dr_alt_rows)

namespace vmc {

VMC_DECLARE_ROWS(VMC_REDUCE_SCATTER_TABLE)

const std::vector<Algorithm>& tables::reduce_scatter() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_REDUCE_SCATTER_TABLE);
  return t;
}

}  // namespace vmc
