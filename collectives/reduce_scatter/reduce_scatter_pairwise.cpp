// reduce_scatter pairwise: the direct exchange of 001 "All-to-all personalized" (optimal
// in volume) applied to the reduction: in step k = 1 .. p-1 rank r sends its contribution
// to block (r + k) mod p to that block's owner and receives the contribution of rank
// (r - k) mod p to its own block. It then combines the p contributions in rank order
// x0 op x1 op ... op x(p-1), so non-commutative ops are reduced correctly.
//
// Requires: nothing. Cost with c_r = the block of rank r, equal blocks of c items:
//   duplex, all:     (p-1) (alpha + c beta) + (p-1) c gamma                      (exact)
//   exchange, half:  each step whose shift is not its own inverse is charged two rounds
//                    (p-1 steps, an estimate unless p = 2).
// Uneven blocks: the cost function replays the steps (PortClocks), an estimate (a lower
// bound in the cases measured: eager messages of later steps overtake).
#include "collectives/costs/claims.hpp"
#include "collectives/costs/port_clocks.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"

namespace vmc::internal {

void reduce_scatter_pairwise(const Comm& comm, void* buf, std::size_t item_size,
                             const Blocks& blocks, const Op& op, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  const std::size_t c = blocks.counts[r];
  if (p == 1) return;
  // parts[j]: rank j's contribution to block r (own one stays in buf).
  Bytes parts(c * p * item_size);
  for (int k = 1; k < p; ++k) {
    const int dst = (r + k) % p, src = (r - k + p) % p;
    sendrecv_items(comm, at(buf, blocks.displs[dst], item_size), blocks.counts[dst], dst,
                   at(parts.data(), c * src, item_size), c, src, item_size, tag);
  }
  copy_items(at(parts.data(), c * r, item_size), at(buf, blocks.displs[r], item_size), c,
             item_size);
  if (c == 0) return;
  char* acc = at(buf, blocks.displs[r], item_size);
  copy_items(acc, parts.data(), c, item_size);
  for (int j = 1; j < p; ++j) op.apply(acc, at(parts.data(), c * j, item_size), acc, c);
  comm.charge_combine(c * (p - 1));
}

Picos reduce_scatter_pairwise_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  const int p = q.p;
  if (p == 1) return 0;
  bool equal = true;
  for (std::size_t x : counts) equal = equal && x == counts[0];
  if (equal) {  // the closed form of the replay below
    const Picos msg = message_time(q, counts[0]);
    Picos steps = (p - 1) * msg;
    if (one_partner_ports(q)) steps = 2 * steps - (p % 2 == 0 ? msg : 0);
    return steps + q.units.combine(counts[0] * (p - 1));
  }
  PortClocks clocks(q, p);
  std::vector<int> dest(p);
  std::vector<std::size_t> items(p);
  for (int k = 1; k < p; ++k) {
    for (int r = 0; r < p; ++r) {
      dest[r] = (r + k) % p;
      items[r] = counts[dest[r]];
    }
    clocks.permutation_step(dest, items);
  }
  for (int r = 0; r < p; ++r) clocks.combine(r, counts[r] * (p - 1));
  return clocks.finish();
}

void run_reduce_scatter_pairwise(const Call& call) {
  run_reduce_scatter(call, reduce_scatter_pairwise);
}
Picos cost_reduce_scatter_pairwise(const CostQuery& q) {
  return reduce_scatter_pairwise_cost(q, counts_of(q));
}

Algorithm reduce_scatter_pairwise_row() {
  return {
      .name = "pairwise",
      .description = "direct exchange of contributions, combined in rank order",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_reduce_scatter_pairwise,
      .run = run_reduce_scatter_pairwise,
      .claim = shift_exchange_claim,
  };
}

}  // namespace vmc::internal
