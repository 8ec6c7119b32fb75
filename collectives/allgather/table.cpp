// The allgather and allgatherv registry tables: one line per algorithm, in the order `vmc
// list` prints them; each algorithm's file (allgather_<name>.cpp) defines its row. Every
// allgather algorithm works on an explicit block layout, so allgatherv runs the same rows.
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm allgather_ring_row();
Algorithm allgather_recursive_doubling_row();
Algorithm allgather_gather_broadcast_row();
Algorithm allgather_bruck_row();
Algorithm allgather_mesh_dr_row();
Algorithm allgather_mesh_pfr_row();
Algorithm allgather_allport_doubling_row();
Algorithm allgather_mesh_mst_row();
std::vector<Algorithm> allgather_mesh_pfr_dr_rows();
}  // namespace internal

namespace {
// One table for both forms.
std::vector<Algorithm> rows() {
  using namespace internal;
  return tables::joined({
      {allgather_ring_row()},
      {allgather_recursive_doubling_row()},
      {allgather_gather_broadcast_row()},
      {allgather_bruck_row()},
      {allgather_mesh_dr_row()},
      {allgather_mesh_pfr_row()},
      {allgather_allport_doubling_row()},
      {allgather_mesh_mst_row()},
      allgather_mesh_pfr_dr_rows(),
  });
}
}  // namespace

const std::vector<Algorithm>& tables::allgather() {
  static const std::vector<Algorithm> t = rows();
  return t;
}

const std::vector<Algorithm>& tables::allgatherv() {
  static const std::vector<Algorithm> t = rows();
  return t;
}

}  // namespace vmc
