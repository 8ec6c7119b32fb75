// exscan hypercube: 001 "Prefix sums" on a d-cube, keeping the exclusive prefix
// (trees::prefix_pow2): a value from the lower half of each exchange is folded into the
// prefix and the subcube value, one from the upper half into the subcube value only.
// Node 0 has no result (its receive buffer is left unchanged).
//
// Requires: p a power of two. Non-commutative ops fine (rank order).
// Cost: d X(n) + (2d - 1) n gamma, d = log2 p, X(n) = T(n) (2 T(n) under `half`). Exact on
// every port model with direct routing and on a hypercube under wormhole.
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_exscan_hypercube(const CostQuery& q) { return (q.p & (q.p - 1)) == 0; }

Picos cost_exscan_hypercube(const CostQuery& q) {
  if (q.n == 0 || q.p == 1) return 0;
  const trees::Fold f(q.p);
  return f.log2() * trees::exchange(q, q.n, q.n) + (2 * f.log2() - 1) * trees::comb(q, q.n);
}

void run_exscan_hypercube(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size;
  auto own = contribution(call, n);
  auto excl = scratch(call, n), msg = scratch(call, n), tmp = scratch(call, n);
  if (trees::prefix_pow2(c, own.data(), excl.data(), msg.data(), tmp.data(), n, isz, *call.op,
                         trees::Rooted(c.size(), 0), trees::Fold(c.size()), call.tag)) {
    deliver(call, excl);
  }
}

namespace {
Claim claim_hypercube(const CostQuery& q) { return internal::on_machine(q, Claim::exact, true); }
}  // namespace

Algorithm exscan_hypercube_row() {
  return {
      .name = "hypercube",
      .description = "hypercube exclusive prefix (001 prefix sums): log p exchanges",
      .requirements = "p a power of two",
      .applicable = applicable_exscan_hypercube,
      .cost = cost_exscan_hypercube,
      .run = run_exscan_hypercube,
      .claim = claim_hypercube,
  };
}

}  // namespace vmc::internal
