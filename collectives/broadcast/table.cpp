// The broadcast registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (broadcast_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm broadcast_linear_row();
Algorithm broadcast_binomial_row();
Algorithm broadcast_scatter_allgather_row();
Algorithm broadcast_pipelined_chain_row();
Algorithm broadcast_mesh_mst_row();
Algorithm broadcast_mesh_sc_row();
Algorithm broadcast_mesh_dopl_row();
Algorithm broadcast_allport_binomial_row();
Algorithm broadcast_allport_edst_row();
std::vector<Algorithm> broadcast_mesh_mst_sc_rows();
}  // namespace internal

const std::vector<Algorithm>& tables::broadcast() {
  using namespace internal;
  static const std::vector<Algorithm> t = joined({
      {broadcast_linear_row()},
      {broadcast_binomial_row()},
      {broadcast_scatter_allgather_row()},
      {broadcast_pipelined_chain_row()},
      {broadcast_mesh_mst_row()},
      {broadcast_mesh_sc_row()},
      {broadcast_mesh_dopl_row()},
      {broadcast_allport_binomial_row()},
      {broadcast_allport_edst_row()},
      broadcast_mesh_mst_sc_rows(),
  });
  return t;
}

}  // namespace vmc
