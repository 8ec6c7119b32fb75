// barrier tree: an empty binomial reduction to rank 0 (the reduce binomial piece without
// data, non-powers of two folded pairwise) followed by an empty binomial broadcast from
// rank 0 (003 §4.1 Alg. 4.3 then 4.1, used as a fan-in/fan-out barrier).
//
// Requires: nothing (any p).
// Cost: 2 ceil(log2 p) alpha (each half is ceil(log2 p) rounds of empty messages). Exact on
// every port model with direct routing.
#include "collectives/barrier/algorithms.hpp"
#include "collectives/internal/trees.hpp"
#include "collectives/reduce/algorithms.hpp"

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

}  // namespace vmc::internal
