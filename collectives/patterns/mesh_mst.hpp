// 004 §5.1's minimum spanning tree (MST) of a mesh by recursive splitting, for any mesh
// shape and any root, and 004 §7's data-distribution partitioning of it. Pure: no threads,
// no I/O.
//
// The nodes are laid on a line and the tree splits ranges of it. A partition (a range of
// s >= 2 nodes with a root) is cut in two parts of ceil(s/2) and floor(s/2) nodes, the root
// keeping the larger one; the root sends to the node of the other part next to the cut,
// which becomes that part's root, and both parts go on alone. A part of s nodes is done in
// ceil(log2 s) steps, so the whole mesh in ceil(log2 p) (004 §5.1: "MST based operations
// incur ceil(log2 p) startups"; the OCR text of 004 reads "log_10(n)").
//
// The line is the mesh in mixed radix, so cutting a range cuts its slowest dimension
// first, then the next one, and so on: dimension by dimension, as 004 §5.1 splits the
// mesh. Which dimension varies fastest along the line depends on the direction of the
// messages (dimension-order routing corrects dimension 0 first, 004 §2 assumption 4):
//   - outward (the root sends: broadcast, scatter): dimension d-1 fastest;
//   - inward (the root receives: gather, reduce): dimension 0 fastest, so the line is the
//     rank order and every subtree is a range of ranks (reductions combine in rank order).
// With these lines no two messages that may be in flight together (their senders are in
// disjoint partitions) share a directed link of their dimension-order routes on a mesh of
// any shape: tests/collectives/mesh_mst_pattern_test.cpp checks every 2-D mesh up to 12x12,
// every 3-D mesh up to 5x5x5 and 004's set, every root (checked, not proven: a route may
// leave its partition along the dimension it corrects first, in the partition's first or
// last row, and the check shows that no message of a neighbouring partition then runs
// the same way over the same links).
//
// On a torus (wraparound links, routes the shorter way round) a route may leave its
// partition the other way round: the same lines are contention-free on rings and on tori
// whose lengths are all powers of two (then every cut is a sub-torus of half the length),
// not in general (torus:3x5, torus:5x7, mesh:4wx5 have roots with shared links).
// mst_contention_free says which.
//
// 004 §5.1's rule for the new root, read as the text gives it ("to the right of the root:
// the rightmost node"), is not contention-free on a 3x5 mesh under our check; the rule
// above ("the node nearest the root's side", and in every later split of a part that is
// not the root's "always the leftmost (rightmost)", which is the node next to the cut
// again) is.
//
// Data-distribution partitioning (004 §7, for scatterv and gatherv): the cut leaves the
// other part as much data as it can while the root's part (without the root's own block)
// keeps at least as much as the other part (without its new root's block), so the root is
// the last to finish sending; where the geometric cut's imbalance (other part's data minus
// the root part's) is below alpha/beta items, the geometric cut is kept (an extra startup
// would cost more than the data time it saves). Such trees may take more than
// ceil(log2 p) steps.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "collectives/patterns/mesh_shape.hpp"

namespace vmc::patterns {

enum class MstFlow { outward, inward };

// Whether the trees of both flows are contention-free under the dimension-order routes of
// a whole mesh of this shape (see the header comment): no wraparound, one dimension, or
// every length a power of two.
bool mst_contention_free(const MeshShape& shape);

// A node's child: its rank and its subtree, positions [first, first + size) of the line.
struct MstChild {
  int rank = 0;
  int first = 0;
  int size = 1;
};

// One node of the tree. Its children are in step order: child i is sent to (outward) or
// received from (inward) in step step + 1 + i. Its own subtree is the part it is root of:
// positions [first, first + size); child i's partition (the range split in its step) is
// the node and the subtrees of children i, i+1, ...
struct MstNode {
  int rank = 0;
  int parent = -1;  // -1 at the root
  int step = -1;    // the step of the edge to the parent; -1 at the root
  int first = 0;
  int size = 1;
  std::vector<MstChild> children;
};

class MstTree {
 public:
  // Geometric partitioning (004 §5.1).
  MstTree(const MeshShape& shape, int root, MstFlow flow);
  // Data-distribution partitioning of per-rank counts (004 §7), with the geometric cut
  // kept where its imbalance is below switch_items (alpha/beta) items.
  MstTree(const MeshShape& shape, int root, MstFlow flow, std::span<const std::size_t> counts,
          double switch_items);

  int size() const { return p_; }
  int root() const { return root_; }
  MstFlow flow() const { return flow_; }
  // The line is the rank order (inward trees, one-dimensional shapes).
  bool rank_order() const { return flow_ == MstFlow::inward || shape_.dimensions() <= 1; }
  // Where rank sits on the line, and the rank at a position.
  int position(int rank) const;
  int rank_at(int position) const;
  // Rank's place in the tree: O(steps) (the splits along its way, not the whole tree).
  MstNode node(int rank) const;
  // Items of the counts in positions [first, first + size) (0 for a geometric tree).
  std::size_t items(int first, int size) const;
  // The number of steps (the tree's depth); ceil(log2 p) for a geometric tree.
  int steps() const;

 private:
  struct Cut {
    int first, size;  // the part without the root
    int new_root;     // its position next to the cut
  };
  Cut cut(int lo, int size, int root_pos) const;
  Cut geometric_cut(int lo, int size, int root_pos) const;
  Cut data_cut(int lo, int size, int root_pos) const;

  MeshShape shape_;
  int p_ = 1;
  int root_ = 0;
  MstFlow flow_ = MstFlow::outward;
  std::vector<std::size_t> prefix_;  // counts along the line, prefix sums (empty: geometric)
  double switch_items_ = 0;
};

}  // namespace vmc::patterns
