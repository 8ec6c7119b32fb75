// The broadcast registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (broadcast_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

#define VMC_BROADCAST_TABLE(ROW)                          \
  ROW(Algorithm, broadcast_linear_row)                    \
  ROW(Algorithm, broadcast_binomial_row)                  \
  ROW(Algorithm, broadcast_scatter_allgather_row)         \
  ROW(Algorithm, broadcast_pipelined_chain_row)           \
  ROW(Algorithm, broadcast_mesh_mst_row)                  \
  ROW(Algorithm, broadcast_mesh_sc_row)                   \
  ROW(Algorithm, broadcast_mesh_dopl_row)                 \
  ROW(Algorithm, broadcast_allport_binomial_row)          \
  ROW(Algorithm, broadcast_allport_edst_row)              \
  ROW(std::vector<Algorithm>, broadcast_mesh_mst_sc_rows)

namespace vmc {

VMC_DECLARE_ROWS(VMC_BROADCAST_TABLE)

const std::vector<Algorithm>& tables::broadcast() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_BROADCAST_TABLE);
  return t;
}

}  // namespace vmc
