// The alltoall and alltoallv registry tables: one line per algorithm, in the order `vmc list`
// prints them; each algorithm's file (alltoall_<name>.cpp) defines its row. alltoallv runs
// the algorithms that take explicit layouts.
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm alltoall_pairwise_xor_row(Operation op);
Algorithm alltoall_ring_row();
Algorithm alltoall_hypercube_row();
Algorithm alltoall_mesh_dr_row();
Algorithm alltoall_mesh_pfr_row();
Algorithm alltoall_mesh_direct_row();
}  // namespace internal

const std::vector<Algorithm>& tables::alltoall() {
  using namespace internal;
  static const std::vector<Algorithm> t = joined({
      {alltoall_pairwise_xor_row(Operation::alltoall)},
      {alltoall_ring_row()},
      {alltoall_hypercube_row()},
      {alltoall_mesh_dr_row()},
      {alltoall_mesh_pfr_row()},
      {alltoall_mesh_direct_row()},
  });
  return t;
}

const std::vector<Algorithm>& tables::alltoallv() {
  using namespace internal;
  static const std::vector<Algorithm> t = joined({
      {alltoall_ring_row()},
      {alltoall_pairwise_xor_row(Operation::alltoallv)},
      {alltoall_mesh_direct_row()},
  });
  return t;
}

}  // namespace vmc
