// allreduce ring: ring reduce-scatter (p-1 steps: pass a partial block to the right, combine
// the one from the left into your own copy; reduce_scatter/reduce_scatter_ring.cpp), then
// ring allgather (p-1 steps; allgather/allgather_ring.cpp) (004 §5
// "bucket" reduction-to-all: distributed reduction then collect on a ring; 001 "improved
// all-reduce"). The vector is padded to p blocks of c = ceil(n/p) items.
//
// Requires: a commutative op (a block's partial result travels around the ring, so it is
// combined starting at its owner's successor, not at rank 0).
// Cost: (p-1)(S(c) + c gamma) + (p-1) S(c), S(c) = T(c) under duplex and all (exact, direct
// routing or a ring topology) and for p = 2 on every port model; under exchange and half a
// node cannot send right while it receives from the left and S(c) = 2 T(c) is the
// serialised estimate (a lower bound of the real schedule, which drifts).
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_allreduce_ring(const CostQuery& q) { return q.commutative; }

Picos cost_allreduce_ring(const CostQuery& q) {
  if (q.n == 0 || q.p == 1) return 0;
  const std::size_t blk = ceil_div(q.n, q.p);
  const Picos step = trees::ring_step(q, blk, blk);
  return (q.p - 1) * (2 * step + trees::comb(q, blk));
}

void run_allreduce_ring(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const int p = c.size();
  const std::size_t blk = ceil_div(call.n, p);
  auto buf = contribution(call, blk * p);
  if (p > 1) {
    const Blocks blocks = Blocks::equal(blk, p);
    reduce_scatter_ring(c, buf.data(), call.item_size, blocks, *call.op, call.tag);
    allgather_ring(c, buf.data(), call.item_size, blocks, call.tag + 1);
  }
  deliver(call, buf);
}

namespace {
// Odd rings under one-partner ports drift: the serialised steps are a lower bound.
Claim claim_ring(const CostQuery& q) {
  using namespace internal;
  const bool exact = two_sided_ports(q) || q.p % 2 == 0 || q.p == 1;
  return on_machine(q, exact ? Claim::exact : Claim::lower_bound, false);
}
}  // namespace

Algorithm allreduce_ring_row() {
  return {
      .name = "ring",
      .description = "ring reduce-scatter, then ring allgather (004 bucket algorithms)",
      .requirements = "a commutative op",
      .applicable = applicable_allreduce_ring,
      .cost = cost_allreduce_ring,
      .run = run_allreduce_ring,
      .claim = claim_ring,
  };
}

}  // namespace vmc::internal
