// scan recursive_doubling: the hypercube prefix (001 "Prefix sums") for any p. A
// non-power-of-two p first folds its top 2(p - p') ranks pairwise (001's non-power-of-two
// fix, order-preserving): the upper rank of a pair hands its vector to the lower, which runs
// the recursive doubling prefix over the p' survivors with the pair's combined vector, then
// computes its own prefix and the pair's inclusive prefix, which it sends to the upper rank.
//
// Requires: nothing. Non-commutative ops fine (rank order).
// Cost, d = log2 p', X(n) = T(n) (2 T(n) under `half`):
//   p = 2^d:  d (X(n) + 2 n gamma)
//   other p:  F + d X(n) + (2d - 1) n gamma + 2 n gamma + T(n),  F = T(n) + n gamma.
// Exact under exchange, duplex and all with direct routing (hypercube wormhole for p = 2^d).
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_scan_recursive_doubling(const CostQuery&) { return true; }

Picos cost_scan_recursive_doubling(const CostQuery& q) {
  if (q.n == 0 || q.p == 1) return 0;
  const trees::Fold f(q.p);
  const Picos x = trees::exchange(q, q.n, q.n), g = trees::comb(q, q.n), t = trees::msg(q, q.n);
  if (!f.folded()) return f.log2() * (x + 2 * g);
  return (t + g) + f.log2() * x + (2 * f.log2() - 1) * g + 2 * g + t;
}

void run_scan_recursive_doubling(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size;
  const trees::Rooted vr(c.size(), 0);
  const trees::Fold f(c.size());
  const int v = c.rank();
  auto own = contribution(call, n);
  auto y = own;
  auto excl = scratch(call, n), msg = scratch(call, n), tmp = scratch(call, n);
  trees::fold_in(c, y.data(), tmp.data(), n, isz, call.op, vr, f, call.tag);
  if (f.extra(v)) {
    trees::fold_out(c, own.data(), n, isz, vr, f, call.tag + 2);
  } else {
    const bool have = trees::prefix_pow2(c, y.data(), excl.data(), msg.data(), tmp.data(), n,
                                         isz, *call.op, vr, f, call.tag + 1);
    if (have) trees::combine(c, *call.op, excl.data(), own.data(), own.data(), n);
    if (f.folded() && f.in_pair(v)) {  // the pair's inclusive prefix for the upper rank
      if (have) trees::combine(c, *call.op, excl.data(), y.data(), y.data(), n);
      trees::fold_out(c, y.data(), n, isz, vr, f, call.tag + 2);
    }
  }
  deliver(call, own);
}

Algorithm scan_recursive_doubling_row() {
  return {
      .name = "recursive_doubling",
      .description = "hypercube prefix for any p, non-powers of two folded pairwise (001)",
      .requirements = "nothing",
      .applicable = applicable_scan_recursive_doubling,
      .cost = cost_scan_recursive_doubling,
      .run = run_scan_recursive_doubling,
      .claim = folded_doubling_claim,
  };
}

}  // namespace vmc::internal
