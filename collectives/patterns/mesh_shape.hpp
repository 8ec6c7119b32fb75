// A group of p nodes seen as a multidimensional mesh m_0 x m_1 x ... x m_{d-1} (004 §2,
// §15.3), the frame every mesh algorithm (004 §5-§13) computes its schedule in.
//
// Rank r of the group has coordinates x_i = (r / (m_0 ... m_{i-1})) mod m_i: dimension 0
// varies fastest, as in topology/grid.hpp, so on a whole mesh or torus rank r is node r and
// the mesh's dimension-order routes are the group's. Which shape a group gets:
// - the whole machine of a mesh, torus, array or ring topology (rank r = node r): the
//   topology's lengths, with its wraparound links where it has them (length >= 3);
// - the whole machine of a complete hypercube of 2^d nodes: 2 x 2 x ... x 2 (004 §3: "a
//   hypercube can be viewed as a multidimensional mesh with two nodes in each dimension");
// - a group that forms a sub-mesh (004 §14, §15.3): a row, a column, a block, every k-th
//   node of some dimensions of a mesh or torus, or a subcube of a complete hypercube, with
//   its ranks in the sub-mesh's own order (dimension 0 fastest, as a split keyed by world
//   rank gives them): the sub-mesh's lengths m'_i, with wraparound where a torus dimension
//   is covered whole, every k-th node (k dividing its length). Its messages then follow
//   the network's routes between its real coordinates, and routes between neighbours of
//   one dimension stay on that dimension's line;
// - anything else (other groups, full:P, tree:P, an incomplete hypercube): a linear array
//   of p nodes (004 §15.3: "one can simply consider it to be a linear array").
// Dimensions of length 1 are dropped (a 13x1 mesh is the array of 13), except that a group
// of one node is the 1-D mesh of length 1. Pure functions, no I/O, no threads.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "topology/topology.hpp"

namespace vmc::patterns {

struct MeshShape {
  std::vector<int> lengths;  // m_i >= 2 (or the single length 1 of a one-node group)
  std::vector<bool> wraps;   // dimension i has physical wraparound links (a torus ring)

  int dimensions() const { return static_cast<int>(lengths.size()); }
  int size() const {
    int p = 1;
    for (int m : lengths) p *= m;
    return p;
  }
  // m_0 ... m_{i-1}: the rank distance between neighbours of dimension i.
  int stride(int i) const {
    int s = 1;
    for (int k = 0; k < i; ++k) s *= lengths[k];
    return s;
  }
  int coordinate(int rank, int i) const { return rank / stride(i) % lengths[i]; }
  std::vector<int> coordinates(int rank) const {
    std::vector<int> x(lengths.size());
    for (int i = 0; i < dimensions(); ++i) x[i] = coordinate(rank, i);
    return x;
  }
  int rank_at(std::span<const int> x) const {
    int r = 0;
    for (int i = dimensions() - 1; i >= 0; --i) r = r * lengths[i] + x[i];
    return r;
  }
  // The rank that differs from `rank` only in dimension i, where it has coordinate c.
  int with_coordinate(int rank, int i, int c) const {
    return rank + (c - coordinate(rank, i)) * stride(i);
  }
};

// The linear array of p nodes (no wraparound).
MeshShape linear_shape(int p);

// The shape of a group of p nodes on `topology` (null: no topology) whose rank r is node
// r of the machine when `identity` holds (see the header comment).
MeshShape mesh_shape(const Topology* topology, int p, bool identity);
// The shape of the group whose rank r is node members[r] (empty: the whole machine, rank r
// on node r, of p nodes).
MeshShape mesh_shape(const Topology* topology, int p, std::span<const int> members);

// The prime factors of m in non-decreasing order (m >= 1; empty for 1). 004 §5.2.
std::vector<int> prime_factors(int m);

}  // namespace vmc::patterns
