// The balanced binary tree tree:P: P processing nodes at the leaves and P-1 switches
// inside that only route (003 §4.1.4, Figure 4.7). Processing nodes are vertices 0..P-1,
// left to right; switches are P..2P-2 in breadth-first order, P the root. Every switch
// splits its leaves into a left half of ceil(n/2) and a right half of floor(n/2), so the
// leaves below any vertex are a contiguous range, and leaf depths differ by at most one.
// tree:1 is a single node without switches. Source: 003 §4.1.4; 002 (tree reduce).
//
// Routing: up from a to the lowest common ancestor of a and b, then down to b: the only
// path in a tree. Link ids: every vertex v but the root has one edge to its parent,
// numbered e(v) = v for leaves and v-1 for switches; 2e(v) goes up, 2e(v)+1 comes down.
#pragma once

#include "topology/topology.hpp"

namespace vmc {

class Tree final : public Topology {
 public:
  explicit Tree(int p);  // 1 <= p <= kMaxNodes, else TopologyError

  std::string spec() const override;
  int nodes() const override { return p_; }
  int vertices() const override { return static_cast<int>(vertices_.size()); }
  int link_count() const override { return 2 * (vertices() - 1); }
  DirectedLink link(LinkId id) const override;
  // Its level (the depth of its lower end: 1 at the root) and whether it leads up.
  LinkClass link_class(LinkId id) const override;
  LinkId link_between(int a, int b) const override;
  std::vector<int> neighbours(int v) const override;
  void route(int a, int b, std::vector<LinkId>& out) const override;
  using Topology::route;
  std::vector<int> coordinates(int v) const override;
  TopologyProperties properties() const override;
  std::string routing() const override {
    return "up to the lowest common switch, then down (the only path)";
  }

  int root() const { return p_ == 1 ? 0 : p_; }
  // Parent of vertex v; -1 for the root.
  int parent(int v) const;
  // Children of switch s, left then right; empty for a leaf.
  std::vector<int> children(int v) const;
  // The leaves below vertex v are first_leaf(v) .. end_leaf(v) - 1.
  int first_leaf(int v) const;
  int end_leaf(int v) const;

 private:
  struct Vertex {
    int parent = -1;
    int left = -1;   // children; -1 for a leaf
    int right = -1;
    int lo = 0;      // leaves lo..hi-1 are below this vertex
    int hi = 0;
  };
  LinkId up_link(int v) const { return 2 * (v < p_ ? v : v - 1); }

  int p_;
  std::vector<Vertex> vertices_;
};

// Height of the halving tree over n >= 1 leaves: ceil(log2 n). Exposed for the tests.
int tree_height(int n);

}  // namespace vmc
