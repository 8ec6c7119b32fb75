// allreduce reduce_broadcast: binomial reduce to rank 0, then binomial broadcast from rank 0
// (000 §3.1 Version 1, "combine-to-one followed by broadcast"). Composed of the reduce
// binomial piece (non-powers of two folded pairwise) and the broadcast binomial piece.
//
// Requires: nothing; non-commutative ops are combined in rank order (the tree is rooted at
// rank 0, virtual ranks = comm ranks).
// Cost: R + ceil(log2 p) T(n), R = F + log2(p')(T(n) + n gamma), F = T(n) + n gamma when p
// is not a power of two; for p = 2^d that is d(2 alpha + 2 n beta + n gamma) (000 eq. for
// Version 1). Exact on every port model with direct routing and on a hypercube (wormhole).
#include "collectives/allreduce/allreduce_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/reduce/reduce_internal.hpp"

namespace vmc::internal {

bool applicable_allreduce_reduce_broadcast(const CostQuery&) { return true; }

Picos cost_allreduce_reduce_broadcast(const CostQuery& q) {
  if (q.n == 0) return 0;
  return reduce_binomial_to_cost(q, q.p, q.n) + trees::bcast_binomial_cost(q, q.p, q.n);
}

void run_allreduce_reduce_broadcast(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const trees::Rooted vr(c.size(), 0);
  auto acc = contribution(call, call.n);
  reduce_binomial_to(c, acc.data(), call.n, call.item_size, call.op, vr, call.tag);
  trees::bcast_binomial(c, acc.data(), call.n, call.item_size, vr, call.tag + 2);
  deliver(call, acc);
}

namespace {
Claim claim_reduce_broadcast(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, true);
}
}  // namespace

Algorithm allreduce_reduce_broadcast_row() {
  return {
      .name = "reduce_broadcast",
      .description = "binomial reduce to rank 0, then binomial broadcast (000 Version 1)",
      .requirements = "nothing",
      .applicable = applicable_allreduce_reduce_broadcast,
      .cost = cost_allreduce_reduce_broadcast,
      .run = run_allreduce_reduce_broadcast,
      .claim = claim_reduce_broadcast,
  };
}

}  // namespace vmc::internal
