// The pure patterns of process topologies (mpi/topology.hpp): balanced dimensions, grid
// coordinates, shifts, neighbourhoods in the standard's order, and the placement of a grid
// on the machine's mesh, torus or hypercube.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

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

int gray(int x) { return x ^ (x >> 1); }

bool power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

int log2_of(int x) {
  int b = 0;
  while ((1 << b) < x) ++b;
  return b;
}

std::optional<Placement> on_grid(const Grid& g, std::span<const int> dims) {
  std::vector<int> grid_dims, cart_dims;  // the dimensions longer than 1
  for (int d = 0; d < g.dimensions(); ++d) {
    if (g.length(d) > 1) grid_dims.push_back(d);
  }
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    if (dims[static_cast<std::size_t>(d)] > 1) cart_dims.push_back(d);
  }
  if (grid_dims.size() != cart_dims.size()) return std::nullopt;
  const std::size_t n = cart_dims.size();
  auto matches = [&](bool reversed) {
    for (std::size_t i = 0; i < n; ++i) {
      const int along = grid_dims[reversed ? n - 1 - i : i];
      if (g.length(along) != dims[static_cast<std::size_t>(cart_dims[i])]) return false;
    }
    return true;
  };
  // Reversed first: a row-major grid on a machine whose dimension 0 varies fastest keeps every
  // rank where it was when the shapes agree that way.
  const bool reversed = matches(true);
  if (!reversed && !matches(false)) return std::nullopt;
  Placement p;
  const int size = static_cast<int>(grid_size(dims));
  p.node_of.resize(static_cast<std::size_t>(size));
  std::vector<int> machine(static_cast<std::size_t>(g.dimensions()), 0);
  for (int r = 0; r < size; ++r) {
    const std::vector<int> c = cart_coords(dims, r);
    for (std::size_t i = 0; i < n; ++i) {
      const int along = grid_dims[reversed ? n - 1 - i : i];
      machine[static_cast<std::size_t>(along)] = c[static_cast<std::size_t>(cart_dims[i])];
    }
    p.node_of[static_cast<std::size_t>(r)] = g.node_at(machine);
  }
  p.how = "grid coordinates = " + g.spec() + "'s machine coordinates" +
          (reversed && n > 1 ? " (grid dimension 0 along the machine's last)" : "");
  return p;
}

std::optional<Placement> on_hypercube(const Hypercube& h, std::span<const int> dims) {
  if (!power_of_two(h.nodes())) return std::nullopt;
  for (int d : dims) {
    if (!power_of_two(d)) return std::nullopt;
  }
  Placement p;
  const int size = h.nodes();
  p.node_of.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const std::vector<int> c = cart_coords(dims, r);
    int node = 0, shift = 0;
    for (std::size_t d = dims.size(); d-- > 0;) {
      node |= gray(c[d]) << shift;
      shift += log2_of(dims[d]);
    }
    p.node_of[static_cast<std::size_t>(r)] = node;
  }
  p.how = "grid coordinates Gray coded into " + h.spec() + "'s node bits";
  return p;
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

std::optional<Placement> machine_placement(const vmc::Topology& machine,
                                           std::span<const int> dims) {
  if (grid_size(dims) != machine.nodes()) return std::nullopt;
  if (const auto* g = dynamic_cast<const Grid*>(&machine)) return on_grid(*g, dims);
  if (const auto* h = dynamic_cast<const Hypercube*>(&machine)) return on_hypercube(*h, dims);
  return std::nullopt;
}

}  // namespace vmc::mpi
