// The scatterv registry table: the scatter algorithms run on explicit block layouts.
#include "collectives/scatter/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace internal {
std::vector<Algorithm> scatter_rows();
}

const std::vector<Algorithm>& tables::scatterv() {
  static const std::vector<Algorithm> t = internal::scatter_rows();
  return t;
}

}  // namespace vmc
