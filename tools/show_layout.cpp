#include "tools/show_layout.hpp"

#include <cmath>
#include <map>
#include <numbers>
#include <stdexcept>
#include <utility>

#include "topology/grid.hpp"
#include "topology/hypercube.hpp"
#include "topology/tree.hpp"

namespace vmc::cli {
namespace {

// Nodes on a circle, node 0 at the top, clockwise; about one unit between neighbours.
std::vector<PlanePoint> on_circle(int p) {
  const double radius = std::max(1.0, 1.3 * p / (2 * std::numbers::pi));
  std::vector<PlanePoint> out(p);
  for (int i = 0; i < p; ++i) {
    const double angle = std::numbers::pi / 2 - 2 * std::numbers::pi * i / p;
    out[i] = {radius * std::cos(angle), radius * std::sin(angle)};
  }
  return out;
}

// The 3-cube of bits 0..2 in oblique projection: bit 0 right, bit 1 up, bit 2 back.
PlanePoint cube_corner(int v) {
  return {2.0 * (v & 1) + 0.9 * ((v >> 2) & 1), 2.0 * ((v >> 1) & 1) + 0.75 * ((v >> 2) & 1)};
}

std::vector<PlanePoint> hypercube_points(const Hypercube& h) {
  const int d = h.dimension();
  std::vector<PlanePoint> out(h.nodes());
  for (int v = 0; v < h.nodes(); ++v) {
    if (d > 6) {
      // Bits alternately along x (even bits) and y (odd bits): a grid of 2^ceil(d/2) columns.
      int column = 0, row = 0;
      for (int k = 0; k < d; ++k) {
        if (k % 2 == 0) column |= ((v >> k) & 1) << (k / 2);
        else row |= ((v >> k) & 1) << (k / 2);
      }
      out[v] = {1.3 * column, 1.3 * row};
      continue;
    }
    // A d-cube is two (d-1)-cubes with their corresponding corners joined (001): the 3-cube
    // of bit 3 beside the first (a little higher, so dimension 3's links pass no corner),
    // the 4-cube of bit 4 above, the 5-cube of bit 5 beside.
    PlanePoint q = cube_corner(v & 7);
    q.x += 3.7 * ((v >> 3) & 1) + 7.8 * ((v >> 5) & 1);
    q.y += 0.35 * ((v >> 3) & 1) + 4.0 * ((v >> 4) & 1);
    out[v] = q;
  }
  return out;
}

std::vector<PlanePoint> tree_points(const Tree& t) {
  std::vector<PlanePoint> out(t.vertices());
  // Heights first (children before parents: switches are numbered breadth first, so
  // walking them backwards meets every child before its parent).
  for (int v = 0; v < t.nodes(); ++v) out[v] = {1.0 * v, 0.0};
  for (int v = t.vertices() - 1; v >= t.nodes(); --v) {
    const std::vector<int> children = t.children(v);
    double x = 0, y = 0;
    for (int c : children) {
      x += out[c].x;
      y = std::max(y, out[c].y);
    }
    out[v] = {x / children.size(), y + 1.2};
  }
  return out;
}

struct GridPlan {
  std::vector<PlanePoint> points;
  bool ring = false;
};

GridPlan grid_points(const Grid& g) {
  const int p = g.nodes();
  if (g.dimensions() == 1 || p == g.length(0)) {
    if (g.cyclic(0)) return {on_circle(p), true};
    std::vector<PlanePoint> line(p);
    for (int v = 0; v < p; ++v) line[v] = {1.0 * v, 0.0};
    return {line, false};
  }
  // Layers of dimensions 0 and 1 side by side, one per value of the higher coordinates.
  const double layer_width = g.length(0) + 1.0;
  std::vector<PlanePoint> out(p);
  for (int v = 0; v < p; ++v) {
    const std::vector<int> c = g.coordinates(v);
    int layer = 0;
    for (int d = g.dimensions() - 1; d >= 2; --d) layer = layer * g.length(d) + c[d];
    out[v] = {c[0] + layer * layer_width, 1.0 * c[1]};
  }
  return {out, false};
}

// The dimension a grid link crosses, and whether it is a wraparound link.
std::pair<int, bool> grid_dimension(const Grid& g, int a, int b) {
  const std::vector<int> ca = g.coordinates(a), cb = g.coordinates(b);
  for (int d = 0; d < g.dimensions(); ++d) {
    if (ca[d] != cb[d]) return {d, std::abs(ca[d] - cb[d]) > 1};
  }
  return {0, false};
}

int highest_bit(unsigned x) {
  int k = 0;
  while (x > 1) {
    x >>= 1;
    ++k;
  }
  return k;
}

}  // namespace

PlaneDrawing plane_drawing(const Topology& t) {
  if (t.nodes() > kMaxShownNodes) {
    throw std::invalid_argument("vmc show draws networks of at most " +
                                std::to_string(kMaxShownNodes) + " nodes, not " + t.spec());
  }
  PlaneDrawing out;
  const auto* grid = dynamic_cast<const Grid*>(&t);
  const auto* cube = dynamic_cast<const Hypercube*>(&t);
  const auto* tree = dynamic_cast<const Tree*>(&t);
  bool ring = false;
  if (grid != nullptr) {
    GridPlan plan = grid_points(*grid);
    out.vertex = std::move(plan.points);
    ring = plan.ring;
  } else if (cube != nullptr) {
    out.vertex = hypercube_points(*cube);
  } else if (tree != nullptr) {
    out.vertex = tree_points(*tree);
  } else {
    out.vertex = on_circle(t.nodes());
  }
  std::map<std::pair<int, int>, int> index;
  out.link_edge.resize(t.link_count());
  for (LinkId id = 0; id < t.link_count(); ++id) {
    const DirectedLink l = t.link(id);
    const std::pair<int, int> key{std::min(l.from, l.to), std::max(l.from, l.to)};
    auto [it, added] = index.emplace(key, static_cast<int>(out.edges.size()));
    if (added) {
      PlaneEdge e{key.first, key.second, 0, 0.0};
      if (cube != nullptr) {
        e.dimension = highest_bit(static_cast<unsigned>(key.first ^ key.second));
        if (e.dimension >= 3 || cube->dimension() > 6) e.bend = 0.3 + 0.1 * e.dimension;
      } else if (grid != nullptr && !ring) {
        const auto [dimension, wraps] = grid_dimension(*grid, key.first, key.second);
        e.dimension = dimension;
        if (wraps) e.bend = dimension == 0 ? -0.45 : 0.45;  // outside the row or column
        else if (dimension >= 2) e.bend = 0.35;             // between layers
      }
      out.edges.push_back(e);
    }
    out.link_edge[id] = it->second;
  }
  return out;
}

}  // namespace vmc::cli
