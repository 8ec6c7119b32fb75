// Routes on every family: each starts and ends where asked, crosses existing links that
// chain, is a shortest path (BFS), is deterministic, and follows the family's routing
// rule exactly (dimension order, shorter way around rings, e-cube, up-and-down), checked
// against a reference written here from the rules in 001, 003 §4.1 and 004 §2.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <iterator>
#include <optional>
#include <random>
#include <span>
#include <utility>

#include "tests/sanitized.hpp"
#include "tests/topology/sweep.hpp"
#include "topology/exhaustive.hpp"
#include "topology/grid.hpp"
#include "topology/hypercube.hpp"
#include "topology/topology.hpp"
#include "topology/tree.hpp"

namespace vmc {
namespace {

// The vertices a message from a to b should visit, from the routing rules alone.
std::vector<int> reference_path(const Topology& t, int a, int b) {
  std::vector<int> path{a};
  if (const auto* g = dynamic_cast<const Grid*>(&t)) {
    std::vector<int> at = g->coordinates(a);
    const std::vector<int> to = g->coordinates(b);
    for (int d = 0; d < g->dimensions(); ++d) {
      const int length = g->length(d);
      while (at[d] != to[d]) {
        int step = to[d] > at[d] ? 1 : -1;
        if (g->cyclic(d)) {
          const int forward = ((to[d] - at[d]) % length + length) % length;
          step = forward <= length - forward ? 1 : -1;
        }
        at[d] = (at[d] + step + length) % length;
        path.push_back(g->node_at(at));
      }
    }
  } else if (const auto* h = dynamic_cast<const Hypercube*>(&t)) {
    int at = a;
    auto flip_in_order = [&](int bits) {
      for (int k = 0; k < h->dimension(); ++k)
        if ((bits >> k) & 1) path.push_back(at ^= 1 << k);
    };
    if (h->complete()) {
      flip_in_order(a ^ b);
    } else {
      flip_in_order(a & ~b);
      flip_in_order(b & ~a);
    }
  } else if (const auto* tree = dynamic_cast<const Tree*>(&t)) {
    std::vector<int> up_from_b{b};
    while (up_from_b.back() != tree->root()) up_from_b.push_back(tree->parent(up_from_b.back()));
    int at = a;
    auto on_b_side = [&](int v) { return std::find(up_from_b.begin(), up_from_b.end(), v); };
    while (on_b_side(at) == up_from_b.end()) path.push_back(at = tree->parent(at));
    for (auto it = std::make_reverse_iterator(on_b_side(at)); it != up_from_b.rend(); ++it)
      path.push_back(*it);
  } else if (a != b) {
    path.push_back(b);  // full: direct
  }
  return path;
}

// The pairs checked on t: all of them for small networks, else a fixed sample.
std::vector<std::pair<int, int>> pairs_of(const Topology& t) {
  std::vector<std::pair<int, int>> pairs;
  const int p = t.nodes();
  if (p <= 48) {
    for (int a = 0; a < p; ++a)
      for (int b = 0; b < p; ++b) pairs.emplace_back(a, b);
    return pairs;
  }
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> node(0, p - 1);
  for (int v = 0; v < p; ++v) {
    pairs.emplace_back(0, v);
    pairs.emplace_back(v, p - 1);
  }
  for (int i = 0; i < 1500; ++i) pairs.emplace_back(node(rng), node(rng));
  return pairs;
}

class RouteTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RouteTest, RoutesAreShortestChainsFollowingTheRoutingRule) {
  const auto topology = parse_topology(GetParam());
  const Topology& t = *topology;
  std::vector<std::vector<int>> distance(t.nodes());
  for (const auto& [a, b] : pairs_of(t)) {
    if (distance[a].empty()) distance[a] = exhaustive::distances_from(t, a);
    std::vector<LinkId> route{-7};  // route() appends
    t.route(a, b, route);
    ASSERT_EQ(route.front(), -7);
    route.erase(route.begin());
    ASSERT_EQ(static_cast<int>(route.size()), distance[a][b]) << a << " -> " << b;
    const std::vector<int> expected = reference_path(t, a, b);
    ASSERT_EQ(route.size() + 1, expected.size()) << a << " -> " << b;
    int at = a;
    for (std::size_t i = 0; i < route.size(); ++i) {
      ASSERT_GE(route[i], 0);
      ASSERT_LT(route[i], t.link_count());
      const DirectedLink hop = t.link(route[i]);
      ASSERT_EQ(hop.from, at) << a << " -> " << b << " hop " << i;
      ASSERT_EQ(hop.to, expected[i + 1]) << a << " -> " << b << " hop " << i;
      at = hop.to;
    }
    ASSERT_EQ(at, b);
    ASSERT_EQ(t.route(a, b), route) << "not deterministic";
  }
}

TEST_P(RouteTest, RouteIntoWritesTheSameRouteWhereItFits) {
  // route_into (the simulator's short routes kept in place) gives route()'s links when its
  // span has room for them, -1 when it is one link short, and writes nothing past its span.
  const auto topology = parse_topology(GetParam());
  const Topology& t = *topology;
  for (const auto& [a, b] : pairs_of(t)) {
    const std::vector<LinkId> route = t.route(a, b);
    std::vector<LinkId> room(route.size() + 1, -7);
    const std::span<LinkId> exact(room.data(), route.size());
    ASSERT_EQ(t.route_into(a, b, exact), static_cast<int>(route.size())) << a << " -> " << b;
    ASSERT_TRUE(std::equal(route.begin(), route.end(), room.begin())) << a << " -> " << b;
    ASSERT_EQ(room.back(), -7) << a << " -> " << b << ": written past the span";
    if (!route.empty()) {
      std::fill(room.begin(), room.end(), -7);
      ASSERT_EQ(t.route_into(a, b, exact.first(route.size() - 1)), -1) << a << " -> " << b;
      ASSERT_EQ(room[route.size() - 1], -7) << a << " -> " << b << ": written past the span";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, RouteTest, ::testing::ValuesIn(test::sweep_specs()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(IncompleteHypercube, RoutesStayInsideAndHaveHammingLength) {
  // Every pair: under the sanitizers to 160 nodes (a sixth of the routes), every kind of
  // incomplete cube all the same.
  const int most = vmc::testing::kSanitized ? 160 : 300;
  for (int p = 1; p <= most; ++p) {
    const Hypercube h(p);
    for (int a = 0; a < p; ++a) {
      for (int b = 0; b < p; ++b) {
        const std::vector<LinkId> route = h.route(a, b);
        ASSERT_EQ(static_cast<int>(route.size()), std::popcount(static_cast<unsigned>(a ^ b)));
        for (LinkId id : route) {
          const DirectedLink hop = h.link(id);
          ASSERT_LT(hop.to, p) << "hypercube:" << p << " " << a << " -> " << b;
          ASSERT_EQ(std::popcount(static_cast<unsigned>(hop.from ^ hop.to)), 1);
        }
      }
    }
  }
}

TEST(IncompleteHypercube, PlainECubeWouldLeaveTheNodes) {
  // The reason for clearing before setting: from 2 (10) to 1 (01) in hypercube:3, e-cube
  // would flip bit 0 first and visit 3; vmc clears bit 1 first and passes through 0.
  const auto cube = parse_topology("hypercube:3");
  const auto route = cube->route(2, 1);
  ASSERT_EQ(route.size(), 2u);
  EXPECT_EQ(cube->link(route[0]).to, 0);
  // Likewise from 4 (100) to 3 (011) in hypercube:5: not 5, but 0, then 1 and 3.
  const auto five = parse_topology("hypercube:5");
  const auto longer = five->route(4, 3);
  ASSERT_EQ(longer.size(), 3u);
  EXPECT_EQ(five->link(longer[0]).to, 0);
  EXPECT_EQ(five->link(longer[1]).to, 1);
}

TEST(CompleteHypercube, ECubeCorrectsBitsInIncreasingOrder) {
  const auto h = parse_topology("hypercube:8");
  // 001 "E-cube routing example": 100 -> 101 -> 001.
  const auto route = h->route(4, 1);
  ASSERT_EQ(route.size(), 2u);
  EXPECT_EQ(h->link(route[0]).to, 5);
  EXPECT_EQ(h->link(route[1]).to, 1);
}

TEST(Torus, TiesGoThePositiveWay) {
  const auto ring = parse_topology("ring:6");
  const auto route = ring->route(1, 4);
  ASSERT_EQ(route.size(), 3u);
  EXPECT_EQ(ring->link(route[0]).to, 2);
  const auto torus = parse_topology("torus:4x4");
  const auto wrap = torus->route(3, 1);  // distance 2 either way: positive, through 0
  ASSERT_EQ(wrap.size(), 2u);
  EXPECT_EQ(torus->link(wrap[0]).to, 0);
}

TEST(Mesh, DimensionZeroFirst) {
  const auto mesh = parse_topology("mesh:6x5");
  const auto route = mesh->route(0, 29);  // (0,0) -> (5,4)
  ASSERT_EQ(route.size(), 9u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(mesh->link(route[i]).to, i + 1);
  for (int i = 5; i < 9; ++i) EXPECT_EQ(mesh->link(route[i]).to, 5 + 6 * (i - 4));
}

TEST(Tree, RoutesClimbToTheCommonSwitchAndDescend) {
  const auto tree = parse_topology("tree:8");
  const auto route = tree->route(0, 7);
  ASSERT_EQ(route.size(), 6u);  // 3 up, 3 down
  for (int i = 0; i < 3; ++i) EXPECT_GE(tree->link(route[i]).to, 8);
  EXPECT_EQ(tree->link(route[2]).to, 8);  // the root
  EXPECT_EQ(tree->link(route[5]).to, 7);
  EXPECT_EQ(tree->route(2, 3).size(), 2u);
}

TEST(Routes, OutOfRangeNodesThrow) {
  for (const char* spec : {"full:4", "ring:4", "mesh:2x2", "hypercube:5", "tree:4"}) {
    const auto t = parse_topology(spec);
    std::vector<LinkId> out;
    EXPECT_THROW(t->route(-1, 0, out), std::out_of_range) << spec;
    EXPECT_THROW(t->route(0, t->nodes(), out), std::out_of_range) << spec;
  }
  // A switch is not a processing node.
  EXPECT_THROW(parse_topology("tree:4")->route(0, 5), std::out_of_range);
}

// --- routes around failed links (Topology::route_around; docs/model.md, "Failed links") -------

// The route around `down` that the rule picks, from the rule alone, hop by hop: on a grid every
// choice of ways round the rings in which a and b differ, fewest hops first, then the choice as
// a binary number (bit i: the i-th such ring goes the longer way, or the negative way on a
// tie), and for each every order of the differing dimensions in lexicographic order; on a
// hypercube every order of the differing bits whose labels stay below P. Empty when none
// avoids `down`; every other family: route(a, b) if it avoids `down`.
std::optional<std::vector<LinkId>> reference_around(const Topology& t, int a, int b,
                                                    const std::vector<LinkId>& down) {
  auto avoids = [&](const std::vector<LinkId>& r) {
    return std::none_of(r.begin(), r.end(), [&](LinkId l) {
      return std::find(down.begin(), down.end(), l) != down.end();
    });
  };
  if (const auto* g = dynamic_cast<const Grid*>(&t)) {
    const std::vector<int> from = g->coordinates(a), to = g->coordinates(b);
    std::vector<int> differ, ring;
    for (int d = 0; d < g->dimensions(); ++d) {
      if (from[d] == to[d]) continue;
      if (g->cyclic(d)) ring.push_back(d);
      differ.push_back(d);
    }
    auto up_hops = [&](int d) { return ((to[d] - from[d]) % g->length(d) + g->length(d)) % g->length(d); };
    std::vector<std::pair<int, unsigned>> ways;
    for (unsigned longer = 0; longer < (1u << ring.size()); ++longer) {
      int extra = 0;
      for (std::size_t i = 0; i < ring.size(); ++i) {
        const int up = up_hops(ring[i]), down_hops = g->length(ring[i]) - up;
        if ((longer >> i) & 1u) extra += std::max(up, down_hops) - std::min(up, down_hops);
      }
      ways.emplace_back(extra, longer);
    }
    std::sort(ways.begin(), ways.end());
    for (const auto& [extra, longer] : ways) {
      std::vector<int> order = differ;
      do {
        std::vector<int> at = from;
        std::vector<LinkId> r;
        for (int d : order) {
          int step = to[d] > from[d] ? 1 : -1;
          if (g->cyclic(d)) step = up_hops(d) <= g->length(d) - up_hops(d) ? 1 : -1;
          const auto it = std::find(ring.begin(), ring.end(), d);
          if (it != ring.end() && ((longer >> (it - ring.begin())) & 1u)) step = -step;
          while (at[d] != to[d]) {
            const int v = g->node_at(at);
            at[d] = (at[d] + step + g->length(d)) % g->length(d);
            r.push_back(g->link_between(v, g->node_at(at)));
          }
        }
        if (avoids(r)) return r;
      } while (std::next_permutation(order.begin(), order.end()));
    }
    return std::nullopt;
  }
  if (const auto* h = dynamic_cast<const Hypercube*>(&t)) {
    std::vector<int> bits;
    for (int k = 0; k < h->dimension(); ++k)
      if (((a ^ b) >> k) & 1) bits.push_back(k);
    do {
      std::vector<LinkId> r;
      int at = a;
      bool inside = true;
      for (int k : bits) {
        if ((at ^ (1 << k)) >= h->nodes()) inside = false;
        if (!inside) break;
        r.push_back(h->link_between(at, at ^ (1 << k)));
        at ^= 1 << k;
      }
      if (inside && avoids(r)) return r;
    } while (std::next_permutation(bits.begin(), bits.end()));
    return std::nullopt;
  }
  const std::vector<LinkId> r = t.route(a, b);
  if (avoids(r)) return r;
  return std::nullopt;
}

// Every pair of nodes, with each link down (both directions), and with pairs of links down
// (every link with a few others), on small networks of every family.
TEST(RouteAround, TakesTheFirstDimensionOrderedRouteThatAvoidsTheLinksDown) {
  for (const char* spec : {"mesh:3x4", "mesh:4x4", "torus:4x4", "torus:5x3", "torus:3x3x3",
                           "mesh:2x3x4", "mesh:4x5w", "ring:6", "ring:7", "array:5",
                           "hypercube:8", "hypercube:16", "hypercube:13", "hypercube:6",
                           "tree:8", "full:5"}) {
    SCOPED_TRACE(spec);
    const auto t = parse_topology(spec);
    std::vector<std::vector<LinkId>> cases{{}};
    for (LinkId l = 0; l < t->link_count(); ++l) {
      const DirectedLink e = t->link(l);
      if (e.from > e.to) continue;
      const LinkId back = t->link_between(e.to, e.from);
      cases.push_back({l, back});
      const LinkId other = (l * 7 + 3) % t->link_count();
      const DirectedLink o = t->link(other);
      cases.push_back({l, back, other, t->link_between(o.to, o.from)});
    }
    for (std::vector<LinkId>& down : cases) {
      std::sort(down.begin(), down.end());
      down.erase(std::unique(down.begin(), down.end()), down.end());
      for (int a = 0; a < t->nodes(); ++a) {
        for (int b = 0; b < t->nodes(); ++b) {
          std::vector<LinkId> got{-7};  // route_around appends
          const bool found = t->route_around(a, b, down, got);
          const auto want = reference_around(*t, a, b, down);
          ASSERT_EQ(found, want.has_value()) << a << " -> " << b;
          if (!found) {
            EXPECT_EQ(got, std::vector<LinkId>{-7});
            continue;
          }
          got.erase(got.begin());
          ASSERT_EQ(got, *want) << a << " -> " << b;
        }
      }
    }
  }
}

TEST(RouteAround, WithNothingDownItIsTheRoute) {
  for (const char* spec : {"mesh:4x5", "torus:4x6", "torus:3x4x5", "mesh:4x5w", "ring:8",
                           "hypercube:16", "tree:6", "full:4", "array:4"}) {
    const auto t = parse_topology(spec);
    for (int a = 0; a < t->nodes(); ++a) {
      for (int b = 0; b < t->nodes(); ++b) {
        std::vector<LinkId> around;
        ASSERT_TRUE(t->route_around(a, b, {}, around));
        EXPECT_EQ(around, t->route(a, b)) << spec << " " << a << " -> " << b;
      }
    }
  }
}

TEST(RouteAround, ExamplesOfTheDocs) {
  // mesh:4x4 routes x first: 0 -> 5 crosses 0-1 and 1-5; with 1-5 down, y first: 0-4-5.
  const auto mesh = parse_topology("mesh:4x4");
  auto both = [](const Topology& t, int x, int y) {
    std::vector<LinkId> d{t.link_between(x, y), t.link_between(y, x)};
    std::sort(d.begin(), d.end());
    return d;
  };
  auto path = [](const Topology& t, const std::vector<LinkId>& r) {
    std::vector<int> v;
    for (LinkId l : r) v.push_back(t.link(l).to);
    return v;
  };
  std::vector<LinkId> r;
  ASSERT_TRUE(mesh->route_around(0, 5, both(*mesh, 1, 5), r));
  EXPECT_EQ(path(*mesh, r), (std::vector<int>{4, 5}));
  // Neighbours on an open line have no other route.
  r.clear();
  EXPECT_FALSE(mesh->route_around(0, 4, both(*mesh, 0, 4), r));
  // On a ring the other way round, longer: torus:4x4, 0 -> 1 with 0-1 down: 0-3-2-1.
  const auto torus = parse_topology("torus:4x4");
  r.clear();
  ASSERT_TRUE(torus->route_around(0, 1, both(*torus, 0, 1), r));
  EXPECT_EQ(path(*torus, r), (std::vector<int>{3, 2, 1}));
  // A tie: 0 -> 2 goes 0-1-2, and with 1-2 down 0-3-2, as short.
  r.clear();
  ASSERT_TRUE(torus->route_around(0, 2, both(*torus, 1, 2), r));
  EXPECT_EQ(path(*torus, r), (std::vector<int>{3, 2}));
  // A hypercube: 0 -> 3 goes 0-1-3, and with 0-1 down 0-2-3; 0 -> 4 has no other route.
  const auto cube = parse_topology("hypercube:8");
  r.clear();
  ASSERT_TRUE(cube->route_around(0, 3, both(*cube, 0, 1), r));
  EXPECT_EQ(path(*cube, r), (std::vector<int>{2, 3}));
  r.clear();
  EXPECT_FALSE(cube->route_around(0, 4, both(*cube, 0, 4), r));
}

}  // namespace
}  // namespace vmc
