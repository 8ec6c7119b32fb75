// The scatter registry table.
#include "collectives/scatter/algorithms.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace internal {
bool scatter_always(const CostQuery&) { return true; }
// Claims of the formulas (collectives/internal/claims.hpp): exact for any counts; the
// binomial tree on virtual ranks is a cube pattern when the root is 0.
namespace {
Claim claim_linear(const CostQuery& q) { return on_machine(q, Claim::exact, false); }
Claim claim_binomial(const CostQuery& q) { return on_machine(q, Claim::exact, q.root == 0); }
}  // namespace

std::vector<Algorithm> scatter_rows() {
  return {
      {"linear", "the root sends every rank its block directly", "nothing", scatter_always,
       cost_scatter_linear, run_scatter_linear, nullptr, claim_linear},
      {"binomial", "binomial tree: half the blocks, then a quarter, ... (001 Scatter)", "nothing",
       scatter_always, cost_scatter_binomial, run_scatter_binomial, nullptr, claim_binomial},
      {"mesh_mst",
       "004 §5.1's MST of the group's mesh; halves, or 004 §7's data-distribution cuts "
       "when the halves' data differ by alpha/beta items or more",
       "nothing", scatter_always, cost_scatter_mesh_mst, run_scatter_mesh_mst, nullptr,
       claim_scatter_mesh_mst},
  };
}
}  // namespace internal

const std::vector<Algorithm>& tables::scatter() {
  static const std::vector<Algorithm> t = internal::scatter_rows();
  return t;
}

}  // namespace vmc
