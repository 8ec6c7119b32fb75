// The reduce registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (reduce_<name>.cpp) defines its row.
// 000's hybrid global combine rows are defined in collectives/global_combine/.
#include "collectives/global_combine/hybrid_combine.hpp"
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm reduce_linear_row();
Algorithm reduce_binomial_row();
Algorithm reduce_reduce_scatter_gather_row();
Algorithm reduce_mesh_mst_row();
Algorithm reduce_mesh_dg_row();
Algorithm reduce_mesh_dopl_row();
Algorithm reduce_allport_binomial_row();
std::vector<Algorithm> reduce_mesh_mst_dg_rows();
}  // namespace internal

const std::vector<Algorithm>& tables::reduce() {
  using namespace internal;
  static const std::vector<Algorithm> t = joined({
      {reduce_linear_row()},
      {reduce_binomial_row()},
      {reduce_reduce_scatter_gather_row()},
      {reduce_mesh_mst_row()},
      {reduce_mesh_dg_row()},
      {reduce_mesh_dopl_row()},
      {reduce_allport_binomial_row()},
      global_combine::reduce_rows(),
      reduce_mesh_mst_dg_rows(),
  });
  return t;
}

}  // namespace vmc
