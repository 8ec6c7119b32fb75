// exscan linear: a chain in rank order; node r receives the exclusive prefix of ranks
// 0..r-1 from r-1 (its result), combines its own vector on the right and passes the
// inclusive prefix to r+1 (001 "Prefix sums", linear array). Node 0 has no result.
//
// Requires: nothing (any p, n; non-commutative ops fine).
// Cost: (p - 1) T(n) + (p - 2) n gamma for p >= 2 (node 0 forwards its vector uncombined,
// the last node needs no inclusive prefix). Exact on every port model (direct routing).
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_exscan_linear(const CostQuery&) { return true; }

Picos cost_exscan_linear(const CostQuery& q) {
  if (q.n == 0 || q.p == 1) return 0;
  return (q.p - 1) * trees::msg(q, q.n) + (q.p - 2) * trees::comb(q, q.n);
}

void run_exscan_linear(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size;
  const int r = c.rank(), p = c.size();
  auto own = contribution(call, n);
  auto excl = scratch(call, n);
  if (r > 0) recv_message(c, excl.data(), n, isz, r - 1, call.tag);
  if (r + 1 < p) {
    if (r > 0) trees::combine(c, *call.op, excl.data(), own.data(), own.data(), n);
    send_message(c, own.data(), n, isz, r + 1, call.tag);
  }
  if (r > 0) deliver(call, excl);
}

namespace {
Claim claim_linear(const CostQuery& q) { return internal::on_machine(q, Claim::exact, false); }
}  // namespace

Algorithm exscan_linear_row() {
  return {
      .name = "linear",
      .description = "chain in rank order: (p-1)(alpha + n beta) + (p-2) n gamma",
      .requirements = "nothing",
      .applicable = applicable_exscan_linear,
      .cost = cost_exscan_linear,
      .run = run_exscan_linear,
      .claim = claim_linear,
  };
}

}  // namespace vmc::internal
