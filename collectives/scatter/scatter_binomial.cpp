// scatter binomial: 001 "Scatter": like the binomial broadcast (003 §4.1, Alg. 4.2 on
// virtual ranks relative to the root) but each node forwards only the blocks of the
// subtree it sends to: half of the messages in the first step, a quarter in the second,
// and so on. Virtual rank v receives the blocks of its subtree [v, v + size) in one
// message and sends each child its range, largest subtree first.
//
// Requires: nothing (any p, any root, any counts; empty subtrees get no message).
// Cost, p = 2^d with m items per node (001 table): d alpha + (p-1) m beta. In general the
// cost function evaluates the tree: a child has its data when its parent's send to it
// ends, each send alpha + (items of the child's subtree) beta, one after the other. Exact
// for every p, root, counts and port model on contention-free routing.
#include <algorithm>

#include "collectives/costs/claims.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/scatter/scatter_internal.hpp"

namespace vmc::internal {

void scatter_binomial(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                      const Blocks& blocks, int root, Tag tag) {
  using namespace patterns;
  const int p = comm.size(), r = comm.rank();
  const int v = to_virtual(r, root, p);
  const int size = binomial_subtree_size(v, p);
  Bytes tmp(blocks.range_total(r, size) * item_size);
  if (v == 0) {
    pack_blocks(send, item_size, blocks, root, p, tmp.data());
  } else {
    recv_items(comm, tmp.data(), tmp.size() / item_size, item_size,
               to_real(binomial_parent(v), root, p), tag);
  }
  for (int c : binomial_children(v, p)) {
    const std::size_t offset = blocks.range_total(r, c - v);
    const std::size_t items = blocks.range_total(to_real(c, root, p), binomial_subtree_size(c, p));
    send_items(comm, at(tmp.data(), offset, item_size), items, item_size, to_real(c, root, p),
               tag);
  }
  if (recv != nullptr) copy_items(recv, tmp.data(), blocks.counts[r], item_size);
}

Picos scatter_binomial_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  using namespace patterns;
  const int p = q.p;
  const Blocks blocks = Blocks::contiguous(counts);
  std::vector<Picos> got(p, 0);
  Picos finish = 0;
  for (int v = 0; v < p; ++v) {  // parents come before their children
    Picos t = got[v];
    for (int c : binomial_children(v, p)) {
      t += message_time(q, blocks.range_total(to_real(c, q.root, p), binomial_subtree_size(c, p)));
      got[c] = t;
    }
    finish = std::max(finish, t);
  }
  return finish;
}

void run_scatter_binomial(const Call& call) {
  scatter_binomial(*call.comm, call.send, call.recv, call.item_size, scatter_layout(call),
                   call.root, call.tag);
}
Picos cost_scatter_binomial(const CostQuery& q) { return scatter_binomial_cost(q, counts_of(q)); }

Algorithm scatter_binomial_row() {
  return {
      .name = "binomial",
      .description = "binomial tree: half the blocks, then a quarter, ... (001 Scatter)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_scatter_binomial,
      .run = run_scatter_binomial,
      .claim = binomial_tree_claim,
  };
}

}  // namespace vmc::internal
