// broadcast scatter_allgather: the root cuts the vector into p blocks of c = ceil(n/p) items
// (the last ones padded), scatters them down a binomial tree, and the nodes then allgather
// the blocks: by recursive doubling when p is a power of two (001 "improved one-to-all
// broadcast" on the hypercube), by a ring otherwise (004 §5 "SC": scatter then collect).
// For long vectors this moves about 2n items per node instead of n log p.
//
// Requires: nothing. Virtual ranks as in broadcast binomial.
// Cost (T(k) = alpha + k beta, padded blocks are charged):
//   p = 2^d:  sum_{k=0}^{d-1} [T(c 2^k) + X(c 2^k)], X = T, or 2T under `half`;
//             the scatter ends on every node at once. Exact on every port model (direct
//             routing; hypercube wormhole).
//   other p:  S + (p - 1) T(c), S = the last scatter finish time (the tree replayed in the
//             cost function: each node sends its children their subtree's blocks in turn).
//             Exact under duplex and all; under exchange and half the ring cannot send and
//             receive at once and the ring part is the serialised estimate 2(p - 1) T(c).
#include <cstring>

#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace {
bool power_of_two(int p) { return (p & (p - 1)) == 0; }
}  // namespace

bool applicable_broadcast_scatter_allgather(const CostQuery&) { return true; }

Picos cost_broadcast_scatter_allgather(const CostQuery& q) {
  if (q.n == 0 || q.p == 1) return 0;
  const std::size_t c = ceil_div(q.n, q.p);
  const auto finish = trees::scatter_binomial_finish(q, q.p, c);
  Picos scatter = 0;
  for (Picos t : finish) scatter = std::max(scatter, t);
  Picos gather = 0;
  if (power_of_two(q.p)) {
    for (int k = 1; k < q.p; k <<= 1) gather += trees::exchange(q, c * k, c * k);
  } else {
    gather = (q.p - 1) * trees::ring_step(q, c, c);
  }
  return scatter + gather;
}

void run_broadcast_scatter_allgather(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size();
  if (call.n == 0 || p == 1) return;
  const std::size_t blk = ceil_div(call.n, p);
  // The blocks are gathered in place: in the vector itself when p blocks fill it exactly
  // (except at the root, whose vector is only read), else in a padded copy; the padding past
  // n items is sent, never read.
  const bool padded = blk * p != call.n || c.rank() == call.root;
  Bytes scratch(padded ? blk * p * call.item_size : 0);
  char* buf = padded ? scratch.data() : static_cast<char*>(call.recv);
  if (c.rank() == call.root) copy_data(buf, call.recv, call.n * call.item_size);
  const trees::Rooted vr(p, call.root);
  trees::scatter_binomial(c, buf, blk, call.item_size, vr, call.tag);
  if (power_of_two(p)) {
    trees::allgather_doubling(c, buf, blk, call.item_size, vr, call.tag + 1);
  } else {  // block v of buf is virtual rank v's
    Blocks blocks = Blocks::equal(blk, p);
    for (int r = 0; r < p; ++r) blocks.displs[r] = vr.to_virtual(r) * blk;
    allgather_ring(c, buf, call.item_size, blocks, call.tag + 1);
  }
  if (padded && c.rank() != call.root) copy_data(call.recv, buf, call.n * call.item_size);
}

namespace {
// The ring allgather of non-powers of two waits under one-partner ports.
Claim claim_broadcast_scatter_allgather(const CostQuery& q) {
  const bool exact = internal::is_power_of_two(q.p) || internal::two_sided_ports(q);
  return internal::on_machine(q, exact ? Claim::exact : Claim::lower_bound, q.root == 0);
}
}  // namespace

Algorithm broadcast_scatter_allgather_row() {
  return {
      .name = "scatter_allgather",
      .description = "binomial scatter of p blocks, then allgather (recursive doubling for p = "
                     "2^d, ring otherwise) (001 improved broadcast, 004 SC)",
      .requirements = "nothing",
      .applicable = applicable_broadcast_scatter_allgather,
      .cost = cost_broadcast_scatter_allgather,
      .run = run_broadcast_scatter_allgather,
      .claim = claim_broadcast_scatter_allgather,
  };
}

}  // namespace vmc::internal
