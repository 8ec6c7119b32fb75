// The scatter registry table.
#include "collectives/scatter/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace internal {
bool scatter_always(const CostQuery&) { return true; }
std::vector<Algorithm> scatter_rows() {
  return {
      {"linear", "the root sends every rank its block directly", "nothing", scatter_always,
       cost_scatter_linear, run_scatter_linear},
      {"binomial", "binomial tree: half the blocks, then a quarter, ... (001 Scatter)", "nothing",
       scatter_always, cost_scatter_binomial, run_scatter_binomial},
  };
}
}  // namespace internal

const std::vector<Algorithm>& tables::scatter() {
  static const std::vector<Algorithm> t = internal::scatter_rows();
  return t;
}

}  // namespace vmc
