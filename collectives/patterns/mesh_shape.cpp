// The shape of a group as a mesh (mesh_shape.hpp).
#include "collectives/patterns/mesh_shape.hpp"

#include <algorithm>
#include <bit>
#include <optional>

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

namespace {

// The members as a sub-mesh of a mesh or torus (see the header), or nothing.
std::optional<MeshShape> sub_mesh(const Grid& g, std::span<const int> members) {
  const int d = g.dimensions();
  const int p = static_cast<int>(members.size());
  std::vector<std::vector<int>> coords(p);
  for (int r = 0; r < p; ++r) coords[r] = g.coordinates(members[r]);
  // Per dimension: the coordinates the members take, an arithmetic progression a + k j.
  std::vector<int> first(d), step(d), count(d);
  for (int i = 0; i < d; ++i) {
    std::vector<int> v;
    v.reserve(p);
    for (int r = 0; r < p; ++r) v.push_back(coords[r][i]);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    first[i] = v[0];
    count[i] = static_cast<int>(v.size());
    step[i] = count[i] > 1 ? v[1] - v[0] : 1;
    for (int j = 1; j < count[i]; ++j) {
      if (v[j] - v[j - 1] != step[i]) return std::nullopt;
    }
  }
  MeshShape s;
  std::vector<int> kept;
  for (int i = 0; i < d; ++i) {
    if (count[i] == 1) continue;
    kept.push_back(i);
    s.lengths.push_back(count[i]);
    s.wraps.push_back(g.cyclic(i) && count[i] >= 3 && count[i] * step[i] == g.length(i));
  }
  if (s.lengths.empty()) return std::nullopt;  // one node: the caller's linear shape
  if (s.size() != p) return std::nullopt;
  // Rank r must sit at the sub-mesh's r-th position, dimension 0 fastest.
  std::vector<int> x(kept.size());
  for (int r = 0; r < p; ++r) {
    for (std::size_t j = 0; j < kept.size(); ++j) {
      x[j] = (coords[r][kept[j]] - first[kept[j]]) / step[kept[j]];
    }
    if (s.rank_at(x) != r) return std::nullopt;
  }
  return s;
}

// The members as a subcube of a complete hypercube (bits that vary, in increasing order,
// are rank r's bits), or nothing.
std::optional<MeshShape> sub_cube(std::span<const int> members) {
  const int p = static_cast<int>(members.size());
  unsigned varying = 0;
  for (int w : members) varying |= static_cast<unsigned>(w ^ members[0]);
  const int v = std::popcount(varying);
  if (v == 0 || p != 1 << v) return std::nullopt;
  for (int r = 0; r < p; ++r) {
    unsigned w = static_cast<unsigned>(members[r]), bits = 0;
    for (int b = 0, j = 0; b < 32; ++b) {
      if ((varying >> b & 1u) != 0) bits |= (w >> b & 1u) << j++;
    }
    if (static_cast<int>(bits) != r) return std::nullopt;
  }
  return MeshShape{std::vector<int>(v, 2), std::vector<bool>(v, false)};
}

}  // namespace

MeshShape mesh_shape(const Topology* topology, int p, std::span<const int> members) {
  if (members.empty()) return mesh_shape(topology, p, true);
  if (topology == nullptr || p <= 1 || static_cast<int>(members.size()) != p) {
    return linear_shape(p);
  }
  std::optional<MeshShape> s;
  if (const auto* g = dynamic_cast<const Grid*>(topology)) {
    s = sub_mesh(*g, members);
  } else if (const auto* h = dynamic_cast<const Hypercube*>(topology); h && h->complete()) {
    s = sub_cube(members);
  }
  return s ? *s : linear_shape(p);
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
