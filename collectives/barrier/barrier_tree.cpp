// barrier tree: an empty binomial reduction to rank 0 (the reduce binomial piece without
// data, non-powers of two folded pairwise) followed by an empty binomial broadcast from
// rank 0 (003 §4.1 Alg. 4.3 then 4.1, used as a fan-in/fan-out barrier).
//
// Requires: nothing (any p).
// Cost: 2 ceil(log2 p) alpha (each half is ceil(log2 p) rounds of empty messages). Exact on
// every port model with direct routing.
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/reduce/reduce_internal.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_barrier_tree(const CostQuery&) { return true; }

Picos cost_barrier_tree(const CostQuery& q) {
  return reduce_binomial_to_cost(q, q.p, 0) + trees::bcast_binomial_cost(q, q.p, 0);
}

void run_barrier_tree(const Call& call) {
  const Comm& c = *call.comm;
  const trees::Rooted vr(c.size(), 0);
  char none = 0;
  reduce_binomial_to(c, &none, 0, 1, nullptr, vr, call.tag);
  trees::bcast_binomial(c, &none, 0, 1, vr, call.tag + 2);
}

namespace {
Claim claim_tree(const CostQuery& q) { return internal::on_machine(q, Claim::exact, true); }
}  // namespace

Algorithm barrier_tree_row() {
  return {
      .name = "tree",
      .description = "empty binomial reduce to rank 0, then empty binomial broadcast",
      .requirements = "nothing",
      .applicable = applicable_barrier_tree,
      .cost = cost_barrier_tree,
      .run = run_barrier_tree,
      .claim = claim_tree,
  };
}

}  // namespace vmc::internal
