// allgather ring: 001 "All-to-all broadcast", ring algorithm. In step k = 0 .. p-2 rank r
// sends block (r - k) mod p to r+1 and receives block (r - k - 1) mod p from r-1 (one
// sendrecv), so every block travels once around the ring.
//
// Requires: nothing (any p, any counts; empty blocks are not sent).
// Cost, with c = the largest block and T = alpha + c beta (001: (p-1)(ts + tw m)):
//   duplex, all:        (p-1) T        exact for any counts: the slowest chain follows the
//                                      largest block.
//   exchange, p = 2:    T              (one exchange with one partner), exact.
//   half, p = 2:        2 T            (an exchange is two messages), exact for equal blocks.
//   exchange, half:     2 (p-1) T: a node cannot send right while it receives from the left,
//                       so its p-1 sends and p-1 receives pass its port one at a time. Exact
//                       for even p and equal blocks (each step is two rounds); for odd p a
//                       lower bound (the rounds of an odd cycle interleave and drift: about
//                       2 (p-1) T + O(sqrt p) T measured); for unequal blocks an estimate.
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

void allgather_ring(const Comm& comm, void* buf, std::size_t item_size, const Blocks& blocks,
                    Tag tag) {
  const int p = comm.size(), r = comm.rank();
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  for (int k = 0; k + 1 < p; ++k) {
    const int out = (r - k + p) % p, in = (r - k - 1 + p) % p;
    sendrecv_items(comm, at(buf, blocks.displs[out], item_size), blocks.counts[out], right,
                   at(buf, blocks.displs[in], item_size), blocks.counts[in], left, item_size,
                   tag);
  }
}

Picos allgather_ring_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  const int p = q.p;
  std::size_t c = 0;
  for (std::size_t x : counts) c = std::max(c, x);
  if (p == 1 || c == 0) return 0;
  const Picos step = q.units.message(c);
  if (!one_partner_ports(q) || (p == 2 && q.model.port == Port::exchange)) {
    return (p - 1) * step;
  }
  return 2 * (p - 1) * step;
}

void run_allgather_ring(const Call& call) {
  allgather_ring(*call.comm, call.recv, call.item_size, prepare_allgather(call), call.tag);
}
Picos cost_allgather_ring(const CostQuery& q) { return allgather_ring_cost(q, counts_of(q)); }

Algorithm allgather_ring_row() {
  return {
      .name = "ring",
      .description = "ring: p-1 steps, each block travels once around the ring (001)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_allgather_ring,
      .run = run_allgather_ring,
      .claim = ring_claim,
  };
}

}  // namespace vmc::internal
