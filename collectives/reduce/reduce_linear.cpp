// reduce linear: every node sends its vector to the root, which combines them in rank order
// x0 op x1 op ... op x(p-1) as they arrive (001 "All-to-one reduction", naive approach).
//
// Requires: nothing (any p, root, n; non-commutative ops fine).
// Cost: the root's timeline. The senders start at once and their messages reach the root
// one at a time in rank order (the j-th at j T, T = alpha + n beta), or all at T under the
// `all` port model; the root combines n items (n gamma) after each contribution but the
// first:  t = 0; for r = 0..p-1: if r != root: t = max(t, arrival(r)); if r > 0: t += n gamma.
// Roughly max((p-1) T + n gamma, T + (p-1) n gamma). Exact on every port model (direct).
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_reduce_linear(const CostQuery&) { return true; }

Picos cost_reduce_linear(const CostQuery& q) {
  if (q.n == 0) return 0;
  const Picos t1 = trees::msg(q, q.n);
  Picos t = 0;
  int j = 0;
  for (int r = 0; r < q.p; ++r) {
    if (r != q.root) {
      ++j;
      t = std::max(t, q.model.port == Port::all ? t1 : j * t1);
    }
    if (r > 0) t += trees::comb(q, q.n);
  }
  return t;
}

void run_reduce_linear(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size;
  auto own = contribution(call, n);
  if (c.rank() != call.root) {
    send_message(c, own.data(), n, isz, call.root, call.tag);
    return;
  }
  auto acc = scratch(call, n), tmp = scratch(call, n);
  for (int r = 0; r < c.size(); ++r) {
    const char* x = own.data();
    if (r != call.root) {
      recv_message(c, tmp.data(), n, isz, r, call.tag);
      x = tmp.data();
    }
    if (r == 0) copy_data(acc.data(), x, n * isz);
    else trees::combine(c, *call.op, acc.data(), x, acc.data(), n);
  }
  deliver(call, acc);
}

namespace {
Claim claim_linear(const CostQuery& q) { return internal::on_machine(q, Claim::exact, false); }
}  // namespace

Algorithm reduce_linear_row() {
  return {
      .name = "linear",
      .description = "every node sends to the root, which combines in rank order",
      .requirements = "nothing",
      .applicable = applicable_reduce_linear,
      .cost = cost_reduce_linear,
      .run = run_reduce_linear,
      .claim = claim_linear,
  };
}

}  // namespace vmc::internal
