// 004 §6.2's dimension-ordered pipeline as a schedule (mesh_dopl.hpp).
#include "collectives/patterns/mesh_dopl.hpp"

#include <algorithm>
#include <cmath>

namespace vmc::patterns {

DoplChain dopl_chain(const MeshShape& shape, int root, int dim, int rank) {
  DoplChain c;
  for (int i = dim + 1; i < shape.dimensions(); ++i) {
    if (shape.coordinate(rank, i) != shape.coordinate(root, i)) return c;
  }
  const int m = shape.lengths[dim], x = shape.coordinate(rank, dim);
  c.active = true;
  c.position = (x - shape.coordinate(root, dim) + m) % m;
  if (c.position > 0) c.prev = shape.with_coordinate(rank, dim, (x - 1 + m) % m);
  if (c.position < m - 1) c.next = shape.with_coordinate(rank, dim, (x + 1) % m);
  return c;
}

std::size_t dopl_pieces(int m, std::size_t n, double alpha, double beta, int k_alt) {
  if (m <= 2 || n <= 1) return 1;
  if (alpha <= 0) return n;
  const double k = std::sqrt((m - 2) * double(n) * beta / (k_alt * alpha));
  return static_cast<std::size_t>(std::clamp(std::round(k), 1.0, double(n)));
}

}  // namespace vmc::patterns
