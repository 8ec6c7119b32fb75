// broadcast linear: the root sends the whole vector to every other node in turn (virtual
// ranks 1, 2, ..., p-1). The baseline every tree improves on (001 "One-to-all broadcast",
// naive approach).
//
// Requires: nothing (any p, any root, any n; n = 0 moves nothing).
// Cost: (p - 1)(alpha + n beta), exact on every port model with direct routing, and on any
// topology under wormhole routing (the root's sends are blocking, one at a time).
#include "collectives/broadcast/algorithms.hpp"
#include "collectives/internal/trees.hpp"

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

}  // namespace vmc::internal
