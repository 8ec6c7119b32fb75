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

int highest_bit(unsigned x) {
  int k = 0;
  while (x > 1) {
    x >>= 1;
    ++k;
  }
  return k;
}

// Hypercubes (show_layout.hpp): dimension k runs along x when k is even and along y when it
// is odd, and moves a node by step[k]. Dimensions 0 and 1 make a square; each higher
// dimension moves by the extent of the dimensions below it on its axis plus a gap, so the
// two halves it joins stand side by side (001's construction of a d-cube from two
// (d-1)-cubes). Its links are lifted into the gaps: a link along x runs below the row of its
// ends when they are the lower corners of their squares and above it when they are the
// upper ones, a link along y left or right of its column the same way, so no link passes
// through a node and the rows' and columns' gaps hold them.
constexpr double kColumn = 1.2;       // step of dimension 0
constexpr double kRow = 1.2;          // step of dimension 1
constexpr double kNodeWidth = 0.8;    // the box each node's drawing keeps inside
constexpr double kNodeHeight = 0.95;
constexpr double kClearance = 0.06;   // between a lifted link and the box of a node it passes
constexpr double kArcGap = 0.2;       // between the links lifted into a gap from its two sides
constexpr double kMinGap = 1.4;       // the narrowest gap between squares or blocks
constexpr double kLevelGap = 0.5;     // each level's gaps wider than the level's below

struct CubePlan {
  std::vector<double> step;  // per dimension
  std::vector<double> lift;  // per dimension: how far its links stand off their line
};

// How far a lifted link (a cubic curve whose two control points stand c off its line) is
// off its line, as a fraction of c, at fraction f of the way along it: along 3t^2 - 2t^3,
// off 3t(1 - t).
double lift_at(double f) {
  double lo = 0, hi = 0.5;
  for (int i = 0; i < 50; ++i) {
    const double t = (lo + hi) / 2;
    (3 * t * t - 2 * t * t * t < f ? lo : hi) = t;
  }
  return 3 * lo * (1 - lo);
}

CubePlan cube_plan(int d) {
  CubePlan plan{std::vector<double>(d, 0.0), std::vector<double>(d, 0.0)};
  double gap[2] = {kMinGap, kMinGap};  // along x, along y
  // The steps set the links' lengths, their lengths their lifts, and the lifts the gaps the
  // steps hold: a few rounds settle them.
  for (int round = 0; round < 8; ++round) {
    double extent[2] = {0, 0};
    for (int k = 0; k < d; ++k) {
      const int axis = k % 2, level = k / 2;
      plan.step[k] = level == 0 ? (axis == 0 ? kColumn : kRow)
                                : extent[axis] + gap[axis] + kLevelGap * (level - 1);
      extent[axis] += plan.step[k];
    }
    double widest[2] = {0, 0};  // the largest lift into the gaps along x, along y
    for (int k = 2; k < d; ++k) {
      const int axis = k % 2;
      // It passes nearest the boxes of its ends' neighbours along its axis: it stands clear
      // of them from their near edge on.
      const double near_edge = axis == 0 ? kColumn - kNodeWidth / 2 : kRow - kNodeHeight / 2;
      const double clear = (axis == 0 ? kNodeHeight : kNodeWidth) / 2 + kClearance;
      plan.lift[k] = 0.75 * clear / lift_at(near_edge / plan.step[k]);
      widest[1 - axis] = std::max(widest[1 - axis], plan.lift[k]);
    }
    for (int axis : {0, 1}) gap[axis] = std::max(kMinGap, 2 * widest[axis] + kArcGap);
  }
  return plan;
}

std::vector<PlanePoint> hypercube_points(const Hypercube& h, const CubePlan& plan) {
  std::vector<PlanePoint> out(h.nodes());
  for (int v = 0; v < h.nodes(); ++v) {
    for (int k = 0; k < h.dimension(); ++k) {
      if (((v >> k) & 1) == 0) continue;
      (k % 2 == 0 ? out[v].x : out[v].y) += plan.step[k];
    }
  }
  return out;
}

// A hypercube link between a and b = a + 2^k: lifted out of its row (k even) below the
// lower corners of the squares and above the upper ones, out of its column (k odd) left of
// the left corners and right of the right ones. The bend is to the left of a -> b, which
// runs right (left is up) or up (left is x's way down).
PlaneEdge hypercube_edge(const CubePlan& plan, int a, int b) {
  const int k = highest_bit(static_cast<unsigned>(a ^ b));
  PlaneEdge e{a, b, k, 0.0, k >= 2};
  if (k >= 2) {
    const bool outer = k % 2 == 0 ? ((a >> 1) & 1) == 1 : (a & 1) == 1;  // upper / right
    e.bend = (k % 2 == 0) == outer ? plan.lift[k] : -plan.lift[k];
  }
  return e;
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
  CubePlan plan;
  if (grid != nullptr) {
    GridPlan plan = grid_points(*grid);
    out.vertex = std::move(plan.points);
    ring = plan.ring;
  } else if (cube != nullptr) {
    plan = cube_plan(cube->dimension());
    out.vertex = hypercube_points(*cube, plan);
    out.node_width = kNodeWidth;
    out.node_height = kNodeHeight;
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
        e = hypercube_edge(plan, key.first, key.second);
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

PlanePoint edge_point(const PlaneDrawing& d, const PlaneEdge& e, double f) {
  const PlanePoint p0 = d.vertex[e.a], p3 = d.vertex[e.b];
  const double dx = p3.x - p0.x, dy = p3.y - p0.y, length = std::hypot(dx, dy);
  const double nx = length > 0 ? -dy / length : 0, ny = length > 0 ? dx / length : 0;  // left
  PlanePoint p1, p2;
  if (e.lifted) {  // both control points 4/3 bend off the line: its middle is bend off
    const double c = e.bend * 4 / 3;
    p1 = {p0.x + nx * c, p0.y + ny * c};
    p2 = {p3.x + nx * c, p3.y + ny * c};
  } else {  // the quadratic through the middle point, its control 2 bend off, as a cubic
    const PlanePoint q{(p0.x + p3.x) / 2 + 2 * e.bend * nx, (p0.y + p3.y) / 2 + 2 * e.bend * ny};
    p1 = {p0.x + 2 * (q.x - p0.x) / 3, p0.y + 2 * (q.y - p0.y) / 3};
    p2 = {p3.x + 2 * (q.x - p3.x) / 3, p3.y + 2 * (q.y - p3.y) / 3};
  }
  const double g = 1 - f;
  const double w0 = g * g * g, w1 = 3 * g * g * f, w2 = 3 * g * f * f, w3 = f * f * f;
  return {w0 * p0.x + w1 * p1.x + w2 * p2.x + w3 * p3.x,
          w0 * p0.y + w1 * p1.y + w2 * p2.y + w3 * p3.y};
}

}  // namespace vmc::cli
