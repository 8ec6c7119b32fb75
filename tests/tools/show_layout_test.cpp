// The plane layout `vmc show` draws networks with (tools/show_layout.hpp), held in its own
// coordinates: hypercubes of every dimension up to 7 keep every node's box clear of every
// other node's and of every link that does not end at it, and each d-cube is its two
// (d-1)-cubes side by side, alternately along x and y.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tools/show_layout.hpp"
#include "topology/topology.hpp"

namespace vmc::cli {
namespace {

PlaneDrawing drawing_of(const std::string& spec) { return plane_drawing(*parse_topology(spec)); }

// Whether point q lies inside the node box centred on c (a touch is not inside).
bool inside(const PlaneDrawing& d, PlanePoint c, PlanePoint q) {
  const double eps = 1e-9;
  return std::abs(q.x - c.x) < d.node_width / 2 - eps &&
         std::abs(q.y - c.y) < d.node_height / 2 - eps;
}

TEST(ShowLayout, HypercubeNodeBoxesNeverOverlap) {
  for (int p = 2; p <= 128; ++p) {
    const PlaneDrawing d = drawing_of("hypercube:" + std::to_string(p));
    ASSERT_GT(d.node_width, 0);
    ASSERT_GT(d.node_height, 0);
    ASSERT_EQ(d.vertex.size(), static_cast<std::size_t>(p));
    for (int u = 0; u < p; ++u) {
      for (int v = u + 1; v < p; ++v) {
        const double dx = std::abs(d.vertex[u].x - d.vertex[v].x);
        const double dy = std::abs(d.vertex[u].y - d.vertex[v].y);
        EXPECT_TRUE(dx >= d.node_width - 1e-9 || dy >= d.node_height - 1e-9)
            << "hypercube:" << p << ": the boxes of nodes " << u << " and " << v << " overlap";
      }
    }
  }
}

TEST(ShowLayout, HypercubeLinksPassNoNode) {
  for (int p = 2; p <= 128; ++p) {
    const PlaneDrawing d = drawing_of("hypercube:" + std::to_string(p));
    for (const PlaneEdge& e : d.edges) {
      for (int i = 0; i <= 120; ++i) {
        const PlanePoint q = edge_point(d, e, i / 120.0);
        for (int v = 0; v < p; ++v) {
          if (v == e.a || v == e.b) continue;
          ASSERT_FALSE(inside(d, d.vertex[v], q))
              << "hypercube:" << p << ": link " << e.a << " - " << e.b << " (dimension "
              << e.dimension << ") passes through node " << v << " at " << q.x << ", " << q.y;
        }
      }
    }
  }
}

// Dimension k moves every node by one and the same step, along x for even k and along y for
// odd k, and the two halves it joins do not overlap (side by side); links of dimensions 0
// and 1 are straight, the others lifted off their line.
TEST(ShowLayout, HypercubeIsTwoHalvesSideBySideAlternately) {
  for (int d = 1; d <= 7; ++d) {
    const int p = 1 << d;
    const PlaneDrawing drawing = drawing_of("hypercube:" + std::to_string(p));
    for (int k = 0; k < d; ++k) {
      SCOPED_TRACE("hypercube:" + std::to_string(p) + " dimension " + std::to_string(k));
      const PlanePoint first = drawing.vertex[1 << k];
      const double step = k % 2 == 0 ? first.x : first.y;
      EXPECT_GT(step, 0);
      EXPECT_EQ(k % 2 == 0 ? first.y : first.x, 0);
      // The half with bit k set lies wholly beyond the lower half of its sub-cube.
      double low_end = -1e9, high_start = 1e9;
      for (int v = 0; v < (2 << k); ++v) {
        const PlanePoint a = drawing.vertex[v];
        const double along = k % 2 == 0 ? a.x : a.y;
        if ((v >> k) & 1) high_start = std::min(high_start, along);
        else low_end = std::max(low_end, along);
      }
      EXPECT_GT(high_start - low_end, (k % 2 == 0 ? drawing.node_width : drawing.node_height));
      for (int v = 0; v < p; ++v) {
        if ((v >> k) & 1) continue;
        const PlanePoint a = drawing.vertex[v], b = drawing.vertex[v | (1 << k)];
        EXPECT_NEAR(b.x - a.x, k % 2 == 0 ? step : 0, 1e-9) << v;
        EXPECT_NEAR(b.y - a.y, k % 2 == 0 ? 0 : step, 1e-9) << v;
      }
    }
    for (const PlaneEdge& e : drawing.edges) {
      EXPECT_EQ(e.a ^ e.b, 1 << e.dimension);
      EXPECT_EQ(e.lifted, e.dimension >= 2) << e.a << " - " << e.b;
      EXPECT_EQ(e.bend != 0, e.dimension >= 2) << e.a << " - " << e.b;
    }
  }
}

// Other networks keep the page's own node sizes.
TEST(ShowLayout, OnlyHypercubesGiveANodeBox) {
  for (const char* spec : {"mesh:4x4", "ring:8", "tree:8", "full:5"}) {
    const PlaneDrawing d = drawing_of(spec);
    EXPECT_EQ(d.node_width, 0) << spec;
    EXPECT_EQ(d.node_height, 0) << spec;
  }
}

// A quadratic bend's middle is `bend` to the left of the line; so is a lifted one's.
TEST(ShowLayout, EdgePointsFollowTheBend) {
  PlaneDrawing d;
  d.vertex = {{0, 0}, {4, 0}};
  for (bool lifted : {false, true}) {
    const PlaneEdge e{0, 1, 0, 0.5, lifted};
    const PlanePoint start = edge_point(d, e, 0), middle = edge_point(d, e, 0.5);
    const PlanePoint end = edge_point(d, e, 1);
    EXPECT_DOUBLE_EQ(start.x, 0);
    EXPECT_DOUBLE_EQ(end.x, 4);
    EXPECT_NEAR(middle.x, 2, 1e-12);
    EXPECT_NEAR(middle.y, 0.5, 1e-12);  // left of a rightward line is up
  }
  // Lifted: it leaves its end at a right angle (straight up at first).
  const PlanePoint early = edge_point(d, PlaneEdge{0, 1, 0, 0.5, true}, 0.01);
  EXPECT_GT(early.y, 10 * early.x);
}

}  // namespace
}  // namespace vmc::cli
