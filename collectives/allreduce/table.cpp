// The allreduce registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (allreduce_<name>.cpp) defines its row.
// 000's hybrid global combine rows are defined in collectives/global_combine/.
#include "collectives/global_combine/hybrid_combine.hpp"
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm allreduce_reduce_broadcast_row();
Algorithm allreduce_recursive_doubling_row();
Algorithm allreduce_recursive_halving_doubling_row();
Algorithm allreduce_ring_row();
Algorithm allreduce_allport_doubling_row();
Algorithm allreduce_mesh_mst_row();
Algorithm allreduce_mesh_dr_row();
Algorithm allreduce_mesh_pfr_row();
Algorithm allreduce_mesh_pfr_dc_row();
std::vector<Algorithm> allreduce_mesh_pfr_pfr_dc_rows();
}  // namespace internal

const std::vector<Algorithm>& tables::allreduce() {
  using namespace internal;
  static const std::vector<Algorithm> t = joined({
      {allreduce_reduce_broadcast_row()},
      {allreduce_recursive_doubling_row()},
      {allreduce_recursive_halving_doubling_row()},
      {allreduce_ring_row()},
      {allreduce_allport_doubling_row()},
      {allreduce_mesh_mst_row()},
      global_combine::allreduce_rows(),
      {allreduce_mesh_dr_row()},
      {allreduce_mesh_pfr_row()},
      {allreduce_mesh_pfr_dc_row()},
      allreduce_mesh_pfr_pfr_dc_rows(),
  });
  return t;
}

}  // namespace vmc
