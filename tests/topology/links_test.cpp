// Directed link ids are dense (0..link_count()-1, each a distinct adjacent pair), agree
// with link_between and neighbours, and big networks build quickly without tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "tests/topology/sweep.hpp"
#include "topology/full.hpp"
#include "topology/grid.hpp"
#include "topology/topology.hpp"

namespace vmc {
namespace {

void expect_links_consistent(const Topology& t) {
  std::set<std::pair<int, int>> seen;
  for (LinkId id = 0; id < t.link_count(); ++id) {
    const DirectedLink l = t.link(id);
    ASSERT_TRUE(l.from >= 0 && l.from < t.vertices() && l.to >= 0 && l.to < t.vertices());
    ASSERT_NE(l.from, l.to);
    ASSERT_TRUE(seen.emplace(l.from, l.to).second) << "two ids for " << l.from << "->" << l.to;
    ASSERT_EQ(t.link_between(l.from, l.to), id);
  }
  std::size_t adjacent = 0;
  for (int v = 0; v < t.vertices(); ++v) {
    const std::vector<int> around = t.neighbours(v);
    ASSERT_TRUE(std::is_sorted(around.begin(), around.end()));
    ASSERT_TRUE(std::adjacent_find(around.begin(), around.end()) == around.end());
    adjacent += around.size();
    for (int u : around) {
      ASSERT_TRUE(seen.count({v, u})) << v << " -> " << u << " has no link";
      const auto back = t.neighbours(u);
      ASSERT_TRUE(std::binary_search(back.begin(), back.end(), v)) << "not symmetric";
    }
    if (t.vertices() > 64) continue;
    for (int u = 0; u < t.vertices(); ++u) {
      if (!std::binary_search(around.begin(), around.end(), u)) {
        ASSERT_EQ(t.link_between(v, u), -1) << v << " " << u;
      }
    }
  }
  ASSERT_EQ(adjacent, static_cast<std::size_t>(t.link_count()));
  ASSERT_EQ(t.link_count(), 2 * t.properties().links);
}

class LinkTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LinkTest, IdsAreDenseAndConsistent) {
  const auto t = parse_topology(GetParam());
  expect_links_consistent(*t);
  EXPECT_THROW(t->link(-1), std::out_of_range);
  EXPECT_THROW(t->link(t->link_count()), std::out_of_range);
  EXPECT_THROW(t->neighbours(t->vertices()), std::out_of_range);
  EXPECT_THROW(t->link_between(0, t->vertices()), std::out_of_range);
  EXPECT_EQ(t->link_between(0, 0), -1);
}

INSTANTIATE_TEST_SUITE_P(Sweep, LinkTest, ::testing::ValuesIn(test::sweep_specs()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(Links, DegenerateRingsAndLengthTwoWraps) {
  EXPECT_EQ(parse_topology("ring:1")->link_count(), 0);
  EXPECT_EQ(parse_topology("ring:2")->link_count(), 2);  // one pair, not a doubled link
  EXPECT_EQ(parse_topology("ring:3")->link_count(), 6);
  EXPECT_EQ(parse_topology("torus:2x2")->link_count(), 8);  // a square, like mesh:2x2
  EXPECT_EQ(parse_topology("torus:2x3")->link_count(), 2 * (3 + 2 * 3));
  EXPECT_EQ(parse_topology("tree:1")->vertices(), 1);
  EXPECT_EQ(parse_topology("tree:1")->link_count(), 0);
  EXPECT_EQ(parse_topology("tree:2")->vertices(), 3);
}

TEST(Links, CoordinatesFollowTheConventions) {
  const auto mesh = parse_topology("mesh:4x3x5");
  EXPECT_EQ(mesh->coordinates(0), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(mesh->coordinates(1 + 4 * (2 + 3 * 4)), (std::vector<int>{1, 2, 4}));
  const auto& grid = dynamic_cast<const Grid&>(*mesh);
  for (int v = 0; v < mesh->nodes(); ++v) EXPECT_EQ(grid.node_at(mesh->coordinates(v)), v);
  EXPECT_THROW(grid.node_at(std::vector<int>{4, 0, 0}), std::out_of_range);
  EXPECT_EQ(parse_topology("hypercube:8")->coordinates(6), (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(parse_topology("hypercube:5")->coordinates(4), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(parse_topology("ring:7")->coordinates(3), (std::vector<int>{3}));
  EXPECT_EQ(parse_topology("tree:7")->coordinates(3), (std::vector<int>{3}));
  EXPECT_EQ(parse_topology("full:7")->coordinates(3), (std::vector<int>{3}));
  EXPECT_THROW(parse_topology("tree:7")->coordinates(7), std::out_of_range);  // a switch
}

TEST(Links, BigNetworksBuildAndRouteWithoutTables) {
  for (const char* spec : {"hypercube:65536", "hypercube:65535", "hypercube:1048576",
                           "mesh:256x256", "torus:256x256", "torus:1024x1024", "tree:65536",
                           "tree:1000003", "ring:1048576", "mesh:8x8x8x8x8x8", "full:1024"}) {
    const auto t = parse_topology(spec);
    const int p = t->nodes();
    for (int a : {0, 1, p / 3, p / 2, p - 1}) {
      for (int b : {0, p / 5, p / 2 + 1, p - 2 >= 0 ? p - 2 : 0, p - 1}) {
        int at = a;
        for (LinkId id : t->route(a, b)) {
          ASSERT_EQ(t->link(id).from, at) << spec;
          ASSERT_EQ(t->link_between(at, t->link(id).to), id) << spec;
          at = t->link(id).to;
        }
        ASSERT_EQ(at, b) << spec;
      }
    }
  }
}

TEST(Links, FullIdsAreArithmeticUpToTheLargestSize) {
  const FullyConnected full(kMaxFullNodes);
  const LinkId last = full.link_count() - 1;
  EXPECT_EQ(full.link(last).from, kMaxFullNodes - 1);
  EXPECT_EQ(full.link(last).to, kMaxFullNodes - 2);
  EXPECT_EQ(full.link_between(kMaxFullNodes - 1, kMaxFullNodes - 2), last);
  EXPECT_EQ(full.link(1024).from, 0);
  EXPECT_EQ(full.link(kMaxFullNodes - 1).from, 1);
  EXPECT_EQ(full.link(kMaxFullNodes - 1).to, 0);
}

}  // namespace
}  // namespace vmc
