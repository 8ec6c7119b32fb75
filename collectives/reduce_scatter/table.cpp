// The reduce_scatter registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (reduce_scatter_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm reduce_scatter_ring_row();
Algorithm reduce_scatter_recursive_halving_row();
Algorithm reduce_scatter_pairwise_row();
Algorithm reduce_scatter_mesh_dr_row();
Algorithm reduce_scatter_mesh_pfr_row();
std::vector<Algorithm> reduce_scatter_mesh_pfr_dr_rows();
}  // namespace internal

const std::vector<Algorithm>& tables::reduce_scatter() {
  using namespace internal;
  static const std::vector<Algorithm> t = joined({
      {reduce_scatter_ring_row()},
      {reduce_scatter_recursive_halving_row()},
      {reduce_scatter_pairwise_row()},
      {reduce_scatter_mesh_dr_row()},
      {reduce_scatter_mesh_pfr_row()},
      reduce_scatter_mesh_pfr_dr_rows(),
  });
  return t;
}

}  // namespace vmc
