// scan hypercube: 001 "Prefix sums" on a d-cube. Every node keeps its prefix and the op of
// its current subcube; in step k it exchanges the subcube value with the neighbour across
// dimension k, and a value from the lower half is folded into both (on the left), a value
// from the upper half only into the subcube value (on the right). Here the prefix is kept
// exclusive and the own vector is combined once at the end (trees::prefix_pow2).
//
// Requires: p a power of two. Non-commutative ops fine (rank order).
// Cost: d (X(n) + 2 n gamma), d = log2 p, X(n) = T(n) (2 T(n) under `half`); 001's
// (ts + tw m) log p plus the combines. Exact on every port model with direct routing and on
// a hypercube under wormhole.
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_scan_hypercube(const CostQuery& q) { return (q.p & (q.p - 1)) == 0; }

Picos cost_scan_hypercube(const CostQuery& q) {
  if (q.n == 0 || q.p == 1) return 0;
  const trees::Fold f(q.p);
  return f.log2() * (trees::exchange(q, q.n, q.n) + 2 * trees::comb(q, q.n));
}

void run_scan_hypercube(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size;
  auto own = contribution(call, n);
  auto excl = scratch(call, n), msg = scratch(call, n), tmp = scratch(call, n);
  const trees::Rooted vr(c.size(), 0);
  const trees::Fold f(c.size());
  if (trees::prefix_pow2(c, own.data(), excl.data(), msg.data(), tmp.data(), n, isz, *call.op, vr,
                         f, call.tag)) {
    trees::combine(c, *call.op, excl.data(), own.data(), own.data(), n);
  }
  deliver(call, own);
}

namespace {
Claim claim_hypercube(const CostQuery& q) { return internal::on_machine(q, Claim::exact, true); }
}  // namespace

Algorithm scan_hypercube_row() {
  return {
      .name = "hypercube",
      .description = "hypercube prefix (001 prefix sums): log p exchanges",
      .requirements = "p a power of two",
      .applicable = applicable_scan_hypercube,
      .cost = cost_scan_hypercube,
      .run = run_scan_hypercube,
      .claim = claim_hypercube,
  };
}

}  // namespace vmc::internal
