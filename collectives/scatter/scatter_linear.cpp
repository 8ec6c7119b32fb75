// scatter linear: the root sends every other rank its block directly, in rank order from
// root+1 (the direct method that 001 "Scatter" improves on).
//
// Requires: nothing. Cost with per-rank counts c_r (empty blocks are not sent):
//   sum over r != root of (alpha + c_r beta)   (the root's sends are blocking)
// Exact for every p, root, counts and port model on contention-free routing.
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/scatter/scatter_internal.hpp"

namespace vmc::internal {

void scatter_linear(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                    const Blocks& blocks, int root, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  if (r != root) {
    recv_items(comm, recv, blocks.counts[r], item_size, root, tag);
    return;
  }
  for (int k = 1; k < p; ++k) {
    const int dst = (root + k) % p;
    send_items(comm, at(send, blocks.displs[dst], item_size), blocks.counts[dst], item_size, dst,
               tag);
  }
  if (recv != nullptr) {
    copy_items(recv, at(send, blocks.displs[r], item_size), blocks.counts[r], item_size);
  }
}

Picos scatter_linear_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  Picos sum = 0;
  for (int r = 0; r < q.p; ++r) {
    if (r != q.root) sum += message_time(q, counts[r]);
  }
  return sum;
}

void run_scatter_linear(const Call& call) {
  scatter_linear(*call.comm, call.send, call.recv, call.item_size, scatter_layout(call), call.root,
                 call.tag);
}
Picos cost_scatter_linear(const CostQuery& q) { return scatter_linear_cost(q, counts_of(q)); }

namespace {
Claim claim_scatter_linear(const CostQuery& q) { return on_machine(q, Claim::exact, false); }
}  // namespace

Algorithm scatter_linear_row() {
  return {
      .name = "linear",
      .description = "the root sends every rank its block directly",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_scatter_linear,
      .run = run_scatter_linear,
      .claim = claim_scatter_linear,
  };
}

}  // namespace vmc::internal
