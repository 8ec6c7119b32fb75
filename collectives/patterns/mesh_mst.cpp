// 004 §5.1's recursive-splitting MST and §7's data-distribution partitioning (mesh_mst.hpp).
#include "collectives/patterns/mesh_mst.hpp"

#include <algorithm>

namespace vmc::patterns {

bool mst_contention_free(const MeshShape& shape) {
  if (shape.dimensions() <= 1) return true;
  bool wraps = false, powers_of_two = true;
  for (int i = 0; i < shape.dimensions(); ++i) {
    wraps = wraps || shape.wraps[i];
    powers_of_two = powers_of_two && (shape.lengths[i] & (shape.lengths[i] - 1)) == 0;
  }
  return !wraps || powers_of_two;
}

MstTree::MstTree(const MeshShape& shape, int root, MstFlow flow)
    : shape_(shape), p_(shape.size()), root_(root), flow_(flow) {}

MstTree::MstTree(const MeshShape& shape, int root, MstFlow flow,
                 std::span<const std::size_t> counts, double switch_items)
    : MstTree(shape, root, flow) {
  prefix_.assign(p_ + 1, 0);
  for (int pos = 0; pos < p_; ++pos) prefix_[pos + 1] = prefix_[pos] + counts[rank_at(pos)];
  switch_items_ = switch_items;
}

int MstTree::position(int rank) const {
  if (flow_ == MstFlow::inward) return rank;
  int pos = 0;  // dimension d-1 fastest
  for (int i = 0; i < shape_.dimensions(); ++i) {
    pos = pos * shape_.lengths[i] + shape_.coordinate(rank, i);
  }
  return pos;
}

int MstTree::rank_at(int pos) const {
  if (flow_ == MstFlow::inward) return pos;
  std::vector<int> x(shape_.dimensions());
  for (int i = shape_.dimensions() - 1; i >= 0; --i) {
    x[i] = pos % shape_.lengths[i];
    pos /= shape_.lengths[i];
  }
  return shape_.rank_at(x);
}

std::size_t MstTree::items(int first, int size) const {
  return prefix_.empty() ? 0 : prefix_[first + size] - prefix_[first];
}

MstNode MstTree::node(int rank) const {
  MstNode n;
  n.rank = rank;
  n.size = p_;
  const int me = position(rank);
  int lo = 0, size = p_, r = position(root_);
  bool rooted = rank == root_;  // rank is the root of the current part
  for (int step = 0; size > 1; ++step) {
    const Cut c = cut(lo, size, r);
    const bool in_other = me >= c.first && me < c.first + c.size;
    if (rooted) {
      n.children.push_back({rank_at(c.new_root), c.first, c.size});
    } else if (me == c.new_root) {
      n.parent = rank_at(r);
      n.step = step;
      n.first = c.first;
      n.size = c.size;
      rooted = true;
    }
    if (in_other) {
      lo = c.first;
      size = c.size;
      r = c.new_root;
    } else {
      if (c.first == lo) lo += c.size;
      size -= c.size;
    }
  }
  return n;
}

int MstTree::steps() const {
  int steps = 0;
  for (int rank = 0; rank < p_; ++rank) steps = std::max(steps, node(rank).step + 1);
  return steps;
}

MstTree::Cut MstTree::cut(int lo, int size, int root_pos) const {
  const Cut geo = geometric_cut(lo, size, root_pos);
  if (prefix_.empty()) return geo;
  // 004 §7: keep the halves unless the other part would need more data time than the
  // root's part by alpha/beta items or more.
  const double other = double(items(geo.first, geo.size)) - double(items(geo.new_root, 1));
  const double mine =
      double(items(lo, size)) - double(items(geo.first, geo.size)) - double(items(root_pos, 1));
  if (other <= mine || other - mine < switch_items_) return geo;
  return data_cut(lo, size, root_pos);
}

MstTree::Cut MstTree::geometric_cut(int lo, int size, int root_pos) const {
  const int big = (size + 1) / 2;  // the root's part
  if (root_pos < lo + big) return {lo + big, size - big, lo + big};
  return {lo, size - big, lo + size - big - 1};
}

MstTree::Cut MstTree::data_cut(int lo, int size, int root_pos) const {
  const int hi = lo + size - 1;
  const std::size_t own = items(root_pos, 1);
  // Right of the root: the other part [c, hi] with new root c; the smallest c whose root
  // part (without the root) holds at least the other part (without c).
  auto right_ok = [&](int c) {
    return items(lo, c - lo) - own >= items(c + 1, hi - c);
  };
  // Left of the root: the other part [lo, c - 1] with new root c - 1; the largest such c.
  auto left_ok = [&](int c) {
    return items(c, hi + 1 - c) - own >= items(lo, c - 1 - lo);
  };
  Cut best{0, 0, 0};
  std::size_t best_items = 0;
  if (root_pos < hi) {
    int a = root_pos + 1, b = hi;  // right_ok(b) holds
    while (a < b) {
      const int m = (a + b) / 2;
      if (right_ok(m)) b = m;
      else a = m + 1;
    }
    best = {a, hi + 1 - a, a};
    best_items = items(a + 1, hi - a);
  }
  if (root_pos > lo) {
    int a = lo + 1, b = root_pos;  // left_ok(a) holds
    while (a < b) {
      const int m = (a + b + 1) / 2;
      if (left_ok(m)) a = m;
      else b = m - 1;
    }
    const std::size_t got = items(lo, a - 1 - lo);
    if (best.size == 0 || got > best_items || (got == best_items && a - lo > best.size)) {
      best = {lo, a - lo, a - 1};
    }
  }
  return best;
}

}  // namespace vmc::patterns
