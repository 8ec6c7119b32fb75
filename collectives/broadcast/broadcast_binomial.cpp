// broadcast binomial: recursive doubling on a binomial (minimum spanning) tree of virtual
// ranks, the root is virtual rank 0; each node receives once from its parent and then sends
// to its children, largest subtree first (003 §4.1 Alg. 4.1/4.2, 001 "One-to-all broadcast"
// on the hypercube). Virtual ranks are rank XOR root for p a power of two (Alg. 4.2: every
// edge is a hypercube link) and (rank - root) mod p otherwise (001: edges to partners >= p
// are dropped).
//
// Requires: nothing (any p, any root, any n).
// Cost: ceil(log2 p)(alpha + n beta), 003 eq. (4.1) — exact on every port model with direct
// routing, and on a hypercube under wormhole routing for p a power of two.
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_broadcast_binomial(const CostQuery&) { return true; }

Picos cost_broadcast_binomial(const CostQuery& q) {
  if (q.n == 0) return 0;
  return trees::bcast_binomial_cost(q, q.p, q.n);
}

void run_broadcast_binomial(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  trees::bcast_binomial(c, call.recv, call.n, call.item_size, trees::Rooted(c.size(), call.root),
                        call.tag);
}

Algorithm broadcast_binomial_row() {
  return {
      .name = "binomial",
      .description = "binomial tree on virtual ranks (003 Alg. 4.1/4.2): ceil(log p)(alpha + n "
                     "beta)",
      .requirements = "nothing",
      .applicable = applicable_broadcast_binomial,
      .cost = cost_broadcast_binomial,
      .run = run_broadcast_binomial,
      .claim = binomial_tree_claim,
  };
}

}  // namespace vmc::internal
