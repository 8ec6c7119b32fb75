// The ring schedules of collectives/patterns/mesh_rings.hpp, alone (no threads): every block
// reaches every node exactly as collect, distributed reduction and all-to-all need; the
// dimensional rings of a mesh never put two messages of a step on one directed link under
// dimension-order routing, logical wraparound included; the prime factors rings share links
// as 004's c_{i,j} says, less with dimension alternation; direct-send shifts pair every two
// nodes once.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "collectives/patterns/mesh_rings.hpp"
#include "tests/collectives/mesh_set.hpp"

namespace vmc::patterns {
namespace {

using testing::mesh_set;

MeshShape shape_of(const Topology& t) { return mesh_shape(&t, t.nodes(), true); }

// Collect: every step's send is what the right neighbour expects, the sender holds it, the
// receiver does not yet; at the end every node holds every layout block once.
void expect_collect(const RingPlan& plan, const std::string& what) {
  const int p = plan.shape.size(), b = plan.blocks();
  std::vector<std::vector<int>> held(p, std::vector<int>(b, 0));
  for (int r = 0; r < p; ++r) held[r][plan.layout_index(r)] = 1;
  for (int t = 0; t < plan.phases(); ++t) {
    for (int k = 0; k + 1 < plan.digits[t].radix; ++k) {
      std::vector<std::vector<int>> next = held;
      for (int r = 0; r < p; ++r) {
        const RingStep s = collect_step(plan, r, t, k);
        const RingStep d = collect_step(plan, s.right, t, k);
        ASSERT_EQ(d.left, r) << what;
        ASSERT_EQ(d.recv_first, s.send_first) << what;
        ASSERT_EQ(d.blocks, s.blocks) << what;
        for (int x = s.send_first; x < s.send_first + s.blocks; ++x) {
          ASSERT_EQ(held[r][x], 1) << what << ": rank " << r << " sends block " << x;
          ASSERT_EQ(held[s.right][x], 0) << what << ": block " << x << " twice";
          next[s.right][x] = 1;
        }
      }
      held = next;
    }
  }
  for (int r = 0; r < p; ++r) {
    ASSERT_EQ(std::count(held[r].begin(), held[r].end(), 1), b) << what << " rank " << r;
  }
}

// Distributed reduction: partial results are sets of contributors; a receiver combines a
// partial into its own only where the two are disjoint, and rank r ends with every rank's
// contribution to its own block.
void expect_reduce(const RingPlan& plan, const std::string& what) {
  const int p = plan.shape.size(), b = plan.blocks();
  std::vector<std::vector<std::set<int>>> part(p, std::vector<std::set<int>>(b));
  for (int r = 0; r < p; ++r)
    for (int x = 0; x < b; ++x) part[r][x] = {r};
  for (int t = plan.phases() - 1; t >= 0; --t) {
    for (int k = 0; k + 1 < plan.digits[t].radix; ++k) {
      auto next = part;
      for (int r = 0; r < p; ++r) {
        const RingStep s = reduce_step(plan, r, t, k);
        const RingStep d = reduce_step(plan, s.right, t, k);
        ASSERT_EQ(d.left, r) << what;
        ASSERT_EQ(d.recv_first, s.send_first) << what;
        for (int x = s.send_first; x < s.send_first + s.blocks; ++x) {
          for (int c : part[r][x]) {
            ASSERT_TRUE(next[s.right][x].insert(c).second) << what << ": " << c << " twice";
          }
        }
      }
      part = next;
    }
  }
  for (int r = 0; r < p; ++r) {
    ASSERT_EQ(static_cast<int>(part[r][plan.layout_index(r)].size()), p) << what << " " << r;
  }
}

// All-to-all: slot y of node r holds the pair (source, destination) that the phases done so
// far left there; a node's group for value u of digit t is its slots whose digit t is u, in
// slot order. At the end slot y of node r holds (y, r).
void expect_alltoall(const RingPlan& plan, Alternation alternate, const std::string& what) {
  const int p = plan.shape.size();
  std::vector<std::vector<std::pair<int, int>>> slot(p, std::vector<std::pair<int, int>>(p));
  for (int r = 0; r < p; ++r)
    for (int y = 0; y < p; ++y) slot[r][y] = {r, y};
  std::vector<std::vector<int>> orders(p);
  for (int r = 0; r < p; ++r) orders[r] = stage_order(plan, r, alternate);
  for (int s = 0; s < plan.phases(); ++s) {
    // Ring members run the same digit at the same stage.
    for (int r = 0; r < p; ++r) {
      ASSERT_EQ(orders[plan.neighbour(r, orders[r][s], 1)][s], orders[r][s]) << what;
    }
    auto group = [&](int r, int t, int u) {
      std::vector<std::pair<int, int>> g;
      for (int y = 0; y < p; ++y)
        if (plan.value(y, t) == u) g.push_back(slot[r][y]);
      return g;
    };
    std::vector<std::vector<std::vector<std::pair<int, int>>>> travelling(p);
    for (int r = 0; r < p; ++r) {
      const int t = orders[r][s], f = plan.digits[t].radix, v = plan.value(r, t);
      for (int o = 1; o < f; ++o) travelling[r].push_back(group(r, t, (v + o) % f));
    }
    auto next = slot;
    const int f = plan.digits[orders[0][s]].radix;
    for (int k = 1; k < f; ++k) {
      std::vector<std::vector<std::vector<std::pair<int, int>>>> arrived(p);
      for (int r = 0; r < p; ++r) {
        const int t = orders[r][s];
        const ExchangeStep e = exchange_step(plan, r, t, k);
        ASSERT_EQ(static_cast<int>(travelling[r].size()), e.groups) << what;
        ASSERT_EQ(exchange_step(plan, e.right, t, k).left, r) << what;
        arrived[e.right] = travelling[r];
      }
      for (int r = 0; r < p; ++r) {
        const int t = orders[r][s];
        const ExchangeStep e = exchange_step(plan, r, t, k);
        const auto& mine = arrived[r].front();
        int i = 0;
        for (int y = 0; y < p; ++y) {
          if (plan.value(y, t) != e.origin) continue;
          ASSERT_EQ(plan.value(mine[i].second, t), plan.value(r, t))
              << what << ": rank " << r << " got a block for " << mine[i].second;
          next[r][y] = mine[i++];
        }
        travelling[r].assign(arrived[r].begin() + 1, arrived[r].end());
      }
    }
    slot = next;
  }
  for (int r = 0; r < p; ++r)
    for (int y = 0; y < p; ++y) ASSERT_EQ(slot[r][y], std::make_pair(y, r)) << what;
}

TEST(MeshRings, DimensionalRingsCollectReduceAndExchangeOnTheMeshSet) {
  for (const std::string& spec : mesh_set()) {
    auto topo = parse_topology(spec);
    const RingPlan plan = dimensional_rings(shape_of(*topo));
    EXPECT_TRUE(plan.identity_layout()) << spec;
    expect_collect(plan, spec);
    expect_reduce(plan, spec);
    expect_alltoall(plan, Alternation::none, spec);
  }
}

// No two messages of a DR step share a directed link (004 §6.1 contention-free), the
// logical wraparound of a mesh without wraparound links included; the same on every
// stage of the prime factors rings of meshes whose lengths are primes.
TEST(MeshRings, DimensionalRingsShareNoLinkUnderDimensionOrderRouting) {
  for (const std::string& spec : mesh_set()) {
    auto topo = parse_topology(spec);
    const RingPlan plan = dimensional_rings(shape_of(*topo));
    for (int t = 0; t < plan.phases(); ++t) {
      for (int k = 0; k + 1 < plan.digits[t].radix; ++k) {
        std::map<LinkId, int> users;
        for (int r = 0; r < topo->nodes(); ++r) {
          for (LinkId l : topo->route(r, collect_step(plan, r, t, k).right)) {
            ASSERT_EQ(users.count(l), 0u)
                << spec << " phase " << t << ": ranks " << users[l] << " and " << r
                << " share link " << topo->link(l).from << "->" << topo->link(l).to;
            users[l] = r;
          }
        }
      }
    }
    for (const StageLinks& s : stage_links(plan, *topo, Alternation::none)) {
      EXPECT_EQ(s.sharers, 1) << spec;
      EXPECT_TRUE(s.uniform) << spec;
    }
  }
}

TEST(MeshRings, SubMeshDimensionalRingsIndexBlocksByTheSubRank) {
  const MeshShape s{{3, 4, 5}, {false, false, false}};
  const RingPlan plan = dimensional_rings(s, 1, 3);
  EXPECT_EQ(plan.blocks(), 20);
  for (int r = 0; r < s.size(); ++r) {
    EXPECT_EQ(plan.layout_index(r), r / 3);
    EXPECT_EQ(plan.rank_at(r, plan.layout_index(r)), r);
    EXPECT_EQ(plan.rank_at(r, 0), r % 3);
  }
}

TEST(MeshRings, PrimeFactorsRingsPutTheLargestPrimeClosestAndCollectWidestFirst) {
  const MeshShape s{{12, 5}, {false, false}};
  const RingPlan plan = prime_factor_rings(s, RingOrder::widest_first);
  ASSERT_EQ(plan.phases(), 4);
  // 12 = 3 (spacing 1) x 2 (spacing 3) x 2 (spacing 6); 5 (spacing 1).
  EXPECT_EQ(plan.digits[0].spacing, 6);
  EXPECT_EQ(plan.digits[1].spacing, 3);
  EXPECT_EQ(plan.digits[2].radix, 3);
  EXPECT_EQ(plan.digits[2].dim, 0);
  EXPECT_EQ(plan.digits[3].radix, 5);
  EXPECT_FALSE(plan.identity_layout());
  EXPECT_TRUE(prime_factor_rings(s, RingOrder::rank_order).identity_layout());
  // Prime lengths: the prime factors rings are the dimensional rings.
  const MeshShape primes{{7, 11}, {false, false}};
  EXPECT_TRUE(prime_factor_rings(primes, RingOrder::widest_first).identity_layout());
}

TEST(MeshRings, PrimeFactorsRingsCollectReduceAndExchange) {
  for (std::string spec : {"mesh:12x5", "mesh:4x4", "torus:8x8", "mesh:6x10", "mesh:2x3x5x7",
                           "torus:3x4x5", "mesh:2x2x2x2", "array:30", "mesh:9x4"}) {
    auto topo = parse_topology(spec);
    for (RingOrder order : {RingOrder::widest_first, RingOrder::rank_order}) {
      const RingPlan plan = prime_factor_rings(shape_of(*topo), order);
      std::set<int> indices;
      for (int r = 0; r < topo->nodes(); ++r) {
        indices.insert(plan.layout_index(r));
        ASSERT_EQ(plan.rank_at(0, plan.layout_index(r)), r) << spec;
      }
      ASSERT_EQ(static_cast<int>(indices.size()), topo->nodes()) << spec;
      expect_collect(plan, spec);
      expect_reduce(plan, spec);
      for (Alternation a : {Alternation::none, Alternation::every_group}) {
        expect_alltoall(plan, a, spec);
      }
    }
  }
}

// 004 §5.2's alternation within a stage for the collect and the distributed reduction
// (allgather/reduce_scatter mesh_pfr_alt): every rank runs its staged plan in its own layout;
// the members of a ring run the same digit at each stage; a chunk passes on as its sender
// holds it and lands where the receiver's staged_owners say those blocks are; at the end of
// the collect a rank holds every rank's block once, where staged_owners says; the
// reduction's messages (the collect backwards) meet the same order.
void expect_staged(const RingPlan& plan, Alternation a, const std::string& what) {
  const int p = plan.shape.size(), b = plan.blocks();
  std::vector<RingPlan> staged(p);
  std::vector<std::vector<int>> owners(p), held(p, std::vector<int>(b, -1));
  for (int r = 0; r < p; ++r) {
    staged[r] = staged_plan(plan, r, a);
    owners[r] = staged_owners(plan, r, a);
    const int mine = staged[r].layout_index(r);
    ASSERT_EQ(owners[r][mine], r) << what << " rank " << r;
    held[r][mine] = r;
    std::vector<int> sorted = owners[r], rings(b);
    for (int x = 0; x < b; ++x) rings[x] = plan.rank_at(r, x);
    std::sort(sorted.begin(), sorted.end());
    std::sort(rings.begin(), rings.end());
    ASSERT_EQ(sorted, rings) << what << " rank " << r;
  }
  for (int s = 0; s < plan.phases(); ++s) {
    for (int k = 0; k + 1 < plan.digits[s].radix; ++k) {
      auto next = held;
      for (int r = 0; r < p; ++r) {
        const RingStep c = collect_step(staged[r], r, s, k);
        const RingStep d = collect_step(staged[c.right], c.right, s, k);
        ASSERT_EQ(staged[c.right].digits[s].dim, staged[r].digits[s].dim) << what;
        ASSERT_EQ(d.left, r) << what << " stage " << s << " rank " << r;
        ASSERT_EQ(d.blocks, c.blocks) << what;
        for (int i = 0; i < c.blocks; ++i) {
          ASSERT_EQ(owners[r][c.send_first + i], owners[c.right][d.recv_first + i])
              << what << ": collect stage " << s << " rank " << r;
          ASSERT_EQ(held[c.right][d.recv_first + i], -1) << what << ": twice";
          next[c.right][d.recv_first + i] = held[r][c.send_first + i];
        }
        const RingStep e = reduce_step(staged[r], r, s, k);
        const RingStep f = reduce_step(staged[e.right], e.right, s, k);
        for (int i = 0; i < e.blocks; ++i) {
          ASSERT_EQ(owners[r][e.send_first + i], owners[e.right][f.recv_first + i])
              << what << ": reduce stage " << s << " rank " << r;
        }
      }
      held = next;
    }
  }
  for (int r = 0; r < p; ++r) ASSERT_EQ(held[r], owners[r]) << what << " rank " << r;
}

// The alternation applies to groups of spacing > 1 only (none on prime lengths), holds
// the collect and the reduction together, and never puts more messages on a link than the
// plain order does; on mesh:8x8 it halves the sharing of the interleaved stages (004 §5.2,
// "reduces contention by a factor of 1/d").
TEST(MeshRings, AlternationWithinAStageCollectsReducesAndSharesLess) {
  for (std::string spec : {"mesh:2x3", "mesh:5x1", "mesh:6x4", "mesh:8x8", "mesh:7x11",
                           "mesh:4x4x4", "torus:6x4", "mesh:12x6", "torus:8x8", "mesh:4x8",
                           "mesh:2x2x2x2", "mesh:16x16", "mesh:9x9"}) {
    auto topo = parse_topology(spec);
    const RingPlan plan = prime_factor_rings(shape_of(*topo), RingOrder::widest_first);
    expect_staged(plan, Alternation::interleaved, spec);
    for (int h = 0; h <= pfr_dr_merges(plan.shape); ++h) {
      expect_staged(pfr_dr_rings(plan.shape, h), Alternation::interleaved, spec);
    }
    const auto plain = stage_links(plan, *topo, Alternation::none);
    const auto alternating = stage_links(plan, *topo, Alternation::interleaved);
    for (int t = 0; t < plan.phases(); ++t) {
      EXPECT_LE(alternating[t].sharers, plain[t].sharers) << spec << " stage " << t;
    }
  }
  const MeshShape primes{{7, 7}, {false, false}};
  EXPECT_FALSE(alternates(prime_factor_rings(primes), Alternation::interleaved));
  EXPECT_TRUE(alternates(prime_factor_rings(primes), Alternation::every_group));
  auto topo = parse_topology("mesh:8x8");
  const RingPlan plan = prime_factor_rings(shape_of(*topo), RingOrder::widest_first);
  std::vector<int> c;
  for (const StageLinks& s : stage_links(plan, *topo, Alternation::interleaved)) {
    EXPECT_TRUE(s.uniform);
    c.push_back(s.sharers);
  }
  EXPECT_EQ(c, (std::vector<int>{2, 2, 1, 1, 1, 1}));
}

// 004 §5.2: rings w apart interleave with w - 1 others (c = w); alternating dimensions puts
// half of them in the other dimension on a 2-D mesh.
TEST(MeshRings, PrimeFactorsRingsShareLinksAs004Says) {
  auto topo = parse_topology("mesh:8x8");
  const RingPlan plan = prime_factor_rings(shape_of(*topo), RingOrder::widest_first);
  std::vector<int> plain, alternating;
  for (const StageLinks& s : stage_links(plan, *topo, Alternation::none)) {
    EXPECT_TRUE(s.uniform);
    plain.push_back(s.sharers);
  }
  for (const StageLinks& s : stage_links(plan, *topo, Alternation::every_group)) {
    EXPECT_TRUE(s.uniform);
    alternating.push_back(s.sharers);
  }
  EXPECT_EQ(plain, (std::vector<int>{4, 4, 2, 2, 1, 1}));
  EXPECT_EQ(alternating, (std::vector<int>{2, 2, 1, 1, 1, 1}));
  auto line = parse_topology("mesh:12x1");
  const RingPlan twelve = prime_factor_rings(shape_of(*line), RingOrder::widest_first);
  std::vector<int> c;
  for (const StageLinks& s : stage_links(twelve, *line, Alternation::none)) c.push_back(s.sharers);
  EXPECT_EQ(c, (std::vector<int>{6, 3, 1}));
}

TEST(MeshRings, DirectSendShiftsPairEveryTwoNodesOnce) {
  for (std::string spec : {"mesh:3x5", "torus:4x4", "mesh:2x3x5", "mesh:7x11"}) {
    auto topo = parse_topology(spec);
    const MeshShape s = shape_of(*topo);
    const int p = s.size();
    std::set<std::pair<int, int>> pairs;
    for (int k = 1; k < p; ++k) {
      std::map<LinkId, int> load;
      for (int r = 0; r < p; ++r) {
        const int d = shift_destination(s, r, k);
        ASSERT_EQ(shift_source(s, d, k), r);
        ASSERT_NE(d, r);
        ASSERT_TRUE(pairs.insert({r, d}).second);
        for (LinkId l : topo->route(r, d)) ++load[l];
      }
      int most = 1;
      for (const auto& [l, c] : load) most = std::max(most, c);
      EXPECT_EQ(most, shift_sharers(s, k)) << spec << " k " << k;
    }
    EXPECT_EQ(static_cast<int>(pairs.size()), p * (p - 1));
  }
}

// Random mesh shapes: DR and PFR schedules deliver every block.
RC_GTEST_PROP(MeshRingsProperty, RandomShapesCollectAndReduce, ()) {
  const int d = *rc::gen::inRange(1, 4);
  MeshShape s;
  for (int i = 0; i < d; ++i) {
    s.lengths.push_back(*rc::gen::inRange(2, 9));
    s.wraps.push_back(false);
  }
  const bool pfr = *rc::gen::arbitrary<bool>();
  const RingPlan plan = pfr ? prime_factor_rings(s, RingOrder::widest_first) : dimensional_rings(s);
  expect_collect(plan, "random");
  expect_reduce(plan, "random");
  RC_ASSERT(!::testing::Test::HasFailure());
}

}  // namespace
}  // namespace vmc::patterns
