// gather binomial: 001 "Gather" (the scatter reversed: the binomial tree of 003 §4.1 run
// from the leaves up). On virtual ranks v = (r - root) mod p each node collects the blocks
// of its subtree, the virtual range [v, v + size), from its children (smallest subtree
// first) and sends them to its parent as one message.
//
// Requires: nothing (any p, any root, any counts; empty subtrees send nothing).
// Cost, p = 2^d with m items per node (001 table): d alpha + (p-1) m beta. In general the
// cost function evaluates the tree: a node is done when the messages of its children,
// each ready when that child is done and of alpha + (items of its subtree) beta, have
// passed through its port one at a time (exchange, half, duplex: the order does not change
// when the last one ends), or all at once (all). Exact for every p, root and counts on
// contention-free routing.
#include <algorithm>

#include "collectives/costs/claims.hpp"
#include "collectives/gather/gather_internal.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

void gather_binomial(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                     const Blocks& blocks, int root, Tag tag) {
  using namespace patterns;
  const int p = comm.size(), r = comm.rank();
  const int v = to_virtual(r, root, p);
  const int size = binomial_subtree_size(v, p);
  Bytes tmp(blocks.range_total(r, size) * item_size);
  const void* own = send != nullptr ? send : at(recv, blocks.displs[r], item_size);
  copy_items(tmp.data(), own, blocks.counts[r], item_size);
  auto children = binomial_children(v, p);
  for (auto it = children.rbegin(); it != children.rend(); ++it) {
    const int c = *it;
    const std::size_t offset = blocks.range_total(r, c - v);
    const std::size_t items = blocks.range_total(to_real(c, root, p), binomial_subtree_size(c, p));
    recv_items(comm, at(tmp.data(), offset, item_size), items, item_size, to_real(c, root, p),
               tag);
  }
  if (v != 0) {
    send_items(comm, tmp.data(), tmp.size() / item_size, item_size,
               to_real(binomial_parent(v), root, p), tag);
  } else {
    unpack_blocks(tmp.data(), item_size, blocks, root, p, recv);
  }
}

Picos gather_binomial_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  using namespace patterns;
  const int p = q.p;
  const Blocks blocks = Blocks::contiguous(counts);
  std::vector<Picos> done(p, 0);
  std::vector<std::pair<Picos, Picos>> jobs;
  for (int v = p - 1; v >= 0; --v) {
    jobs.clear();
    for (int c : binomial_children(v, p)) {
      const std::size_t items =
          blocks.range_total(to_real(c, q.root, p), binomial_subtree_size(c, p));
      if (items > 0) jobs.push_back({done[c], q.units.message(items)});
    }
    Picos t = 0;
    if (q.model.port == Port::all) {
      for (auto [ready, d] : jobs) t = std::max(t, ready + d);
    } else {
      std::sort(jobs.begin(), jobs.end());
      for (auto [ready, d] : jobs) t = std::max(t, ready) + d;
    }
    done[v] = t;
  }
  return done[0];
}

void run_gather_binomial(const Call& call) {
  gather_binomial(*call.comm, call.send, call.recv, call.item_size, gather_layout(call),
                  call.root, call.tag);
}
Picos cost_gather_binomial(const CostQuery& q) { return gather_binomial_cost(q, counts_of(q)); }

Algorithm gather_binomial_row() {
  return {
      .name = "binomial",
      .description = "binomial tree: the scatter reversed (001 Gather)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_gather_binomial,
      .run = run_gather_binomial,
      .claim = binomial_tree_claim,
  };
}

}  // namespace vmc::internal
