// The allgather and allgatherv registry tables: one line per algorithm, in the order `vmc
// list` prints them; each algorithm's file (allgather_<name>.cpp) defines its row. Every
// allgather algorithm works on an explicit block layout, so allgatherv runs the same rows.
#include "collectives/registry/tables.hpp"

#define VMC_ALLGATHER_TABLE(ROW)                          \
  ROW(Algorithm, allgather_ring_row)                      \
  ROW(Algorithm, allgather_recursive_doubling_row)        \
  ROW(Algorithm, allgather_gather_broadcast_row)          \
  ROW(Algorithm, allgather_bruck_row)                     \
  ROW(Algorithm, allgather_mesh_dr_row)                   \
  ROW(Algorithm, allgather_mesh_pfr_row)                  \
  ROW(Algorithm, allgather_mesh_pfr_alt_row)              \
  ROW(Algorithm, allgather_allport_doubling_row)          \
  ROW(Algorithm, allgather_mesh_mst_row)                  \
  ROW(std::vector<Algorithm>, allgather_mesh_pfr_dr_rows)     \
  ROW(std::vector<Algorithm>, allgather_mesh_pfr_dr_alt_rows)

namespace vmc {

VMC_DECLARE_ROWS(VMC_ALLGATHER_TABLE)

const std::vector<Algorithm>& tables::allgather() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_ALLGATHER_TABLE);
  return t;
}

const std::vector<Algorithm>& tables::allgatherv() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_ALLGATHER_TABLE);
  return t;
}

}  // namespace vmc
