// scan linear: a chain in rank order; node r receives the prefix of ranks 0..r-1 from r-1,
// combines its own vector on the right and passes the new prefix to r+1 (001 "Prefix sums",
// the ring/linear-array algorithm).
//
// Requires: nothing (any p, n; non-commutative ops fine).
// Cost: (p - 1)(T(n) + n gamma), exact on every port model (direct routing; wormhole on a
// ring or array).
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_scan_linear(const CostQuery&) { return true; }

Picos cost_scan_linear(const CostQuery& q) {
  if (q.n == 0) return 0;
  return (q.p - 1) * (trees::msg(q, q.n) + trees::comb(q, q.n));
}

void run_scan_linear(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size;
  const int r = c.rank(), p = c.size();
  auto acc = contribution(call, n);
  if (r > 0) {
    auto tmp = scratch(call, n);
    recv_message(c, tmp.data(), n, isz, r - 1, call.tag);
    trees::combine(c, *call.op, tmp.data(), acc.data(), acc.data(), n);
  }
  if (r + 1 < p) send_message(c, acc.data(), n, isz, r + 1, call.tag);
  deliver(call, acc);
}

namespace {
Claim claim_linear(const CostQuery& q) { return internal::on_machine(q, Claim::exact, false); }
}  // namespace

Algorithm scan_linear_row() {
  return {
      .name = "linear",
      .description = "chain in rank order: (p-1)(alpha + n beta + n gamma)",
      .requirements = "nothing",
      .applicable = applicable_scan_linear,
      .cost = cost_scan_linear,
      .run = run_scan_linear,
      .claim = claim_linear,
  };
}

}  // namespace vmc::internal
