// The allreduce registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (allreduce_<name>.cpp) defines its row.
// 000's hybrid global combine rows are defined in collectives/global_combine/.
#include "collectives/registry/tables.hpp"

#define VMC_ALLREDUCE_TABLE(ROW)                              \
  ROW(Algorithm, allreduce_reduce_broadcast_row)              \
  ROW(Algorithm, allreduce_recursive_doubling_row)            \
  ROW(Algorithm, allreduce_recursive_halving_doubling_row)    \
  ROW(Algorithm, allreduce_ring_row)                          \
  ROW(Algorithm, allreduce_allport_doubling_row)              \
  ROW(Algorithm, allreduce_mesh_mst_row)                      \
  ROW(std::vector<Algorithm>, allreduce_global_combine_rows)  \
  ROW(Algorithm, allreduce_mesh_dr_row)                       \
  ROW(Algorithm, allreduce_mesh_pfr_row)                      \
  ROW(Algorithm, allreduce_mesh_pfr_dc_row)                   \
  ROW(Algorithm, allreduce_mesh_pfr_dc_alt_row)               \
  ROW(Algorithm, allreduce_mesh_dopl_row)                     \
  ROW(std::vector<Algorithm>, allreduce_mesh_pfr_pfr_dc_rows)  \
  ROW(std::vector<Algorithm>, allreduce_mesh_pfr_pfr_dc_alt_rows)

namespace vmc {

VMC_DECLARE_ROWS(VMC_ALLREDUCE_TABLE)

const std::vector<Algorithm>& tables::allreduce() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_ALLREDUCE_TABLE);
  return t;
}

}  // namespace vmc
