// Groups on meshes (004 §14, §15.3; docs/algorithms.md, "Automatic selection"): a group that
// forms a sub-mesh (a row, a column, a block, every k-th node of a dimension, a subcube) is
// run as a mesh of its own lengths on its real coordinates; any other group as a linear array
// of its members.
// - the shapes recognised, on 8x8, 7x11, 3x4x5, a torus and a hypercube, and the groups
//   that are not sub-meshes (a rank order that is not the sub-mesh's, gaps, checkerboards);
// - many groups running one collective each at once: every result right, and between
//   groups the contention their routes imply: none for rows, columns, blocks and planes
//   (each node ends when it ends with its group alone), some for interleaved groups whose
//   routes share links (a later end than alone, a contention delay).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/patterns/mesh_shape.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc::testing {
namespace {

using patterns::MeshShape;

// The nodes of `topology` whose coordinates pass `keep`, in world order.
std::vector<int> nodes_where(const Topology& t, const std::function<bool(std::vector<int>)>& keep) {
  std::vector<int> v;
  for (int w = 0; w < t.nodes(); ++w) {
    if (keep(t.coordinates(w))) v.push_back(w);
  }
  return v;
}

MeshShape shape(const Topology& t, const std::vector<int>& members) {
  return patterns::mesh_shape(&t, static_cast<int>(members.size()), members);
}

TEST(MeshGroups, SubMeshesAreRecognisedWithTheirLengths) {
  auto m8 = parse_topology("mesh:8x8");
  const std::vector<int> row = nodes_where(*m8, [](auto x) { return x[1] == 3; });
  EXPECT_EQ(shape(*m8, row).lengths, (std::vector<int>{8}));
  const std::vector<int> column = nodes_where(*m8, [](auto x) { return x[0] == 5; });
  EXPECT_EQ(shape(*m8, column).lengths, (std::vector<int>{8}));
  const std::vector<int> block =
      nodes_where(*m8, [](auto x) { return x[0] >= 2 && x[0] < 5 && x[1] >= 1 && x[1] < 5; });
  EXPECT_EQ(shape(*m8, block).lengths, (std::vector<int>{3, 4}));
  const std::vector<int> every_other =
      nodes_where(*m8, [](auto x) { return x[0] % 2 == 1 && x[1] % 3 == 0; });
  EXPECT_EQ(shape(*m8, every_other).lengths, (std::vector<int>{4, 3}));
  EXPECT_EQ(shape(*m8, every_other).wraps, (std::vector<bool>{false, false}));

  auto m711 = parse_topology("mesh:7x11");
  const std::vector<int> col7 = nodes_where(*m711, [](auto x) { return x[1] == 10; });
  EXPECT_EQ(shape(*m711, col7).lengths, (std::vector<int>{7}));
  const std::vector<int> right = nodes_where(*m711, [](auto x) { return x[1] >= 6; });
  EXPECT_EQ(shape(*m711, right).lengths, (std::vector<int>{7, 5}));

  auto m345 = parse_topology("mesh:3x4x5");
  const std::vector<int> plane = nodes_where(*m345, [](auto x) { return x[2] == 4; });
  EXPECT_EQ(shape(*m345, plane).lengths, (std::vector<int>{3, 4}));
  const std::vector<int> cube =
      nodes_where(*m345, [](auto x) { return x[0] < 2 && x[1] % 2 == 0 && x[2] >= 3; });
  EXPECT_EQ(shape(*m345, cube).lengths, (std::vector<int>{2, 2, 2}));

  // A torus: a whole ring (or every k-th node of it) keeps its wraparound link.
  auto t = parse_topology("torus:6x4");
  const MeshShape whole_row = shape(*t, nodes_where(*t, [](auto x) { return x[1] == 2; }));
  EXPECT_EQ(whole_row.lengths, (std::vector<int>{6}));
  EXPECT_EQ(whole_row.wraps, (std::vector<bool>{true}));
  const MeshShape thirds = shape(*t, nodes_where(*t, [](auto x) { return x[0] % 2 == 0; }));
  EXPECT_EQ(thirds.lengths, (std::vector<int>{3, 4}));
  EXPECT_EQ(thirds.wraps, (std::vector<bool>{true, true}));
  const MeshShape half_row =
      shape(*t, nodes_where(*t, [](auto x) { return x[1] == 0 && x[0] < 4; }));
  EXPECT_EQ(half_row.wraps, (std::vector<bool>{false}));

  // A subcube: the bits that vary, lowest first.
  auto h = parse_topology("hypercube:16");
  EXPECT_EQ(shape(*h, {0, 2, 8, 10}).lengths, (std::vector<int>{2, 2}));
  EXPECT_EQ(shape(*h, {5, 7, 13, 15}).lengths, (std::vector<int>{2, 2}));
}

TEST(MeshGroups, OtherGroupsAreLinearArrays) {
  auto m8 = parse_topology("mesh:8x8");
  const MeshShape linear6 = patterns::linear_shape(6);
  // A block in an order that is not its own (columns first), a block with a gap, and a
  // checkerboard.
  const std::vector<int> by_columns = {0, 8, 16, 1, 9, 17};
  EXPECT_EQ(shape(*m8, by_columns).lengths, linear6.lengths);
  EXPECT_EQ(shape(*m8, {0, 1, 2, 8, 9, 11}).lengths, linear6.lengths);
  const std::vector<int> board = nodes_where(*m8, [](auto x) { return (x[0] + x[1]) % 2 == 0; });
  EXPECT_EQ(shape(*m8, board).lengths, (std::vector<int>{32}));
  EXPECT_EQ(shape(*m8, {0, 2, 5}).lengths, (std::vector<int>{3}));  // uneven steps
  auto h = parse_topology("hypercube:16");
  EXPECT_EQ(shape(*h, {2, 0, 8, 10}).lengths, (std::vector<int>{4}));  // out of order
  EXPECT_EQ(shape(*h, {0, 1, 2}).lengths, (std::vector<int>{3}));
  auto tree = parse_topology("tree:8");
  EXPECT_EQ(shape(*tree, {0, 1, 2, 3}).lengths, (std::vector<int>{4}));
  // The whole machine in its own order is the machine's mesh.
  std::vector<int> all(64);
  for (int w = 0; w < 64; ++w) all[w] = w;
  EXPECT_EQ(shape(*m8, all).lengths, (std::vector<int>{8, 8}));
}

// A partition of a machine's nodes into groups: colour of each node (-1: in none).
using Partition = std::function<int(const std::vector<int>& coordinates)>;

struct GroupRun {
  RunResult result;
  bool correct = true;
};

// Every group of the partition (or only group `only`) runs `algorithm`'s allreduce of n
// int64 items at once, each node contributing items stamped with its world rank; checks
// every member's result.
GroupRun run_groups(Machine& m, const Partition& colour, const std::string& algorithm,
                    std::size_t n, int only = -1) {
  const Topology& t = m.topology();
  std::vector<int> colours(m.size());
  for (int w = 0; w < m.size(); ++w) colours[w] = colour(t.coordinates(w));
  std::atomic<bool> correct{true};
  const Op sum = ops::sum<std::int64_t>();
  RunResult r = m.run([&](Node& node) {
    const int c = colours[node.rank()];
    Comm g = node.world().split(c, node.rank());
    if (c < 0 || (only >= 0 && c != only)) return;
    std::vector<std::int64_t> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = node.rank() * 1000 + static_cast<int>(i);
    allreduce(g, std::span(x), sum, {.algorithm = algorithm});
    auto want = reference_of<std::int64_t>(
        {.op = Operation::allreduce, .members = g.size(), .n = n}, &sum,
        [&g](int r, std::size_t i) { return g.world_rank(r) * 1000 + std::int64_t(i); });
    if (x != expected_items<std::int64_t>(want, g.rank())) correct = false;
  });
  return {r, correct.load()};
}

// Runs the partition's groups at once and each alone: right results, and each node ends
// together exactly when it ends alone when `disjoint`, some node later otherwise.
void expect_groups(const std::string& topology, const Partition& colour, int groups,
                   bool disjoint, const std::string& what) {
  const Model model{.alpha = 10e-6, .beta = 1e-6, .gamma = 0.1e-6, .port = Port::duplex,
                    .contention = Contention::shared};
  Machine m({.topology = parse_topology(topology), .model = model, .trace = false});
  for (const std::string algorithm : {"auto", "mesh_dr"}) {
    const std::size_t n = 96;
    const GroupRun together = run_groups(m, colour, algorithm, n);
    EXPECT_TRUE(together.correct) << topology << " " << what << " " << algorithm;
    bool later = false;
    Picos delays_alone = 0;
    for (int g = 0; g < groups; ++g) {
      const GroupRun alone = run_groups(m, colour, algorithm, n, g);
      EXPECT_TRUE(alone.correct) << topology << " " << what << " group " << g;
      delays_alone += alone.result.stats().contention_delay;
      // The row's formula on the group (its sub-mesh, or its linear array) keeps its claim.
      if (algorithm != "auto") {
        std::vector<int> members;
        for (int w = 0; w < m.size(); ++w) {
          if (colour(m.topology().coordinates(w)) == g) members.push_back(w);
        }
        CostQuery q = make_query(m.topology(), model, static_cast<int>(members.size()), n, 0,
                                 sizeof(std::int64_t), true, {});
        q.members = members;
        const Algorithm& a = *find_algorithm(Operation::allreduce, algorithm);
        const Claim claim = claim_of(a, q);
        if (claim == Claim::exact) {
          EXPECT_EQ(alone.result.time_ps(), a.cost(q)) << topology << " " << what << " " << g;
        } else if (claim == Claim::lower_bound) {
          EXPECT_GE(alone.result.time_ps(), a.cost(q)) << topology << " " << what << " " << g;
        }
      }
      for (int w = 0; w < m.size(); ++w) {
        if (colour(m.topology().coordinates(w)) != g) continue;
        const double a = alone.result.node_time(w), b = together.result.node_time(w);
        if (disjoint) {
          EXPECT_EQ(b, a) << topology << " " << what << " " << algorithm << ": node " << w
                          << " of group " << g << " ends later beside the other groups";
        }
        EXPECT_GE(b, a) << topology << " " << what << " " << algorithm << " node " << w;
        later = later || b > a;
      }
    }
    // A group's messages may contend among themselves (auto's choice need not avoid it);
    // beside the others, only the delays their routes imply are added.
    if (disjoint) {
      EXPECT_EQ(together.result.stats().contention_delay, delays_alone)
          << topology << " " << what << " " << algorithm;
    } else {
      EXPECT_TRUE(later) << topology << " " << what << " " << algorithm
                         << ": groups whose routes share links never delayed each other";
      EXPECT_GT(together.result.stats().contention_delay, delays_alone)
          << topology << " " << what << " " << algorithm;
    }
  }
}

TEST(MeshGroups, RowsColumnsAndBlocksRunAtOnceWithoutContention) {
  expect_groups("mesh:8x8", [](auto x) { return x[1]; }, 8, true, "rows");
  expect_groups("mesh:8x8", [](auto x) { return x[0]; }, 8, true, "columns");
  expect_groups("mesh:8x8", [](auto x) { return x[0] / 4 + 2 * (x[1] / 4); }, 4, true,
                "4x4 blocks");
  expect_groups("mesh:7x11", [](auto x) { return x[1]; }, 11, true, "rows");
  expect_groups("mesh:7x11", [](auto x) { return x[0]; }, 7, true, "columns");
  expect_groups("mesh:7x11", [](auto x) { return x[1] < 6 ? 0 : 1; }, 2, true, "7x6 and 7x5");
  expect_groups("mesh:3x4x5", [](auto x) { return x[2]; }, 5, true, "3x4 planes");
  expect_groups("mesh:3x4x5", [](auto x) { return x[0] + 3 * (x[1] / 2); }, 6, true,
                "1x2x5 blocks");
}

TEST(MeshGroups, InterleavedGroupsShareLinksAndDelayEachOther) {
  // Every other column of each row: the two groups' rings cross each other's links.
  expect_groups("mesh:8x8", [](auto x) { return x[0] % 2; }, 2, false, "odd and even columns");
  // Checkerboards are no sub-mesh: linear arrays whose routes cross.
  expect_groups("mesh:7x11", [](auto x) { return (x[0] + x[1]) % 2; }, 2, false,
                "checkerboard");
  expect_groups("mesh:3x4x5", [](auto x) { return x[2] % 2; }, 2, false, "alternate planes");
}

}  // namespace
}  // namespace vmc::testing
