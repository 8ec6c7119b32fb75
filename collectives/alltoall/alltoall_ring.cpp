// alltoall ring: a shifted ring for any p. In step k = 1 .. p-1 rank r sends its block for
// rank (r + k) mod p there and receives the block of rank (r - k) mod p, in one sendrecv;
// every pair exchanges directly, so the volume is optimal (001 "All-to-all personalized":
// lower bound t_w m (p-1)).
//
// Requires: nothing. Cost with blocks of n items (q.n; for alltoallv the largest of the
// caller's counts, an estimate since a rank does not see the others' counts):
//   duplex, all:     (p-1) (alpha + n beta)                     exact for equal blocks
//   exchange, half:  a step is one round when its shift is its own inverse (2k = p) and
//                    is charged two rounds otherwise: (2(p-1) - [p even]) (alpha + n beta),
//                    exact for p = 2, an estimate otherwise (shifts of odd cycles take
//                    three rounds, and rounds of successive steps interleave).
#include <algorithm>

#include "collectives/alltoall/alltoall_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

void alltoall_ring(const Comm& comm, const void* send, const Blocks& sb, void* recv,
                   const Blocks& rb, std::size_t item_size, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  copy_items(at(recv, rb.displs[r], item_size), at(send, sb.displs[r], item_size),
             std::min(sb.counts[r], rb.counts[r]), item_size);
  for (int k = 1; k < p; ++k) {
    const int dst = (r + k) % p, src = (r - k + p) % p;
    sendrecv_items(comm, at(send, sb.displs[dst], item_size), sb.counts[dst], dst,
                   at(recv, rb.displs[src], item_size), rb.counts[src], src, item_size, tag);
  }
}

Picos alltoall_ring_cost(const CostQuery& q) {
  const int p = q.p;
  std::size_t n = q.n;
  for (std::size_t c : q.counts) n = std::max(n, c);
  const Picos msg = message_time(q, n);
  Picos cost = (p - 1) * msg;
  if (one_partner_ports(q)) cost = 2 * cost - (p % 2 == 0 ? msg : 0);
  return cost;
}

void run_alltoall_ring(const Call& call) {
  alltoall_ring(*call.comm, call.send, alltoall_send_layout(call), call.recv,
                alltoall_recv_layout(call), call.item_size, call.tag);
}
Picos cost_alltoall_ring(const CostQuery& q) { return alltoall_ring_cost(q); }

Algorithm alltoall_ring_row() {
  return {
      .name = "ring",
      .description = "shifted ring: step k sends to rank+k, receives from rank-k",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_alltoall_ring,
      .run = run_alltoall_ring,
      .claim = shift_exchange_claim,
  };
}

}  // namespace vmc::internal
