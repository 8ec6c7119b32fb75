// The balanced binary tree with switches (see tree.hpp). Source: 003 §4.1.4.
//
// Properties for P >= 2 (tree:1 has none of them: a single node, everything 0):
// - switches P-1, links 2P-2 (a tree on 2P-1 vertices), processing degree 1.
// - diameter: the two leaves farthest apart meet at the root, one in each half, so it is
//   2 + height(ceil(P/2)) + height(floor(P/2)), height(n) = ceil(log2 n). (Inside one half
//   no path is longer: 2*height(ceil(P/2)) <= 2 + both heights, the heights differing by
//   at most one.) For P = 2^k this is 2k.
// - arc connectivity 1: a leaf hangs on one link.
// - bisection width 1: the link above the root's left child separates exactly ceil(P/2)
//   leaves from the other floor(P/2); no cut of a connected network is smaller.
#include "topology/tree.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "topology/detail.hpp"
#include "topology/exhaustive.hpp"

namespace vmc {

int tree_height(int n) { return detail::ceil_log2(n); }

Tree::Tree(int p) : p_(p) {
  if (p < 1 || p > kMaxNodes)
    throw TopologyError("tree:P needs 1 <= P <= " + std::to_string(kMaxNodes) + " (got " +
                        std::to_string(p) + ")");
  vertices_.resize(p == 1 ? 1 : 2 * p - 1);
  for (int leaf = 0; leaf < p; ++leaf) {
    vertices_[leaf].lo = leaf;
    vertices_[leaf].hi = leaf + 1;
  }
  if (p == 1) return;
  // Breadth first from the root: each switch halves its range of leaves.
  vertices_[p].lo = 0;
  vertices_[p].hi = p;
  int next_switch = p + 1;
  for (int s = p; s < vertices(); ++s) {  // switches are numbered in the order visited
    Vertex& sw = vertices_[s];
    const int mid = sw.lo + (sw.hi - sw.lo + 1) / 2;
    const std::pair<int, int> halves[2] = {{sw.lo, mid}, {mid, sw.hi}};
    int child[2];
    for (int i = 0; i < 2; ++i) {
      const auto [lo, hi] = halves[i];
      child[i] = hi - lo == 1 ? lo : next_switch++;
      vertices_[child[i]].parent = s;
      vertices_[child[i]].lo = lo;
      vertices_[child[i]].hi = hi;
    }
    vertices_[s].left = child[0];
    vertices_[s].right = child[1];
  }
}

std::string Tree::spec() const { return "tree:" + std::to_string(p_); }

int Tree::parent(int v) const {
  detail::check_vertex(*this, v, vertices());
  return vertices_[v].parent;
}

std::vector<int> Tree::children(int v) const {
  detail::check_vertex(*this, v, vertices());
  if (vertices_[v].left < 0) return {};
  return {vertices_[v].left, vertices_[v].right};
}

int Tree::first_leaf(int v) const {
  detail::check_vertex(*this, v, vertices());
  return vertices_[v].lo;
}

int Tree::end_leaf(int v) const {
  detail::check_vertex(*this, v, vertices());
  return vertices_[v].hi;
}

DirectedLink Tree::link(LinkId id) const {
  detail::check_link(*this, id, link_count());
  const int edge = id / 2;
  const int v = edge < p_ ? edge : edge + 1;
  const int up = vertices_[v].parent;
  return id % 2 == 0 ? DirectedLink{v, up} : DirectedLink{up, v};
}

LinkClass Tree::link_class(LinkId id) const {
  const DirectedLink l = link(id);
  const bool up = id % 2 == 0;
  int depth = 0;
  for (int v = up ? l.from : l.to; vertices_[v].parent >= 0; v = vertices_[v].parent) ++depth;
  return {.level = depth, .up = up};
}

LinkId Tree::link_between(int a, int b) const {
  detail::check_vertex(*this, a, vertices());
  detail::check_vertex(*this, b, vertices());
  if (vertices_[a].parent == b) return up_link(a);
  if (vertices_[b].parent == a) return up_link(b) + 1;
  return -1;
}

std::vector<int> Tree::neighbours(int v) const {
  detail::check_vertex(*this, v, vertices());
  std::vector<int> out;
  const Vertex& x = vertices_[v];
  for (int u : {x.parent, x.left, x.right})
    if (u >= 0) out.push_back(u);
  std::sort(out.begin(), out.end());
  return out;
}

void Tree::route(int a, int b, std::vector<LinkId>& out) const {
  detail::check_node(*this, a, p_);
  detail::check_node(*this, b, p_);
  int at = a;
  while (b < vertices_[at].lo || b >= vertices_[at].hi) {  // up to the common ancestor
    out.push_back(up_link(at));
    at = vertices_[at].parent;
  }
  while (at != b) {  // down towards b's leaf
    const Vertex& sw = vertices_[at];
    at = b < vertices_[sw.left].hi ? sw.left : sw.right;
    out.push_back(up_link(at) + 1);
  }
}

std::vector<int> Tree::coordinates(int v) const {
  detail::check_node(*this, v, p_);
  return {v};
}

TopologyProperties Tree::properties() const {
  if (p_ == 1) return {.nodes = 1, .diameter = 0, .connectivity = 0, .bisection_width = 0};
  TopologyProperties props{
      .nodes = p_,
      .switches = p_ - 1,
      .links = 2 * p_ - 2,
      .degree_min = 1,
      .degree_max = 1,
      .diameter = 2 + tree_height((p_ + 1) / 2) + tree_height(p_ / 2),
      .connectivity = 1,
      .bisection_width = 1};
  return exhaustive::complete_if_small(*this, props);
}

}  // namespace vmc
