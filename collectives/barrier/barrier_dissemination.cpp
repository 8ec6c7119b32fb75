// barrier dissemination: in round k = 0, 1, ... every node sends an empty message to
// (r + 2^k) mod p and waits for one from (r - 2^k) mod p; after ceil(log2 p) rounds every
// node has heard, directly or not, from every other (the dissemination barrier; the
// pattern of 004's recursive doubling collect without data).
//
// Requires: nothing (any p).
// Cost: ceil(log2 p) S, S = alpha (duplex, all; and p = 2 on every port model, where both
// partners are one node); under exchange and half a node cannot send to one node while it
// receives from another and S = 2 alpha is the serialised estimate.
#include "collectives/barrier/algorithms.hpp"
#include "collectives/internal/trees.hpp"
#include "collectives/patterns/binomial.hpp"

namespace vmc::internal {

bool applicable_barrier_dissemination(const CostQuery&) { return true; }

Picos cost_barrier_dissemination(const CostQuery& q) {
  return patterns::ceil_log2(q.p) * trees::ring_step(q, 0, 0);
}

void run_barrier_dissemination(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size(), r = c.rank();
  char none = 0;
  for (int k = 1; k < p; k <<= 1) {
    sendrecv_message(c, &none, 0, (r + k) % p, &none, 0, (r - k + p) % p, 1, call.tag);
  }
}

}  // namespace vmc::internal
