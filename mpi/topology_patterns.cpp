// The pure patterns of process topologies (mpi/topology.hpp): balanced dimensions, grid
// coordinates, shifts, neighbourhoods in the standard's order, and the placement of a grid
// on the machine's mesh, torus or hypercube.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>

#include "mpi/topology.hpp"
#include "topology/grid.hpp"
#include "topology/hypercube.hpp"

namespace vmc::mpi {
namespace {

// The divisors of m, ascending.
std::vector<int> divisors(int m) {
  std::vector<int> low, high;
  for (int d = 1; static_cast<long long>(d) * d <= m; ++d) {
    if (m % d != 0) continue;
    low.push_back(d);
    if (d != m / d) high.push_back(m / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

// Fills out[at..at+k) with the lexicographically smallest non-increasing sequence of k
// divisors of m, each at most `cap`, whose product is m; false when there is none. `failed`
// remembers (m, k, cap) that had none.
bool fill_balanced(int m, int k, int cap, const std::vector<int>& candidates,
                   std::vector<int>& out, std::size_t at,
                   std::set<std::tuple<int, int, int>>& failed) {
  if (k == 0) return m == 1;
  if (failed.count({m, k, cap}) != 0) return false;
  // The first (largest) entry is at least the k-th root of m.
  const double root = std::pow(static_cast<double>(m), 1.0 / k);
  for (int d : candidates) {
    if (d > cap || d > m) break;
    if (m % d != 0 || static_cast<double>(d) < root - 1e-9) continue;
    out[at] = d;
    if (fill_balanced(m / d, k - 1, d, candidates, out, at + 1, failed)) return true;
  }
  failed.insert({m, k, cap});
  return false;
}

bool power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

int log2_of(int x) {
  int b = 0;
  while ((1 << b) < x) ++b;
  return b;
}

// The reflected Gray code's inverse: the x whose code x ^ (x >> 1) is g.
int gray_inverse(int g) {
  int x = 0;
  for (; g != 0; g >>= 1) x ^= g;
  return x;
}

// How a grid lies on a mesh or torus: grid dimension along[i].first runs along machine
// dimension along[i].second (the dimensions longer than 1 of each, paired in reverse order
// when the lengths allow, else in the same order).
struct GridMatch {
  std::vector<std::pair<int, int>> along;
  bool reversed = false;
};

std::optional<GridMatch> grid_match(const Grid& g, std::span<const int> dims) {
  std::vector<int> machine, grid;  // the dimensions longer than 1
  for (int d = 0; d < g.dimensions(); ++d) {
    if (g.length(d) > 1) machine.push_back(d);
  }
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    if (dims[static_cast<std::size_t>(d)] > 1) grid.push_back(d);
  }
  if (machine.size() != grid.size()) return std::nullopt;
  const std::size_t n = grid.size();
  for (const bool reversed : {true, false}) {
    GridMatch m;
    m.reversed = reversed;
    for (std::size_t i = 0; i < n; ++i) {
      const int on = machine[reversed ? n - 1 - i : i];
      if (g.length(on) != dims[static_cast<std::size_t>(grid[i])]) break;
      m.along.emplace_back(grid[i], on);
    }
    if (m.along.size() == n) return m;
  }
  return std::nullopt;
}

bool fits_hypercube(const Hypercube& h, std::span<const int> dims) {
  if (!power_of_two(h.nodes())) return false;
  return std::all_of(dims.begin(), dims.end(), power_of_two);
}

}  // namespace

std::vector<int> balanced_dims(int nnodes, std::span<const int> dims) {
  std::vector<int> out(dims.begin(), dims.end());
  int m = nnodes, k = 0;
  for (int d : dims) {
    if (d > 0) {
      m /= d;
    } else {
      ++k;
    }
  }
  std::vector<int> free(static_cast<std::size_t>(k), 1);
  std::set<std::tuple<int, int, int>> failed;
  fill_balanced(m, k, m, divisors(m), free, 0, failed);  // k >= 1 always succeeds: m, 1, 1...
  std::size_t next = 0;
  for (int& d : out) {
    if (d == 0) d = free[next++];
  }
  return out;
}

long long grid_size(std::span<const int> dims) {
  long long n = 1;
  for (int d : dims) n *= d;
  return n;
}

std::vector<int> cart_coords(std::span<const int> dims, int rank) {
  std::vector<int> c(dims.size());
  for (std::size_t d = dims.size(); d-- > 0;) {
    c[d] = rank % dims[d];
    rank /= dims[d];
  }
  return c;
}

int cart_rank(std::span<const int> dims, std::span<const int> coords) {
  int r = 0;
  for (std::size_t d = 0; d < dims.size(); ++d) r = r * dims[d] + coords[d];
  return r;
}

Shift cart_shift(const ProcessTopology& t, int rank, int direction, int disp) {
  const std::size_t d = static_cast<std::size_t>(direction);
  const int length = t.dims[d];
  std::vector<int> c = cart_coords(t.dims, rank);
  const int here = c[d];
  auto at = [&](long long x) {
    if (t.periods[d] != 0) {
      x %= length;
      if (x < 0) x += length;
    } else if (x < 0 || x >= length) {
      return MPI_PROC_NULL;
    }
    c[d] = static_cast<int>(x);
    return cart_rank(t.dims, c);
  };
  Shift s;
  s.source = at(static_cast<long long>(here) - disp);
  s.dest = at(static_cast<long long>(here) + disp);
  return s;
}

Neighbourhood neighbourhood(const ProcessTopology& t, int rank) {
  Neighbourhood n;
  if (t.kind == MPI_CART) {
    for (int d = 0; d < static_cast<int>(t.dims.size()); ++d) {
      const Shift s = cart_shift(t, rank, d, 1);
      n.sources.push_back({s.source, 2 * d + 1});
      n.sources.push_back({s.dest, 2 * d});
      n.destinations.push_back({s.source, 2 * d});
      n.destinations.push_back({s.dest, 2 * d + 1});
    }
  } else if (t.kind == MPI_GRAPH) {
    const int first = rank == 0 ? 0 : t.index[static_cast<std::size_t>(rank) - 1];
    for (int e = first; e < t.index[static_cast<std::size_t>(rank)]; ++e) {
      n.sources.push_back({t.edges[static_cast<std::size_t>(e)], 0});
    }
    n.destinations = n.sources;
  } else if (t.kind == MPI_DIST_GRAPH) {
    for (int s : t.sources) n.sources.push_back({s, 0});
    for (int d : t.destinations) n.destinations.push_back({d, 0});
  }
  return n;
}

std::optional<std::string> machine_placement(const vmc::Topology& machine,
                                             std::span<const int> dims) {
  if (grid_size(dims) != machine.nodes()) return std::nullopt;
  if (const auto* g = dynamic_cast<const Grid*>(&machine)) {
    const std::optional<GridMatch> m = grid_match(*g, dims);
    if (!m) return std::nullopt;
    return "grid coordinates = " + g->spec() + "'s machine coordinates" +
           (m->reversed && m->along.size() > 1 ? " (grid dimension 0 along the machine's last)"
                                               : "");
  }
  if (const auto* h = dynamic_cast<const Hypercube*>(&machine)) {
    if (!fits_hypercube(*h, dims)) return std::nullopt;
    return "grid coordinates Gray coded into " + h->spec() + "'s node bits";
  }
  return std::nullopt;
}

int placed_rank(const vmc::Topology& machine, std::span<const int> dims, int node) {
  std::vector<int> c(dims.size(), 0);
  if (const auto* g = dynamic_cast<const Grid*>(&machine)) {
    const std::vector<int> at = g->coordinates(node);
    const GridMatch m = *grid_match(*g, dims);
    for (const auto& [grid, on] : m.along) {
      c[static_cast<std::size_t>(grid)] = at[static_cast<std::size_t>(on)];
    }
  } else {
    int shift = 0;
    for (std::size_t d = dims.size(); d-- > 0;) {
      c[d] = gray_inverse((node >> shift) & (dims[d] - 1));
      shift += log2_of(dims[d]);
    }
  }
  return cart_rank(dims, c);
}

}  // namespace vmc::mpi
