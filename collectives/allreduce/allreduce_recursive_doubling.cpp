// allreduce recursive_doubling: in step k every node exchanges its whole partial vector with
// the node whose rank differs in bit k and combines (000 §3.2 Version 2, "bidirectional
// exchange"; 002 cube all-reduce). A non-power-of-two p first folds its top 2(p - p') ranks
// pairwise into the largest power of two p' and sends the result back to them at the end.
//
// Order: the lower rank's partial is the left operand and every partial covers contiguous
// ranks, so non-commutative ops give x0 op ... op x(p-1); both partners compute the same
// expression, so the result is bitwise identical on every node.
//
// Requires: nothing.
// Cost: F + log2(p')(X(n) + n gamma) + U, X(n) = T(n) (2 T(n) under `half`),
// F = T(n) + n gamma and U = T(n) when p is not a power of two (else 0).
// For p = 2^d: d(alpha + n beta + n gamma), 000 Version 2. Exact under exchange, duplex and
// all with direct routing, on a hypercube under wormhole (p = 2^d), and under half for p = 2^d.
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_allreduce_recursive_doubling(const CostQuery&) { return true; }

Picos cost_allreduce_recursive_doubling(const CostQuery& q) {
  if (q.n == 0) return 0;
  const trees::Fold f(q.p);
  const Picos fold = f.folded() ? 2 * trees::msg(q, q.n) + trees::comb(q, q.n) : 0;
  return fold + f.log2() * (trees::exchange(q, q.n, q.n) + trees::comb(q, q.n));
}

void run_allreduce_recursive_doubling(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size;
  const trees::Rooted vr(c.size(), 0);
  const trees::Fold f(c.size());
  auto acc = contribution(call, n);
  auto tmp = scratch(call, n);
  trees::fold_in(c, acc.data(), tmp.data(), n, isz, call.op, vr, f, call.tag);
  if (!f.extra(c.rank())) {
    trees::allreduce_doubling_pow2(c, acc.data(), tmp.data(), n, isz, *call.op, vr, f,
                                   call.tag + 1);
  }
  trees::fold_out(c, acc.data(), n, isz, vr, f, call.tag + 2);
  deliver(call, acc);
}

Algorithm allreduce_recursive_doubling_row() {
  return {
      .name = "recursive_doubling",
      .description = "log p exchanges of the whole vector (000 Version 2, 002 cube); non-powers "
                     "of two fold pairwise into p' = 2^floor(log p) and get the result back",
      .requirements = "nothing",
      .applicable = applicable_allreduce_recursive_doubling,
      .cost = cost_allreduce_recursive_doubling,
      .run = run_allreduce_recursive_doubling,
      .claim = folded_doubling_claim,
  };
}

}  // namespace vmc::internal
