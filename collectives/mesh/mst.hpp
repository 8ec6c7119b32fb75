// The MST pieces of 004 on byte buffers (patterns/mesh_mst.hpp: the trees), for the mesh
// algorithms and their compositions: broadcast, reduction to one, scatter and gather of
// parts along a tree, and their costs, evaluated on the tree.
//
// Conventions:
// - A TreeView runs a tree on some members of a comm: tree rank i is comm rank members[i]
//   (the whole group: members empty, tree rank = comm rank), `me` this node's tree rank.
//   So the whole-mesh trees and the per-dimension lines of 004 §9 and §11 (one tree per
//   line of a dimension) run the same code.
// - Scatter and gather move parts laid out in the tree's line order: part q (the part of
//   the node at line position q) is prefix[q] .. prefix[q+1] of the items; a node's buffer
//   `sub` holds its subtree's parts (positions [first, first + size)) from item 0. Empty
//   messages are skipped (every node knows every part's size).
// - Broadcast and reduction send every message, one per tree edge.
// - A node receives (inward) or sends (outward) in step order; an inward node takes its
//   children from the last step's to the first's.
#pragma once

#include <functional>

#include <span>
#include <vector>

#include "collectives/op.hpp"
#include "collectives/patterns/mesh_mst.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// The geometric MST of the call's group with this root (mesh_shape_of: the group's mesh).
patterns::MstTree mst_tree(const Comm& c, int root, patterns::MstFlow flow);
patterns::MstTree mst_tree(const CostQuery& q, patterns::MstFlow flow);  // q.root

// 004 §7's data-distribution tree of per-rank counts, the geometric cut kept where its
// imbalance is below alpha/beta items (of the comm's or the query's model).
patterns::MstTree mst_data_tree(const Comm& c, int root, patterns::MstFlow flow,
                                std::span<const std::size_t> counts);
patterns::MstTree mst_data_tree(const CostQuery& q, patterns::MstFlow flow,
                                std::span<const std::size_t> counts);

struct TreeView {
  const patterns::MstTree* tree = nullptr;
  std::vector<int> members;  // tree rank -> comm rank; empty: the same (or rank_of's)
  int me = 0;
  // When set, tree rank -> comm rank computed on demand: a node asks only for its parent's
  // and children's, so a group of g members costs it O(log g), not O(g) (a 65,536-node
  // MST-SC broadcast's groups of 8,192 built whole on every node took minutes).
  std::function<int(int)> rank_of;
  int comm_rank(int i) const {
    if (rank_of) return rank_of(i);
    return members.empty() ? i : members[i];
  }
};
// The whole group's tree at comm rank c.rank().
TreeView whole(const patterns::MstTree& t, const Comm& c);

// The time of one message along a tree edge, the tree ranks of its parent and its child
// (an edge whose route shares links with other trees' messages may take longer).
using EdgeTime = std::function<Picos(int parent, int child)>;

// Broadcast of n items from the tree's root (outward): steps T(n), every message sent.
void mst_bcast(const Comm& c, const TreeView& v, void* buf, std::size_t n, std::size_t isz,
               Tag tag);
Picos mst_bcast_cost(const CostQuery& q, const patterns::MstTree& t, std::size_t n);
// The same with each edge's own message time: when the last node has the vector (each node
// sends to its children one after another once it has it).
Picos mst_bcast_time(const patterns::MstTree& t, const EdgeTime& msg);

// Reduction of n items to the tree's root (inward), combining the subtrees in line order
// (the rank order on a whole mesh): `acc` holds this node's operand and, at the root, the
// result; `tmp` is scratch of n items.
void mst_reduce(const Comm& c, const TreeView& v, void* acc, void* tmp, std::size_t n,
                std::size_t isz, const Op& op, Tag tag);
// The time the root has the result when every node starts at 0: each node takes its
// children's messages (each ready when that child is done) through its port under the
// simulator's rules (a message its receiver waits for first, then the oldest), combining
// each in turn; eager messages may arrive while it combines.
Picos mst_reduce_cost(const CostQuery& q, const patterns::MstTree& t, std::size_t n);
// The same with each edge's own message time and `comb` per combine.
Picos mst_reduce_time(const CostQuery& q, const patterns::MstTree& t, const EdgeTime& msg,
                      Picos comb);

// Scatter (outward) of the parts in the tree's line order from the root's `sub` (all parts)
// to every node's `sub` (its subtree's parts).
void mst_scatter_parts(const Comm& c, const TreeView& v, std::span<const std::size_t> prefix,
                       void* sub, std::size_t isz, Tag tag);
// Per tree rank, the time it is done (its last send ends, or its receive for a leaf), the
// root starting at `start`.
std::vector<Picos> mst_scatter_times(const CostQuery& q, const patterns::MstTree& t,
                                     std::span<const std::size_t> prefix, Picos start);

// Gather (inward) of every node's part (at its place in its `sub`) to the root's `sub`.
void mst_gather_parts(const Comm& c, const TreeView& v, std::span<const std::size_t> prefix,
                      void* sub, std::size_t isz, Tag tag);
// Per tree rank, the time its subtree's parts are with it, node i starting at ready[i]:
// the messages of its children pass its port one at a time in any order that keeps it
// busy (or all at once under all-port nodes).
std::vector<Picos> mst_gather_times(const CostQuery& q, const patterns::MstTree& t,
                                    std::span<const std::size_t> prefix,
                                    std::span<const Picos> ready);

// Prefix sums of per-rank counts taken in the tree's line order.
std::vector<std::size_t> line_prefix(const patterns::MstTree& t,
                                     std::span<const std::size_t> counts);

// The claim of an algorithm made of the dimension-by-dimension MST lines and the
// dimensional rings (004 §9 SC, §11 DG), with p equal blocks: on private links and the
// group's own mesh (the lines and rings of a dimension keep to their own links, 004 §6.1)
// exact under two-sided ports, or where every ring has two nodes (an exchange); a lower
// bound under exchange and half ports otherwise (a ring node's send and receive take
// turns); on_machine's elsewhere.
Claim dims_claim(const CostQuery& q);

// The claim of an MST algorithm whose formula is `ideal` on private links: the same on the
// group's own mesh where its trees are contention-free (patterns::mst_contention_free) and
// no node takes two messages at once (`inward` trees under all-port nodes do); elsewhere
// on_machine's.
Claim mst_claim(const CostQuery& q, Claim ideal, bool inward);

}  // namespace vmc::internal
