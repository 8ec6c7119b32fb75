// The grid family: meshes of any number of dimensions and lengths, each dimension either
// open (a linear array) or closed into a ring. It covers array:P (a 1-D mesh), ring:P
// (a 1-D torus), mesh:AxB[x...], torus:AxB[x...] (every dimension wraps) and meshes that
// wrap in chosen dimensions ("mesh:4x5w": dimension 1 wraps). Sources: 001 "Static
// interconnection networks" (ring, 2-D mesh and torus); 003 §4.1.1-4.1.2; 004 §2
// assumption 4 (dimension-order routing, lowest dimension first).
//
// Conventions:
// - node id = x0 + L0*(x1 + L1*(x2 + ...)): dimension 0 varies fastest.
// - A dimension of length 1 has no links; a wrapped dimension of length 2 has one link
//   pair per line, not two (ring:2 is a single pair of links), so it behaves as open.
// - Routing is dimension order, dimension 0 first; on a ring the shorter way around,
//   the positive (increasing-coordinate) direction on a tie. Around failed links
//   (route_around) any dimension order, and on a ring either way round.
// - Directed link ids are grouped by dimension: dimension d's undirected edges are
//   numbered line by line (a line is all nodes that differ only in coordinate d), edge x
//   of a line joining coordinates x and x+1 (mod L on a ring); edge e has the ids
//   base_d + 2e (towards x+1) and base_d + 2e + 1 (towards x). Nothing is stored per link.
#pragma once

#include <span>

#include "topology/topology.hpp"

namespace vmc {

// Most dimensions a grid may have (lengths of 1 count).
inline constexpr int kMaxGridDimensions = 20;

class Grid final : public Topology {
 public:
  // How spec() names the grid: array:P and ring:P keep their names; any other grid is
  // printed as torus:... when every dimension wraps and as mesh:... otherwise.
  enum class Style { array, ring, mesh };

  // lengths[d] >= 1, product <= kMaxNodes; wraps[d] closes dimension d into a ring.
  // Style::array needs one open dimension and Style::ring one wrapped dimension.
  // Throws TopologyError otherwise.
  Grid(std::vector<int> lengths, std::vector<bool> wraps, Style style);

  std::string spec() const override;
  int nodes() const override { return nodes_; }
  int link_count() const override { return link_count_; }
  DirectedLink link(LinkId id) const override;
  LinkClass link_class(LinkId id) const override;  // the dimension it runs along
  LinkId link_between(int a, int b) const override;
  std::vector<int> neighbours(int v) const override;
  void route(int a, int b, std::vector<LinkId>& out) const override;
  using Topology::route;
  // Any dimension order, and on a ring either way round (topology.hpp): fewest hops first;
  // among ways round of equal hops, the one whose rings going the other way, read as a
  // binary number (the lowest ring dimension a and b differ in as bit 0), is smallest.
  bool route_around(int a, int b, std::span<const LinkId> down,
                    std::vector<LinkId>& out) const override;
  std::vector<int> coordinates(int v) const override;
  TopologyProperties properties() const override;
  std::string routing() const override;

  int dimensions() const { return static_cast<int>(dims_.size()); }
  int length(int d) const { return dims_.at(d).length; }
  // Dimension d was asked to wrap around.
  bool wraps(int d) const { return dims_.at(d).wrap; }
  // Dimension d is a ring of distinct links: it wraps and its length is at least 3.
  bool cyclic(int d) const { return dims_.at(d).cyclic; }
  // The node with these coordinates (one per dimension); throws std::out_of_range.
  int node_at(std::span<const int> coords) const;

 private:
  struct Dim {
    int length = 1;
    int stride = 1;   // product of the lengths of the lower dimensions
    int edges = 0;    // undirected edges per line: L-1 open, L on a ring
    bool wrap = false;
    bool cyclic = false;
    LinkId base = 0;  // first directed link id of this dimension
  };
  static int coordinate(int v, const Dim& dim) { return v / dim.stride % dim.length; }
  static int line_of(int v, const Dim& dim) {
    return v % dim.stride + dim.stride * (v / (dim.stride * dim.length));
  }
  static bool shorter_way_up(const Dim& dim, int xa, int xb);
  static int hops(const Dim& dim, int xa, int xb, bool up);
  // Appends the links from node `at` along dim to coordinate xb, going up or down.
  void stretch(int at, const Dim& dim, int xb, bool up, std::vector<LinkId>& out) const;
  std::optional<int> bisection_width() const;

  std::vector<Dim> dims_;
  int nodes_ = 1;
  LinkId link_count_ = 0;
  Style style_;
};

// Exact bisection width of a 2-D grid with lengths a (dimension 0) and b (dimension 1),
// both >= 2, each dimension a ring (cyclic) or open; empty when the argument in grid.cpp
// cannot settle it. Exposed for the tests.
std::optional<int> grid_2d_bisection_width(int a, bool a_cyclic, int b, bool b_cyclic);

}  // namespace vmc
