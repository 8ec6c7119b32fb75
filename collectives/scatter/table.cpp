// The scatter and scatterv registry tables: one line per algorithm, in the order `vmc list`
// prints them; each algorithm's file (scatter_<name>.cpp) defines its row. Every scatter
// algorithm works on an explicit block layout, so scatterv runs the same rows.
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm scatter_linear_row();
Algorithm scatter_binomial_row();
Algorithm scatter_mesh_mst_row();
}  // namespace internal

namespace {
// One table for both forms.
std::vector<Algorithm> rows() {
  using namespace internal;
  return tables::joined({
      {scatter_linear_row()},
      {scatter_binomial_row()},
      {scatter_mesh_mst_row()},
  });
}
}  // namespace

const std::vector<Algorithm>& tables::scatter() {
  static const std::vector<Algorithm> t = rows();
  return t;
}

const std::vector<Algorithm>& tables::scatterv() {
  static const std::vector<Algorithm> t = rows();
  return t;
}

}  // namespace vmc
