// gather linear: every rank sends its block straight to the root, which receives them in
// rank order from root+1 (the direct method that 001 "Gather" improves on).
//
// Requires: nothing. Cost with per-rank counts c_r (empty blocks are not sent):
//   exchange, half, duplex:  sum over r != root of (alpha + c_r beta)  (the root's port
//                            takes one message at a time)
//   all:                     max over r != root of (alpha + c_r beta)
// Exact for every p, root and counts on contention-free routing.
#include <algorithm>

#include "collectives/costs/claims.hpp"
#include "collectives/gather/gather_internal.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

void gather_linear(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                   const Blocks& blocks, int root, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  if (r != root) {
    send_items(comm, send, blocks.counts[r], item_size, root, tag);
    return;
  }
  if (send != nullptr) {
    copy_items(at(recv, blocks.displs[r], item_size), send, blocks.counts[r], item_size);
  }
  for (int k = 1; k < p; ++k) {
    const int src = (root + k) % p;
    recv_items(comm, at(recv, blocks.displs[src], item_size), blocks.counts[src], item_size, src,
               tag);
  }
}

Picos gather_linear_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  Picos sum = 0, mx = 0;
  for (int r = 0; r < q.p; ++r) {
    if (r == q.root) continue;
    sum += message_time(q, counts[r]);
    mx = std::max(mx, message_time(q, counts[r]));
  }
  return q.model.port == Port::all ? mx : sum;
}

void run_gather_linear(const Call& call) {
  gather_linear(*call.comm, call.send, call.recv, call.item_size, gather_layout(call), call.root,
                call.tag);
}
Picos cost_gather_linear(const CostQuery& q) { return gather_linear_cost(q, counts_of(q)); }

namespace {
Claim claim_linear(const CostQuery& q) { return on_machine(q, Claim::exact, false); }
}  // namespace

Algorithm gather_linear_row() {
  return {
      .name = "linear",
      .description = "every rank sends its block directly to the root",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_gather_linear,
      .run = run_gather_linear,
      .claim = claim_linear,
  };
}

}  // namespace vmc::internal
