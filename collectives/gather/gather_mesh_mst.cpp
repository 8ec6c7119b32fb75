// gather mesh_mst: 004 §7 MST gather, the scatter reversed: every node collects the blocks
// of its subtree of the recursive-splitting minimum spanning tree of the group's mesh
// (004 §5.1, patterns/mesh_mst.hpp) from its children, the last step's first, and sends
// them to its parent in one message. The subtrees of the inward tree are ranges of ranks,
// so a subtree's blocks are contiguous in rank order and nothing is rearranged.
// Partitioning as in scatter mesh_mst (004 §7): halves, or for gatherv's skewed counts the
// data-distribution cuts with the alpha/beta switch.
//
// Requires: nothing (any p, root, counts; empty subtrees send nothing).
// Cost: 004 §7 with equal blocks of m items: ceil(log2 p) alpha + (p-1) m beta. In general
// the cost function evaluates the tree: a node is done when its children's messages, each
// ready when that child is done and of alpha + (items of its subtree) beta, have passed
// its port one at a time (all at once under all-port nodes). Exact on private links and,
// with equal counts, on the group's own mesh where the tree is contention-free and nodes
// take one message at a time (mst_claim); elsewhere a lower bound.
#include "collectives/costs/claims.hpp"
#include "collectives/gather/gather_internal.hpp"
#include "collectives/mesh/mst.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

void gather_mesh_mst(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                     const Blocks& blocks, int root, Tag tag) {
  const patterns::MstTree tree =
      mst_data_tree(comm, root, patterns::MstFlow::inward, blocks.counts);
  const auto prefix = line_prefix(tree, blocks.counts);  // the rank order
  const int r = comm.rank();
  const patterns::MstNode node = tree.node(r);
  Bytes sub((prefix[node.first + node.size] - prefix[node.first]) * item_size);
  const void* own = send != nullptr ? send : at(recv, blocks.displs[r], item_size);
  copy_items(at(sub.data(), prefix[r] - prefix[node.first], item_size), own, blocks.counts[r],
             item_size);
  mst_gather_parts(comm, whole(tree, comm), prefix, sub.data(), item_size, tag);
  if (r == root) unpack_blocks(sub.data(), item_size, blocks, 0, comm.size(), recv);
}

Picos gather_mesh_mst_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  const patterns::MstTree tree = mst_data_tree(q, patterns::MstFlow::inward, counts);
  const std::vector<Picos> ready(q.p, 0);
  return mst_gather_times(q, tree, line_prefix(tree, counts), ready)[q.root];
}

void run_gather_mesh_mst(const Call& call) {
  gather_mesh_mst(*call.comm, call.send, call.recv, call.item_size, gather_layout(call),
                  call.root, call.tag);
}
Picos cost_gather_mesh_mst(const CostQuery& q) { return gather_mesh_mst_cost(q, counts_of(q)); }

Claim claim_gather_mesh_mst(const CostQuery& q) {
  return equal_counts(q) ? mst_claim(q, Claim::exact, true) : on_machine(q, Claim::exact, false);
}

Algorithm gather_mesh_mst_row() {
  return {
      .name = "mesh_mst",
      .description = "004 §5.1's MST of the group's mesh, the scatter reversed; halves, or 004 "
                     "§7's data-distribution cuts when the halves' data differ by alpha/beta items "
                     "or more",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_gather_mesh_mst,
      .run = run_gather_mesh_mst,
      .claim = claim_gather_mesh_mst,
  };
}

}  // namespace vmc::internal
