// The MST pattern of 004 §5.1 and §7 (collectives/patterns/mesh_mst.hpp), without threads:
// every node is reached once, subtrees are ranges of the line that partition their parent's,
// a geometric tree takes ceil(log2 p) steps, and no two messages that may be in flight
// together share a directed link of the topology's own routes (Topology::route: dimension
// order on meshes, e-cube on hypercubes) on every mesh of 004's set and every small mesh,
// for every root, both flows. The data-distribution trees keep 004 §7's precondition.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "collectives/patterns/binomial.hpp"
#include "collectives/patterns/mesh_mst.hpp"
#include "topology/topology.hpp"

namespace vmc::patterns {
namespace {

const MstFlow kFlows[] = {MstFlow::outward, MstFlow::inward};

std::vector<MstNode> all_nodes(const MstTree& t) {
  std::vector<MstNode> nodes;
  for (int r = 0; r < t.size(); ++r) nodes.push_back(t.node(r));
  return nodes;
}

// Every node but the root has one parent that lists it; the children's subtrees and the
// node itself tile the node's subtree; steps follow on from the parent's.
void expect_tree(const MstTree& t, const std::string& what) {
  const auto nodes = all_nodes(t);
  const int p = t.size();
  std::vector<int> listed(p, 0);
  for (const MstNode& n : nodes) {
    ASSERT_EQ(n.parent == -1, n.rank == t.root()) << what << " rank " << n.rank;
    const int pos = t.position(n.rank);
    ASSERT_TRUE(pos >= n.first && pos < n.first + n.size) << what << " rank " << n.rank;
    std::vector<int> covered(n.size, 0);
    covered[pos - n.first] = 1;
    for (std::size_t i = 0; i < n.children.size(); ++i) {
      const MstChild& c = n.children[i];
      const MstNode child = nodes[c.rank];
      ++listed[c.rank];
      EXPECT_EQ(child.parent, n.rank) << what;
      EXPECT_EQ(child.step, n.step + 1 + int(i)) << what;
      EXPECT_EQ(child.first, c.first) << what;
      EXPECT_EQ(child.size, c.size) << what;
      for (int q = c.first; q < c.first + c.size; ++q) ++covered[q - n.first];
    }
    for (int k = 0; k < n.size; ++k) {
      EXPECT_EQ(covered[k], 1) << what << " rank " << n.rank << " position " << n.first + k;
    }
  }
  for (int r = 0; r < p; ++r) EXPECT_EQ(listed[r], r == t.root() ? 0 : 1) << what << " " << r;
}

// A message of the tree: its route and its partition (positions [lo, hi] split in its
// step). Two messages may be in flight together only when their partitions are disjoint:
// otherwise one's sender gets (outward) or has finished (inward) its data through the
// other (the partitions nest).
struct Message {
  int from, to, lo, hi;
};

// `reversed`: each message goes the other way (to test the check itself).
std::vector<Message> messages(const MstTree& t, bool reversed = false) {
  std::vector<Message> out;
  for (const MstNode& n : all_nodes(t)) {
    const int pos = t.position(n.rank);
    int lo = pos, hi = pos;
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
      lo = std::min(lo, it->first);
      hi = std::max(hi, it->first + it->size - 1);
      if ((t.flow() == MstFlow::outward) != reversed) out.push_back({n.rank, it->rank, lo, hi});
      else out.push_back({it->rank, n.rank, lo, hi});
    }
  }
  return out;
}

// Pairs of messages with disjoint partitions whose routes share a directed link.
int conflicts(const Topology& topo, const MstTree& t, bool reversed = false) {
  const auto msgs = messages(t, reversed);
  std::map<LinkId, std::vector<int>> users;
  for (int m = 0; m < int(msgs.size()); ++m) {
    for (LinkId l : topo.route(msgs[m].from, msgs[m].to)) users[l].push_back(m);
  }
  int bad = 0;
  for (const auto& [link, ms] : users) {
    for (std::size_t i = 0; i < ms.size(); ++i) {
      for (std::size_t j = i + 1; j < ms.size(); ++j) {
        const Message& a = msgs[ms[i]];
        const Message& b = msgs[ms[j]];
        if (a.hi < b.lo || b.hi < a.lo) ++bad;
      }
    }
  }
  return bad;
}

MeshShape shape_of(const Topology& topo) { return mesh_shape(&topo, topo.nodes(), true); }

std::vector<int> roots_of(int p) {
  if (p <= 64) {
    std::vector<int> all(p);
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  return {0, 1, p / 3, p / 2, p - 2, p - 1};
}

const std::vector<std::string> kMeshes = {"mesh:2x2", "mesh:3x5",   "mesh:4x4", "mesh:5x7",
                                          "mesh:7x11", "mesh:8x8",  "mesh:13x1", "mesh:1x17",
                                          "mesh:3x4x5", "mesh:2x3x5x7"};

TEST(MeshMstPattern, ReachesEveryNodeInCeilLog2PSteps) {
  for (const std::string& spec : kMeshes) {
    const auto topo = parse_topology(spec);
    const MeshShape shape = shape_of(*topo);
    for (int root : roots_of(shape.size())) {
      for (MstFlow flow : kFlows) {
        const MstTree t(shape, root, flow);
        const std::string what = spec + " root " + std::to_string(root);
        expect_tree(t, what);
        EXPECT_EQ(t.steps(), ceil_log2(shape.size())) << what;
      }
    }
  }
}

TEST(MeshMstPattern, InwardSubtreesAreRankRanges) {
  const MstTree t(shape_of(*parse_topology("mesh:5x7")), 17, MstFlow::inward);
  for (int r = 0; r < t.size(); ++r) EXPECT_EQ(t.position(r), r);
  const MstTree out(shape_of(*parse_topology("mesh:5x7")), 17, MstFlow::outward);
  EXPECT_EQ(out.position(1), 7);  // dimension 1 fastest: (1, 0) is 7th on the line
  EXPECT_EQ(out.rank_at(7), 1);
}

TEST(MeshMstPattern, ContentionFreeOnEveryMeshOfTheSet) {
  for (const std::string& spec : kMeshes) {
    const auto topo = parse_topology(spec);
    for (int root : roots_of(topo->nodes())) {
      for (MstFlow flow : kFlows) {
        const MstTree t(shape_of(*topo), root, flow);
        EXPECT_EQ(conflicts(*topo, t), 0)
            << spec << " root " << root << (flow == MstFlow::inward ? " inward" : " outward");
      }
    }
  }
}

bool full_sweep() {
  const char* env = std::getenv("VMC_FULL_SWEEP");
  return env != nullptr && env[0] != '\0' && env[0] != '0';
}

// Every 2-D mesh up to 12x12 (16x16 in the full sweep), 3-D mesh up to 5x5x5 (6x6x6) and
// 4-D mesh up to 3x3x3x3, every root.
TEST(MeshMstPattern, ContentionFreeOnEverySmallMesh) {
  std::vector<std::string> specs;
  const int last2 = full_sweep() ? 16 : 12, last3 = full_sweep() ? 6 : 5;
  for (int a = 2; a <= last2; ++a) {
    for (int b = 2; b <= last2; ++b) specs.push_back("mesh:" + std::to_string(a) + "x" + std::to_string(b));
  }
  for (int a = 2; a <= last3; ++a) {
    for (int b = 2; b <= last3; ++b) {
      for (int c = 2; c <= last3; ++c) {
        const std::string abc = std::to_string(a) + "x" + std::to_string(b) + "x" +
                                std::to_string(c);
        specs.push_back("mesh:" + abc);
        if (a <= 3 && b <= 3 && c <= 3) {
          for (int d = 2; d <= 3; ++d) specs.push_back("mesh:" + abc + "x" + std::to_string(d));
        }
      }
    }
  }
  int cases = 0;
  for (const std::string& spec : specs) {
    const auto topo = parse_topology(spec);
    for (int root = 0; root < topo->nodes(); ++root) {
      for (MstFlow flow : kFlows) {
        const MstTree t(shape_of(*topo), root, flow);
        ASSERT_EQ(conflicts(*topo, t), 0)
            << spec << " root " << root << (flow == MstFlow::inward ? " inward" : " outward");
        ++cases;
      }
    }
  }
  EXPECT_GT(cases, 15000);
}

TEST(MeshMstPattern, ContentionFreeOnCompleteHypercubes) {
  for (int p : {2, 4, 8, 16, 32, 64}) {
    const auto topo = parse_topology("hypercube:" + std::to_string(p));
    for (int root : roots_of(p)) {
      for (MstFlow flow : kFlows) {
        EXPECT_EQ(conflicts(*topo, MstTree(shape_of(*topo), root, flow)), 0) << p << " " << root;
      }
    }
  }
}

// The check can fail: the inward tree (rank order) run outward, or the outward one run
// inward, shares links on a 3x5 mesh (which is why each flow has its own line).
TEST(MeshMstPattern, TheCheckSeesConflicts) {
  const auto topo = parse_topology("mesh:3x5");
  for (MstFlow flow : kFlows) {
    int total = 0;
    for (int root = 0; root < 15; ++root) {
      total += conflicts(*topo, MstTree(shape_of(*topo), root, flow), true);
    }
    EXPECT_GT(total, 0);
  }
}

// The rank-order tree run outward (collectives/mesh/mst_sc.cpp's interleaved MST-SC groups
// broadcast down it) keeps to its parts where every length but the first is a power of two:
// the parts are then boxes, and a route between two nodes of a box stays in it.
TEST(MeshMstPattern, RankOrderTreeRunOutwardOnBoxes) {
  std::vector<std::string> specs;
  for (int a = 2; a <= 9; ++a) {
    for (int b : {2, 4, 8}) {
      specs.push_back("mesh:" + std::to_string(a) + "x" + std::to_string(b));
      for (int c : {2, 4}) {
        specs.push_back("mesh:" + std::to_string(a) + "x" + std::to_string(c) + "x" +
                        std::to_string(b));
      }
    }
  }
  for (const std::string& spec : specs) {
    const auto topo = parse_topology(spec);
    for (int root = 0; root < topo->nodes(); ++root) {
      ASSERT_EQ(conflicts(*topo, MstTree(shape_of(*topo), root, MstFlow::inward), true), 0)
          << spec << " root " << root;
    }
  }
}

// Tori: contention-free where mst_contention_free says so (rings, power-of-two tori); the
// others have roots whose routes go round the other way into a neighbouring partition.
TEST(MeshMstPattern, ToriWherePredicted) {
  std::vector<std::string> specs = {"torus:4x4",   "torus:8x8",  "torus:4x8",    "torus:16x2",
                                    "torus:4x4x4", "torus:8x4x2", "torus:4x4x4x4", "mesh:7x9x2w"};
  for (int p = 3; p <= 40; ++p) specs.push_back("ring:" + std::to_string(p));
  for (const std::string& m : kMeshes) specs.push_back("torus:" + m.substr(5));
  int conflicting = 0;
  for (const std::string& spec : specs) {
    const auto topo = parse_topology(spec);
    const MeshShape shape = shape_of(*topo);
    for (int root : roots_of(topo->nodes())) {
      for (MstFlow flow : kFlows) {
        const int bad = conflicts(*topo, MstTree(shape, root, flow));
        if (mst_contention_free(shape)) { EXPECT_EQ(bad, 0) << spec << " root " << root; }
        conflicting += bad > 0;
      }
    }
  }
  EXPECT_FALSE(mst_contention_free(shape_of(*parse_topology("torus:3x5"))));
  EXPECT_FALSE(mst_contention_free(shape_of(*parse_topology("mesh:4wx5"))));
  EXPECT_TRUE(mst_contention_free(shape_of(*parse_topology("mesh:3x5"))));
  EXPECT_TRUE(mst_contention_free(shape_of(*parse_topology("ring:7"))));
  EXPECT_GT(conflicting, 0);  // torus:3x5 and friends
}

// --- 004 §7: data-distribution partitioning ------------------------------------------------

// Equal counts: the data tree is the geometric one.
TEST(MeshMstPattern, EqualCountsGiveTheGeometricTree) {
  const MeshShape shape = shape_of(*parse_topology("mesh:5x7"));
  const std::vector<std::size_t> counts(35, 10);
  for (int root : {0, 17, 34}) {
    for (MstFlow flow : kFlows) {
      const MstTree geo(shape, root, flow);
      const MstTree data(shape, root, flow, counts, 0.0);
      for (int r = 0; r < 35; ++r) {
        EXPECT_EQ(geo.node(r).parent, data.node(r).parent) << root << " " << r;
        EXPECT_EQ(geo.node(r).step, data.node(r).step) << root << " " << r;
      }
    }
  }
}

// 004 §7's pathological case: one node needs the whole vector. The data tree sends it
// straight there in one message; with the alpha/beta switch above the imbalance the
// geometric tree is kept.
TEST(MeshMstPattern, SkewedCountsSendTheBulkOnce) {
  const MeshShape shape = shape_of(*parse_topology("mesh:4x4"));
  std::vector<std::size_t> counts(16, 0);
  counts[11] = 1000;
  const MstTree data(shape, 0, MstFlow::inward, counts, 10.0);
  const MstNode bulk = data.node(11);
  EXPECT_EQ(bulk.parent, 0);
  for (const MstChild& c : bulk.children) EXPECT_EQ(data.items(c.first, c.size), 0u);
  const MstTree kept(shape, 0, MstFlow::inward, counts, 2000.0);
  const MstTree geo(shape, 0, MstFlow::inward);
  for (int r = 0; r < 16; ++r) EXPECT_EQ(kept.node(r).parent, geo.node(r).parent) << r;
}

// Random counts: every split keeps at least as much data in the root's part (without the
// root) as in the other (without its new root) unless the geometric halves were kept.
RC_GTEST_PROP(MeshMstPattern, DataSplitsLeaveTheRootLast, ()) {
  const int a = *rc::gen::inRange(1, 9), b = *rc::gen::inRange(1, 9);
  const auto topo = parse_topology("mesh:" + std::to_string(a) + "x" + std::to_string(b));
  const MeshShape shape = shape_of(*topo);
  const int p = shape.size();
  const auto counts = *rc::gen::container<std::vector<std::size_t>>(
      p, rc::gen::oneOf(rc::gen::just<std::size_t>(0), rc::gen::inRange<std::size_t>(0, 50),
                        rc::gen::inRange<std::size_t>(0, 5000)));
  const int root = *rc::gen::inRange(0, p);
  const MstFlow flow = *rc::gen::element(MstFlow::outward, MstFlow::inward);
  const MstTree t(shape, root, flow, counts, 0.0);
  expect_tree(t, "random counts");
  for (int r = 0; r < p; ++r) {
    const MstNode n = t.node(r);
    std::size_t rest = t.items(n.first, n.size) - counts[r];  // the root's part, without r
    for (const MstChild& c : n.children) {
      rest -= t.items(c.first, c.size);
      const std::size_t other = t.items(c.first, c.size) - counts[c.rank];
      RC_ASSERT(rest >= other);
    }
  }
}

}  // namespace
}  // namespace vmc::patterns
