// The gather registry table.
#include "collectives/gather/algorithms.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace internal {
bool gather_always(const CostQuery&) { return true; }
// Claims of the formulas (collectives/internal/claims.hpp): exact for any counts; the
// binomial tree on virtual ranks is a cube pattern when the root is 0.
namespace {
Claim claim_linear(const CostQuery& q) { return on_machine(q, Claim::exact, false); }
Claim claim_binomial(const CostQuery& q) { return on_machine(q, Claim::exact, q.root == 0); }
}  // namespace

std::vector<Algorithm> gather_rows() {
  return {
      {"linear", "every rank sends its block directly to the root", "nothing", gather_always,
       cost_gather_linear, run_gather_linear, nullptr, claim_linear},
      {"binomial", "binomial tree: the scatter reversed (001 Gather)", "nothing", gather_always,
       cost_gather_binomial, run_gather_binomial, nullptr, claim_binomial},
      {"mesh_mst",
       "004 §5.1's MST of the group's mesh, the scatter reversed; halves, or 004 §7's "
       "data-distribution cuts when the halves' data differ by alpha/beta items or more",
       "nothing", gather_always, cost_gather_mesh_mst, run_gather_mesh_mst, nullptr,
       claim_gather_mesh_mst},
  };
}
}  // namespace internal

const std::vector<Algorithm>& tables::gather() {
  static const std::vector<Algorithm> t = internal::gather_rows();
  return t;
}

}  // namespace vmc
