// Patterns of the all-port hypercube algorithms; see allport.hpp.
#include "collectives/patterns/allport.hpp"

#include <algorithm>

namespace vmc::patterns::allport {

Windows windows(std::size_t n, std::size_t wanted) {
  Windows w;
  w.n = n;
  w.count = std::min(wanted, n);
  w.size = w.count == 0 ? 0 : (n + w.count - 1) / w.count;
  return w;
}

int rotated_dimension(int j, int s, int d) { return (j + s) % d; }

int rotated_receive_step(int v, int j, int d) {
  int step = -1;
  for (int k = 0; k < d; ++k) {
    if ((v >> k) & 1) step = std::max(step, ((k - j) % d + d) % d);
  }
  return step;
}

int rotate_right(int v, int j, int d) {
  if (d == 0) return v;
  const int mask = (1 << d) - 1;
  j %= d;
  return ((v >> j) | (v << (d - j))) & mask;
}

namespace {
// Tree j below e_j: the position in its dimension order j+1, ..., j+d-1, j of the last
// dimension in which v differs from e_j (-1 for v = e_j).
int edst_last_position(int v, int j, int d) {
  const int w = v ^ (1 << j);
  int last = -1;
  for (int i = 0; i < d; ++i) {
    if ((w >> ((j + 1 + i) % d)) & 1) last = i;
  }
  return last;
}
}  // namespace

int edst_parent(int v, int j, int d) {
  if (v == 0) return -1;
  const int last = edst_last_position(v, j, d);
  return last < 0 ? 0 : v ^ (1 << ((j + 1 + last) % d));
}

std::vector<int> edst_children(int v, int j, int d) {
  if (d == 0) return {};
  if (v == 0) return {1 << j};
  std::vector<int> children;
  for (int i = edst_last_position(v, j, d) + 1; i < d; ++i) {
    const int u = v ^ (1 << ((j + 1 + i) % d));
    if (u != 0) children.push_back(u);
  }
  return children;
}

int edst_depth(int v, int j, int d) {
  if (v == 0) return 0;
  const int w = v ^ (1 << j);
  int bits = 0;
  for (int k = 0; k < d; ++k) bits += (w >> k) & 1;
  return 1 + bits;
}

int edst_height(int d) { return d >= 2 ? d + 1 : d; }

}  // namespace vmc::patterns::allport
