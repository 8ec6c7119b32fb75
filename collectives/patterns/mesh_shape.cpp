// The shape of a group as a mesh (mesh_shape.hpp).
#include "collectives/patterns/mesh_shape.hpp"

#include "topology/grid.hpp"
#include "topology/hypercube.hpp"

namespace vmc::patterns {

MeshShape linear_shape(int p) { return MeshShape{{p}, {false}}; }

MeshShape mesh_shape(const Topology* topology, int p, bool identity) {
  if (topology == nullptr || !identity || topology->nodes() != p || p <= 1) {
    return linear_shape(p);
  }
  MeshShape s;
  if (const auto* g = dynamic_cast<const Grid*>(topology)) {
    for (int i = 0; i < g->dimensions(); ++i) {
      if (g->length(i) == 1) continue;
      s.lengths.push_back(g->length(i));
      s.wraps.push_back(g->cyclic(i));
    }
  } else if (const auto* h = dynamic_cast<const Hypercube*>(topology); h && h->complete()) {
    s.lengths.assign(h->dimension(), 2);
    s.wraps.assign(h->dimension(), false);
  } else {
    return linear_shape(p);
  }
  return s;
}

std::vector<int> prime_factors(int m) {
  std::vector<int> f;
  for (int q = 2; q * q <= m; ++q) {
    while (m % q == 0) {
      f.push_back(q);
      m /= q;
    }
  }
  if (m > 1) f.push_back(m);
  return f;
}

}  // namespace vmc::patterns
