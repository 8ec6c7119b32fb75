// 004 §6.2's dimension-ordered pipeline as a schedule (mesh_dopl.hpp).
#include "collectives/patterns/mesh_dopl.hpp"

#include <algorithm>
#include <cmath>

namespace vmc::patterns {

namespace {

// The chain along dimension `dim` through `rank`, headed by the node with the root's
// coordinate, up the line and around.
DoplChain line_chain(const MeshShape& shape, int root, int dim, int rank) {
  DoplChain c;
  const int m = shape.lengths[dim], x = shape.coordinate(rank, dim);
  c.active = true;
  c.position = (x - shape.coordinate(root, dim) + m) % m;
  if (c.position > 0) c.prev = shape.with_coordinate(rank, dim, (x - 1 + m) % m);
  if (c.position < m - 1) c.next = shape.with_coordinate(rank, dim, (x + 1) % m);
  return c;
}

}  // namespace

DoplChain dopl_chain(const MeshShape& shape, int root, int dim, int rank) {
  for (int i = dim + 1; i < shape.dimensions(); ++i) {
    if (shape.coordinate(rank, i) != shape.coordinate(root, i)) return {};
  }
  return line_chain(shape, root, dim, rank);
}

int dopl_steps(const MeshShape& shape, int k_alt) {
  if (shape.size() <= 1) return 0;
  return k_alt + shape.dimensions() - 1;
}

DoplStep dopl_step(const MeshShape& shape, int root, int k_alt, int step, int rank) {
  DoplStep s;
  const int d = shape.dimensions();
  s.dim = step % d;
  if (shape.size() <= 1) return s;
  const int m = shape.lengths[s.dim];
  const int head = shape.with_coordinate(rank, s.dim, shape.coordinate(root, s.dim));
  int j = 0;  // dimensions dim, dim+1, ... (mod d) in which the head agrees with the root
  auto agrees = [&](int i) { return shape.coordinate(head, i) == shape.coordinate(root, i); };
  while (j < d && agrees((s.dim + j) % d)) ++j;
  const int part = std::min(step + j - d, k_alt - 1);
  if (part >= 0) {
    s.part = part;
    s.chain = line_chain(shape, root, s.dim, rank);
  }
  if (step - d >= 0 && head != root) {
    const int tail = shape.with_coordinate(
        head, s.dim, (shape.coordinate(root, s.dim) - 1 + m) % m);
    s.wrap_part = step - d;
    if (rank == head) s.wrap_from = tail;
    else if (rank == tail) s.wrap_to = head;
    else s.wrap_part = -1;
  }
  return s;
}

std::size_t dopl_pieces(int m, std::size_t n, double alpha, double beta, int k_alt) {
  if (m <= 2 || n <= 1) return 1;
  if (alpha <= 0) return n;
  const double k = std::sqrt((m - 2) * double(n) * beta / (k_alt * alpha));
  return static_cast<std::size_t>(std::clamp(std::round(k), 1.0, double(n)));
}

}  // namespace vmc::patterns
