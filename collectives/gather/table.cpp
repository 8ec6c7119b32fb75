// The gather registry table.
#include "collectives/gather/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace internal {
bool gather_always(const CostQuery&) { return true; }
std::vector<Algorithm> gather_rows() {
  return {
      {"linear", "every rank sends its block directly to the root", "nothing", gather_always,
       cost_gather_linear, run_gather_linear},
      {"binomial", "binomial tree: the scatter reversed (001 Gather)", "nothing", gather_always,
       cost_gather_binomial, run_gather_binomial},
  };
}
}  // namespace internal

const std::vector<Algorithm>& tables::gather() {
  static const std::vector<Algorithm> t = internal::gather_rows();
  return t;
}

}  // namespace vmc
