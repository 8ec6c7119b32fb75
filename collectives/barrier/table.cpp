// The barrier registry table: one line per algorithm, in the order `vmc list` prints them;
// each algorithm's file (barrier_<name>.cpp) defines its row.
#include "collectives/registry/tables.hpp"

namespace vmc {

namespace internal {
Algorithm barrier_dissemination_row();
Algorithm barrier_tree_row();
}  // namespace internal

const std::vector<Algorithm>& tables::barrier() {
  using namespace internal;
  static const std::vector<Algorithm> t = joined({
      {barrier_dissemination_row()},
      {barrier_tree_row()},
  });
  return t;
}

}  // namespace vmc
