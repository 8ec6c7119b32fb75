// scatter mesh_mst: 004 §7 MST scatter. The root's blocks go down the recursive-splitting
// minimum spanning tree of the group's mesh (004 §5.1, patterns/mesh_mst.hpp): a node
// receives the blocks of its subtree in one message and sends each child the blocks of
// the child's subtree, in step order. The subtrees are ranges of the outward line
// (dimension d-1 fastest), so the root first lays the blocks out in that order.
// Partitioning (004 §7): geometric halves, unless the other half would need at least
// alpha/beta items more than the root's part (not counting either root's own block); then
// the cut that leaves the other part as much data as the root's part can outlast (the
// root finishes sending last). Equal counts (scatter) always give the halves; scatterv's
// skewed counts get the data-distribution cuts.
//
// Requires: nothing (any p, root, counts; empty subtrees get no message).
// Cost: 004 §7 with equal blocks of m items: ceil(log2 p) alpha + (p-1) m beta (004's
// (p-1)/p n beta for the whole vector n = p m). In general the cost function evaluates the
// tree: a child has its blocks when its parent's send to it ends, each send alpha + (items
// of the child's subtree) beta, one after the other. Plus, on a mesh of two or more
// dimensions where the line is not the rank order, the root's rearrangement of the other
// blocks, (total - own) delta (004's delta; 0 unless the model sets it). Exact on private
// links and, with equal counts, on the group's own mesh where the tree is contention-free
// (mst_claim); with unequal counts elsewhere a lower bound (the data-distribution cuts are
// not the halves whose routes were checked).
#include <algorithm>

#include "collectives/costs/claims.hpp"
#include "collectives/mesh/mst.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/scatter/scatter_internal.hpp"

namespace vmc::internal {

namespace {
std::size_t rearranged(const patterns::MstTree& t, const Blocks& blocks, int root) {
  return t.rank_order() ? 0 : blocks.total() - blocks.counts[root];
}
}  // namespace

void scatter_mesh_mst(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                      const Blocks& blocks, int root, Tag tag) {
  const patterns::MstTree tree =
      mst_data_tree(comm, root, patterns::MstFlow::outward, blocks.counts);
  const auto prefix = line_prefix(tree, blocks.counts);
  const patterns::MstNode node = tree.node(comm.rank());
  Bytes sub((prefix[node.first + node.size] - prefix[node.first]) * item_size);
  if (comm.rank() == root) {
    for (int q = 0; q < tree.size(); ++q) {
      const int r = tree.rank_at(q);
      copy_items(at(sub.data(), prefix[q], item_size), at(send, blocks.displs[r], item_size),
                 blocks.counts[r], item_size);
    }
    if (const std::size_t items = rearranged(tree, blocks, root)) comm.charge_rearrange(items);
  }
  mst_scatter_parts(comm, whole(tree, comm), prefix, sub.data(), item_size, tag);
  if (recv != nullptr) {
    const std::size_t mine = prefix[tree.position(comm.rank())] - prefix[node.first];
    copy_items(recv, at(sub.data(), mine, item_size), blocks.counts[comm.rank()], item_size);
  }
}

Picos scatter_mesh_mst_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  const patterns::MstTree tree = mst_data_tree(q, patterns::MstFlow::outward, counts);
  const auto prefix = line_prefix(tree, counts);
  const Picos start = q.units.rearrange(rearranged(tree, Blocks::contiguous(counts), q.root));
  const auto done = mst_scatter_times(q, tree, prefix, start);
  return *std::max_element(done.begin(), done.end());
}

void run_scatter_mesh_mst(const Call& call) {
  scatter_mesh_mst(*call.comm, call.send, call.recv, call.item_size, scatter_layout(call),
                   call.root, call.tag);
}
Picos cost_scatter_mesh_mst(const CostQuery& q) { return scatter_mesh_mst_cost(q, counts_of(q)); }

Claim claim_scatter_mesh_mst(const CostQuery& q) {
  return equal_counts(q) ? mst_claim(q, Claim::exact, false)
                         : on_machine(q, Claim::exact, false);
}

Algorithm scatter_mesh_mst_row() {
  return {
      .name = "mesh_mst",
      .description = "004 §5.1's MST of the group's mesh; halves, or 004 §7's data-distribution "
                     "cuts when the halves' data differ by alpha/beta items or more",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_scatter_mesh_mst,
      .run = run_scatter_mesh_mst,
      .claim = claim_scatter_mesh_mst,
  };
}

}  // namespace vmc::internal
