// The alltoall and alltoallv registry tables: one line per algorithm, in the order `vmc list`
// prints them; each algorithm's file (alltoall_<name>.cpp) defines its row. alltoallv runs
// the algorithms that take explicit layouts.
#include "collectives/registry/tables.hpp"

#define VMC_ALLTOALL_TABLE(ROW)             \
  ROW(Algorithm, alltoall_pairwise_xor_row) \
  ROW(Algorithm, alltoall_ring_row)         \
  ROW(Algorithm, alltoall_hypercube_row)    \
  ROW(Algorithm, alltoall_mesh_dr_row)      \
  ROW(Algorithm, alltoall_mesh_pfr_row)     \
  ROW(Algorithm, alltoall_mesh_direct_row)

#define VMC_ALLTOALLV_TABLE(ROW)             \
  ROW(Algorithm, alltoall_ring_row)          \
  ROW(Algorithm, alltoallv_pairwise_xor_row) \
  ROW(Algorithm, alltoall_mesh_direct_row)

namespace vmc {

VMC_DECLARE_ROWS(VMC_ALLTOALL_TABLE)
VMC_DECLARE_ROWS(VMC_ALLTOALLV_TABLE)

const std::vector<Algorithm>& tables::alltoall() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_ALLTOALL_TABLE);
  return t;
}

const std::vector<Algorithm>& tables::alltoallv() {
  static const std::vector<Algorithm> t = VMC_JOIN_ROWS(VMC_ALLTOALLV_TABLE);
  return t;
}

}  // namespace vmc
