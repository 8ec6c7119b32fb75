// The barrier registry table.
#include "collectives/barrier/algorithms.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
// Claims of the formulas (collectives/internal/claims.hpp; each algorithm's file explains).
Claim claim_dissemination(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, false);
}
Claim claim_tree(const CostQuery& q) { return internal::on_machine(q, Claim::exact, true); }
}  // namespace

const std::vector<Algorithm>& tables::barrier() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"dissemination", "ceil(log p) rounds of empty messages to r + 2^k", "nothing",
       applicable_barrier_dissemination, cost_barrier_dissemination, run_barrier_dissemination,
       nullptr, claim_dissemination},
      {"tree", "empty binomial reduce to rank 0, then empty binomial broadcast", "nothing",
       applicable_barrier_tree, cost_barrier_tree, run_barrier_tree, nullptr, claim_tree},
  };
  return t;
}

}  // namespace vmc
