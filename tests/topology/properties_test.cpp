// Properties: the formulas of the family files against exhaustive computation (BFS,
// max-flow, enumeration of balanced splits), and against the table of 001 "Static
// interconnection networks" for rings, 2-D square meshes and tori, and hypercubes.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/sanitized.hpp"
#include "tests/topology/sweep.hpp"
#include "topology/exhaustive.hpp"
#include "topology/grid.hpp"
#include "topology/hypercube.hpp"
#include "topology/topology.hpp"
#include "topology/tree.hpp"

namespace vmc {
namespace {

std::string spec_of(const char* family, int p) { return std::string(family) + ":" + std::to_string(p); }

std::string grid_spec(int a, bool wa, int b, bool wb) {
  return "mesh:" + std::to_string(a) + (wa ? "w" : "") + "x" + std::to_string(b) + (wb ? "w" : "");
}

void expect_same(const TopologyProperties& formula, const TopologyProperties& exact,
                 const std::string& spec) {
  EXPECT_EQ(formula.nodes, exact.nodes) << spec;
  EXPECT_EQ(formula.switches, exact.switches) << spec;
  EXPECT_EQ(formula.links, exact.links) << spec;
  EXPECT_EQ(formula.degree_min, exact.degree_min) << spec;
  EXPECT_EQ(formula.degree_max, exact.degree_max) << spec;
  EXPECT_EQ(formula.diameter, exact.diameter) << spec;
  EXPECT_EQ(formula.connectivity, exact.connectivity) << spec;
  EXPECT_EQ(formula.bisection_width, exact.bisection_width) << spec;
}

// Every network of the sweep small enough to enumerate, plus more small shapes.
std::vector<std::string> small_specs() {
  std::vector<std::string> specs;
  for (const std::string& spec : test::sweep_specs())
    if (parse_topology(spec)->vertices() <= exhaustive::kSmallVertices) specs.push_back(spec);
  for (int p = 1; p <= 10; ++p) specs.push_back(spec_of("tree", p));
  for (int a = 1; a <= 20; ++a)
    for (int b = 1; a * b <= 20; ++b)
      for (int wraps = 0; wraps < 4; ++wraps) specs.push_back(grid_spec(a, wraps & 1, b, wraps & 2));
  for (const char* s : {"mesh:2x2x5", "torus:2x2x5", "mesh:2x3x3", "torus:2x3x3", "mesh:2x2x2x2",
                        "torus:2x2x2x2", "mesh:3wx2x3", "mesh:3x3x2w"})
    specs.push_back(s);
  return specs;
}

TEST(Properties, FormulasMatchExhaustiveComputationOnEverySmallNetwork) {
  for (const std::string& spec : small_specs()) {
    const auto t = parse_topology(spec);
    expect_same(t->properties(), exhaustive::properties(*t), spec);
  }
}

// The 2-D bisection argument of grid.cpp, alone (properties() would fill a gap from the
// exhaustive computation on small grids): it must give a value, and the right one.
TEST(Properties, TwoDimensionalBisectionFormulaIsExact) {
  // The exhaustive width doubles with every node: under the sanitizers to 20 nodes.
  const int most = vmc::testing::kSanitized ? 20 : 26;
  for (int a = 2; a <= 13; ++a) {
    for (int b = 2; a * b <= most; ++b) {
      for (int wraps = 0; wraps < 4; ++wraps) {
        const bool wa = wraps & 1;
        const bool wb = wraps & 2;
        const auto formula = grid_2d_bisection_width(a, wa, b, wb);
        ASSERT_TRUE(formula.has_value()) << grid_spec(a, wa, b, wb);
        EXPECT_EQ(*formula, exhaustive::bisection_width(*parse_topology(grid_spec(a, wa, b, wb))))
            << grid_spec(a, wa, b, wb);
      }
    }
  }
}

TEST(Properties, TwoDimensionalBisectionFormulaIsKnownForLargeGrids) {
  for (int a = 2; a <= 60; ++a) {
    for (int b = 2; b <= 60; ++b) {
      for (int wraps = 0; wraps < 4; ++wraps) {
        const auto width = grid_2d_bisection_width(a, wraps & 1, b, wraps & 2);
        ASSERT_TRUE(width.has_value()) << grid_spec(a, wraps & 1, b, wraps & 2);
        // Never more than the straight cut across the longer dimension plus a jog.
        EXPECT_LE(*width, 2 * std::min(a, b) + 2);
      }
    }
  }
}

// The bisection width of a grid counted from its shape alone: lengths and wraps give the
// edges (neighbours along each dimension; a wrap edge where the dimension wraps and has at
// least 3 nodes), and every choice of floor(P/2) nodes as one half is tried, the edges
// between the halves counted. Independent of the topology's link list and of exhaustive.cpp.
int bisection_by_count(const std::vector<int>& lengths, const std::vector<bool>& wraps) {
  int nodes = 1;
  for (int l : lengths) nodes *= l;
  std::vector<std::pair<int, int>> edges;
  for (int v = 0; v < nodes; ++v) {
    int stride = 1;
    for (std::size_t d = 0; d < lengths.size(); ++d) {
      const int x = v / stride % lengths[d];
      if (x + 1 < lengths[d]) edges.push_back({v, v + stride});
      if (x + 1 == lengths[d] && wraps[d] && lengths[d] >= 3) {
        edges.push_back({v, v - x * stride});
      }
      stride *= lengths[d];
    }
  }
  const int half = nodes / 2;
  if (half == 0) return 0;
  int best = static_cast<int>(edges.size());
  // Every set of `half` nodes, in increasing bit order (Gosper's hack).
  for (std::uint32_t set = (1u << half) - 1; set < (1u << nodes);) {
    int cut = 0;
    for (const auto& [a, b] : edges) cut += ((set >> a) & 1u) != ((set >> b) & 1u);
    best = std::min(best, cut);
    const std::uint32_t low = set & -set, ripple = set + low;
    set = (((ripple ^ set) >> 2) / low) | ripple;
  }
  return best;
}

TEST(Properties, GridBisectionMatchesAnIndependentCountInThreeAndFourDimensions) {
  int checked = 0;
  std::vector<std::vector<int>> shapes;
  for (int a = 2; a <= 5; ++a)
    for (int b = 2; b <= a; ++b)
      for (int c = 2; c <= b && a * b * c <= 20; ++c) {
        shapes.push_back({a, b, c});
        shapes.push_back({c, a, b});
      }
  shapes.push_back({2, 2, 2, 2});
  shapes.push_back({1, 2, 3, 3});
  shapes.push_back({3, 1, 2, 3});
  for (const std::vector<int>& lengths : shapes) {
    const int dims = static_cast<int>(lengths.size());
    for (int wraps = 0; wraps < (1 << dims); ++wraps) {
      std::vector<bool> wrap(dims);
      std::string spec = "mesh:";
      bool same_as_open = false;  // a wrap on fewer than 3 nodes adds no edge: seen already
      for (int d = 0; d < dims; ++d) {
        wrap[d] = (wraps >> d) & 1;
        same_as_open = same_as_open || (wrap[d] && lengths[d] < 3);
        spec += (d > 0 ? "x" : "") + std::to_string(lengths[d]) + (wrap[d] ? "w" : "");
      }
      if (same_as_open) continue;
      const std::optional<int> width = parse_topology(spec)->properties().bisection_width;
      ASSERT_TRUE(width.has_value()) << spec;
      EXPECT_EQ(*width, bisection_by_count(lengths, wrap)) << spec;
      ++checked;
    }
  }
  // The torus spelling (every dimension wraps), and a closed form: a grid whose every length
  // is 2 is the binary hypercube of P nodes, whose bisection width is P/2.
  const std::vector<std::pair<std::string, std::vector<int>>> tori = {
      {"torus:2x3x3", {2, 3, 3}}, {"torus:3x3x2", {3, 3, 2}}, {"torus:5x2x2", {5, 2, 2}}};
  for (const auto& [spec, lengths] : tori) {
    EXPECT_EQ(parse_topology(spec)->properties().bisection_width,
              bisection_by_count(lengths, std::vector<bool>(lengths.size(), true)))
        << spec;
  }
  for (int dims = 3; dims <= 6; ++dims) {
    std::string spec = "mesh:2";
    for (int d = 1; d < dims; ++d) spec += "x2";
    EXPECT_EQ(parse_topology(spec)->properties().bisection_width, (1 << dims) / 2) << spec;
  }
  EXPECT_GE(checked, 30);
}

TEST(Properties, HypercubeAndTreeBisectionMatchEnumerationBeyondTheSmallLimit) {
  for (int p = 21; p <= 26; ++p) {
    const auto cube = parse_topology(spec_of("hypercube", p));
    EXPECT_EQ(cube->properties().bisection_width, exhaustive::bisection_width(*cube)) << p;
  }
  for (int p = 11; p <= 13; ++p) {
    const auto tree = parse_topology(spec_of("tree", p));
    EXPECT_EQ(tree->properties().bisection_width, exhaustive::bisection_width(*tree)) << p;
  }
}

TEST(Properties, DiameterAndConnectivityMatchBfsAndMaxFlowOnTheSweep) {
  for (const std::string& spec : test::sweep_specs()) {
    const auto t = parse_topology(spec);
    if (t->vertices() > 300) continue;
    const TopologyProperties props = t->properties();
    EXPECT_EQ(props.diameter, exhaustive::diameter(*t)) << spec;
    EXPECT_EQ(props.connectivity, exhaustive::arc_connectivity(*t)) << spec;
  }
  for (int p = 1; p <= 200; ++p) {
    const auto tree = parse_topology(spec_of("tree", p));
    EXPECT_EQ(tree->properties().diameter, exhaustive::diameter(*tree)) << p;
    const auto cube = parse_topology(spec_of("hypercube", p));
    EXPECT_EQ(cube->properties().connectivity, exhaustive::arc_connectivity(*cube)) << p;
  }
}

TEST(Properties, ExactValuesAreKnownBeyondTheExhaustiveRange) {
  for (const char* spec : {"full:1000", "ring:1001", "array:999", "mesh:100x37", "torus:64x63",
                           "mesh:40wx25", "mesh:1x1x300", "hypercube:1000", "hypercube:4096",
                           "tree:1000", "mesh:2x2x2x2x2x2", "torus:2x2x2x2x2x2x2"}) {
    const TopologyProperties props = parse_topology(spec)->properties();
    EXPECT_TRUE(props.diameter && props.connectivity && props.bisection_width) << spec;
  }
  EXPECT_EQ(parse_topology("mesh:2x2x2x2x2x2")->properties().bisection_width, 32);
  EXPECT_EQ(parse_topology("torus:2x2x2x2x2x2x2")->properties().bisection_width, 64);
}

TEST(Properties, UnknownWithoutAFormulaBeyondTheExhaustiveRange) {
  for (const char* spec : {"mesh:3x3x3", "mesh:4x4x4", "torus:4x4x4", "torus:3x3x3"}) {
    const TopologyProperties props = parse_topology(spec)->properties();
    EXPECT_FALSE(props.bisection_width.has_value()) << spec;
    EXPECT_TRUE(props.diameter.has_value() && props.connectivity.has_value()) << spec;
  }
  EXPECT_EQ(parse_topology("mesh:2x3x3")->properties().bisection_width, 9);  // small: enumerated
}

// 001 "Static interconnection networks": ring diameter floor(p/2), connectivity 2,
// bisection 2.
TEST(Properties, RingMatchesTheTable) {
  for (int p = 3; p <= 200; ++p) {
    const TopologyProperties props = parse_topology(spec_of("ring", p))->properties();
    EXPECT_EQ(props.diameter, p / 2) << p;
    EXPECT_EQ(props.connectivity, 2) << p;
    EXPECT_EQ(props.bisection_width, 2) << p;
  }
  const TopologyProperties two = parse_topology("ring:2")->properties();  // degenerate
  EXPECT_EQ(two.links, 1);
  EXPECT_EQ(two.diameter, 1);
  EXPECT_EQ(two.connectivity, 1);
  EXPECT_EQ(two.bisection_width, 1);
  const TopologyProperties one = parse_topology("ring:1")->properties();
  EXPECT_EQ(one.links, 0);
  EXPECT_EQ(one.diameter, 0);
  EXPECT_EQ(one.connectivity, 0);
  EXPECT_EQ(one.bisection_width, 0);
}

// Square mesh: diameter 2(sqrt p - 1), connectivity 2, bisection sqrt p. The table's
// bisection is for an even side; an odd side n needs n + 1 (grid.cpp).
TEST(Properties, SquareMeshMatchesTheTable) {
  for (int n = 2; n <= 40; ++n) {
    const TopologyProperties props =
        parse_topology("mesh:" + std::to_string(n) + "x" + std::to_string(n))->properties();
    EXPECT_EQ(props.diameter, 2 * (n - 1)) << n;
    EXPECT_EQ(props.connectivity, 2) << n;
    EXPECT_EQ(props.bisection_width, n % 2 == 0 ? n : n + 1) << n;
    EXPECT_EQ(props.links, 2 * n * (n - 1)) << n;
  }
}

// Square torus: diameter 2 floor(sqrt p / 2), connectivity 4, bisection 2 sqrt p (even
// side; an odd side n needs 2n + 2).
TEST(Properties, SquareTorusMatchesTheTable) {
  for (int n = 3; n <= 40; ++n) {
    const TopologyProperties props =
        parse_topology("torus:" + std::to_string(n) + "x" + std::to_string(n))->properties();
    EXPECT_EQ(props.diameter, 2 * (n / 2)) << n;
    EXPECT_EQ(props.connectivity, 4) << n;
    EXPECT_EQ(props.bisection_width, n % 2 == 0 ? 2 * n : 2 * n + 2) << n;
    EXPECT_EQ(props.links, 2 * n * n) << n;
  }
}

// Hypercube: diameter log2 p, connectivity log2 p, bisection p/2.
TEST(Properties, HypercubeMatchesTheTable) {
  for (int d = 0; d <= 20; ++d) {
    const int p = 1 << d;
    const TopologyProperties props = parse_topology(spec_of("hypercube", p))->properties();
    EXPECT_EQ(props.diameter, d);
    EXPECT_EQ(props.connectivity, d);
    EXPECT_EQ(props.bisection_width, p / 2);
    EXPECT_EQ(props.degree_min, d);
    EXPECT_EQ(props.links, d * p / 2);
  }
  const TopologyProperties cube64 = parse_topology("hypercube:64")->properties();
  EXPECT_EQ(cube64.diameter, 6);
  EXPECT_EQ(cube64.connectivity, 6);
  EXPECT_EQ(cube64.bisection_width, 32);
}

TEST(Properties, IncompleteHypercube) {
  const TopologyProperties five = parse_topology("hypercube:5")->properties();
  EXPECT_EQ(five.diameter, 3);
  EXPECT_EQ(five.degree_min, 1);  // node 4 hangs on node 0
  EXPECT_EQ(five.degree_max, 3);
  EXPECT_EQ(five.connectivity, 1);
  EXPECT_EQ(five.bisection_width, 2);
  const TopologyProperties twelve = parse_topology("hypercube:12")->properties();
  EXPECT_EQ(twelve.links, 20);
  EXPECT_EQ(twelve.diameter, 4);
  EXPECT_EQ(twelve.connectivity, 3);
  EXPECT_EQ(twelve.bisection_width, 6);
  for (int p = 1; p <= 1024; ++p) {
    const Hypercube cube(p);
    int least = cube.dimension();
    for (int v = 0; v < p; ++v) least = std::min(least, std::popcount(cube.dimensions_of(v)));
    EXPECT_EQ(hypercube_min_degree(p), least) << p;
  }
}

TEST(Properties, TreeAndFull) {
  const TopologyProperties tree = parse_topology("tree:8")->properties();
  EXPECT_EQ(tree.switches, 7);
  EXPECT_EQ(tree.links, 14);
  EXPECT_EQ(tree.diameter, 6);  // 2 log2 p
  EXPECT_EQ(tree.connectivity, 1);
  EXPECT_EQ(tree.bisection_width, 1);
  EXPECT_EQ(parse_topology("tree:5")->properties().diameter, 2 + 2 + 1);
  const TopologyProperties full = parse_topology("full:7")->properties();
  EXPECT_EQ(full.diameter, 1);
  EXPECT_EQ(full.connectivity, 6);
  EXPECT_EQ(full.bisection_width, 12);
  EXPECT_EQ(full.links, 21);
}

TEST(Exhaustive, KnownSmallValuesAndLimits) {
  EXPECT_EQ(exhaustive::bisection_width(*parse_topology("full:6")), 9);
  EXPECT_EQ(exhaustive::bisection_width(*parse_topology("ring:9")), 2);
  EXPECT_EQ(exhaustive::bisection_width(*parse_topology("mesh:3x3")), 4);
  EXPECT_EQ(exhaustive::arc_connectivity(*parse_topology("mesh:3x3")), 2);
  EXPECT_EQ(exhaustive::diameter(*parse_topology("torus:5x5")), 4);
  EXPECT_EQ(exhaustive::distances_from(*parse_topology("tree:4"), 0),
            (std::vector<int>{0, 2, 4, 4, 2, 1, 3}));
  EXPECT_THROW(exhaustive::bisection_width(*parse_topology("ring:27")), std::invalid_argument);
  EXPECT_FALSE(exhaustive::properties(*parse_topology("ring:40")).bisection_width.has_value());
}

}  // namespace
}  // namespace vmc
