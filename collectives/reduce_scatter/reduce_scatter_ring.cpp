// reduce_scatter ring: 001 "All-to-all reduction": the ring allgather with the order and
// direction of its communications reversed, combining each incoming block with the local
// one. In step k = 0 .. p-2 rank r sends its partial of block (r - k - 1) mod p to r+1 and
// combines the partial of block (r - k - 2) mod p arriving from r-1; block b starts at
// rank b+1 and ends, complete, at rank b.
//
// Requires: a commutative op (each block is combined starting at its owner's right
// neighbour). Cost with c = the largest block, T = alpha + c beta:
//   duplex, all:      (p-1) (T + c gamma)    exact for any counts (the slowest chain
//                                            follows the largest block)
//   exchange, p = 2:  T + c gamma            exact
//   exchange, half:   (p-1)(2 T + c gamma): every node's p-1 sends and p-1 receives pass
//                     its port one at a time, each receive followed by its combine. Exact
//                     for even p and equal blocks, a lower bound for odd p (see
//                     allgather_ring.cpp), an estimate for unequal blocks.
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"

namespace vmc::internal {

void reduce_scatter_ring(const Comm& comm, void* buf, std::size_t item_size, const Blocks& blocks,
                         const Op& op, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  const int right = (r + 1) % p, left = (r - 1 + p) % p;
  Bytes in(blocks.max() * item_size);
  for (int k = 0; k + 1 < p; ++k) {
    const int out = (r - k - 1 + p) % p, got = (r - k - 2 + 2 * p) % p;
    const std::size_t nin = blocks.counts[got];
    sendrecv_items(comm, at(buf, blocks.displs[out], item_size), blocks.counts[out], right,
                   in.data(), nin, left, item_size, tag);
    if (nin > 0) {
      char* mine = at(buf, blocks.displs[got], item_size);
      op.apply(in.data(), mine, mine, nin);
      comm.charge_combine(nin);
    }
  }
}

Picos reduce_scatter_ring_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  const int p = q.p;
  std::size_t c = 0;
  for (std::size_t x : counts) c = std::max(c, x);
  if (p == 1 || c == 0) return 0;
  const Picos msg = q.units.message(c), comb = q.units.combine(c);
  if (!one_partner_ports(q) || (p == 2 && q.model.port == Port::exchange)) {
    return (p - 1) * (msg + comb);
  }
  return (p - 1) * (2 * msg + comb);
}

void run_reduce_scatter_ring(const Call& call) { run_reduce_scatter(call, reduce_scatter_ring); }
Picos cost_reduce_scatter_ring(const CostQuery& q) {
  return reduce_scatter_ring_cost(q, counts_of(q));
}

Algorithm reduce_scatter_ring_row() {
  return {
      .name = "ring",
      .description = "ring: the ring allgather reversed, combining on the way (001)",
      .requirements = "a commutative op",
      .applicable = applies_commutative,
      .cost = cost_reduce_scatter_ring,
      .run = run_reduce_scatter_ring,
      .claim = ring_claim,
  };
}

}  // namespace vmc::internal
