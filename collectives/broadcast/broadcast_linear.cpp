// broadcast linear: the root sends the whole vector to every other node in turn (virtual
// ranks 1, 2, ..., p-1). The baseline every tree improves on (001 "One-to-all broadcast",
// naive approach).
//
// Requires: nothing (any p, any root, any n; n = 0 moves nothing).
// Cost: (p - 1)(alpha + n beta), exact on every port model with direct routing, and on any
// topology under wormhole routing (the root's sends are blocking, one at a time).
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_broadcast_linear(const CostQuery&) { return true; }

Picos cost_broadcast_linear(const CostQuery& q) {
  if (q.n == 0) return 0;
  return (q.p - 1) * trees::msg(q, q.n);
}

void run_broadcast_linear(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size();
  if (call.n == 0 || p == 1) return;
  if (c.rank() == call.root) {
    for (int v = 1; v < p; ++v) {
      send_message(c, call.recv, call.n, call.item_size, (call.root + v) % p, call.tag);
    }
  } else {
    recv_message(c, call.recv, call.n, call.item_size, call.root, call.tag);
  }
}

namespace {
Claim claim_broadcast_linear(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, false);
}
}  // namespace

Algorithm broadcast_linear_row() {
  return {
      .name = "linear",
      .description = "the root sends the vector to every node in turn: (p-1)(alpha + n beta)",
      .requirements = "nothing",
      .applicable = applicable_broadcast_linear,
      .cost = cost_broadcast_linear,
      .run = run_broadcast_linear,
      .claim = claim_broadcast_linear,
  };
}

}  // namespace vmc::internal
