// The gatherv registry table: the gather algorithms run on explicit block layouts.
#include "collectives/gather/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace internal {
std::vector<Algorithm> gather_rows();
}

const std::vector<Algorithm>& tables::gatherv() {
  static const std::vector<Algorithm> t = internal::gather_rows();
  return t;
}

}  // namespace vmc
