// allgather gather_broadcast: 004 §4 "collect" by a minimum spanning tree: gather every
// block to rank 0 along the binomial tree (gather_binomial), then broadcast the whole
// buffer along the same tree (trees::bcast_binomial, skipped when empty). Few startups,
// much volume: the choice for short vectors.
//
// Requires: nothing. Cost, N = total items, d = ceil(log2 p):
//   gather_binomial_cost(root 0) + d (alpha + N beta)     (p = 2^d, m items per node:
//   d alpha + (p-1) m beta + d (alpha + p m beta)). Exact for every p, counts and port
//   model on contention-free routing: the broadcast starts when the gather has ended at
//   rank 0, and every other node is idle by then.
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/gather/gather_internal.hpp"
#include "collectives/primitives/trees.hpp"

namespace vmc::internal {

void allgather_gather_broadcast(const Comm& comm, void* buf, std::size_t item_size,
                                const Blocks& blocks, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  if (p == 1) return;
  gather_binomial(comm, r == 0 ? nullptr : at(buf, blocks.displs[r], item_size), buf,
                  item_size, blocks, 0, tag);
  Bytes all(blocks.total() * item_size);
  if (r == 0) pack_blocks(buf, item_size, blocks, 0, p, all.data());
  if (blocks.total() > 0) {
    trees::bcast_binomial(comm, all.data(), blocks.total(), item_size, trees::Rooted(p, 0),
                          tag + 4);
  }
  if (r != 0) unpack_blocks(all.data(), item_size, blocks, 0, p, buf);
}

Picos allgather_gather_broadcast_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  if (q.p == 1) return 0;
  CostQuery g = q;
  g.root = 0;
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  return gather_binomial_cost(g, counts) +
         (total == 0 ? 0 : trees::bcast_binomial_cost(q, q.p, total));
}

void run_allgather_gather_broadcast(const Call& call) {
  allgather_gather_broadcast(*call.comm, call.recv, call.item_size, prepare_allgather(call),
                             call.tag);
}
Picos cost_allgather_gather_broadcast(const CostQuery& q) {
  return allgather_gather_broadcast_cost(q, counts_of(q));
}

namespace {
Claim claim_gather_broadcast(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, true);  // any counts
}
}  // namespace

Algorithm allgather_gather_broadcast_row() {
  return {
      .name = "gather_broadcast",
      .description = "binomial gather to rank 0, then binomial broadcast (004 MST collect)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_allgather_gather_broadcast,
      .run = run_allgather_gather_broadcast,
      .claim = claim_gather_broadcast,
  };
}

}  // namespace vmc::internal
