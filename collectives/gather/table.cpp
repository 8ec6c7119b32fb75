// The gather and gatherv registry tables: one line per algorithm, in the order `vmc list`
// prints them; each algorithm's file (gather_<name>.cpp) defines its row. Every gather
// algorithm works on an explicit block layout, so gatherv runs the same rows.
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm gather_linear_row();
Algorithm gather_binomial_row();
Algorithm gather_mesh_mst_row();
}  // namespace internal

namespace {
// One table for both forms.
std::vector<Algorithm> rows() {
  using namespace internal;
  return tables::joined({
      {gather_linear_row()},
      {gather_binomial_row()},
      {gather_mesh_mst_row()},
  });
}
}  // namespace

const std::vector<Algorithm>& tables::gather() {
  static const std::vector<Algorithm> t = rows();
  return t;
}

const std::vector<Algorithm>& tables::gatherv() {
  static const std::vector<Algorithm> t = rows();
  return t;
}

}  // namespace vmc
