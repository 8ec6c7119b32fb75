// The DOPL schedule of 004 §6.2 (collectives/patterns/mesh_dopl.hpp), without threads: in
// the phases of dimensions 0, 1, ... the chains reach every node once, each chain is one
// line of the phase's dimension starting at the root's coordinate, every node on a chain
// already has the vector or gets it on that chain, and 004 §9's piece counts. With k_alt
// parts: every node gets every part exactly once, from a node that holds it, and under
// dimension-order routing on the mesh itself no two messages of a step share a directed
// link (each directed link carries the messages of one sender only).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collectives/patterns/mesh_dopl.hpp"
#include "topology/topology.hpp"

namespace vmc::patterns {
namespace {

TEST(MeshDoplPattern, ChainsReachEveryNodeOnceDimensionByDimension) {
  for (const std::string spec : {"mesh:3x5", "mesh:7x11", "mesh:13x1", "mesh:3x4x5",
                                 "mesh:2x3x5x7", "torus:4x4", "ring:9"}) {
    const auto topo = parse_topology(spec);
    const MeshShape shape = mesh_shape(topo.get(), topo->nodes(), true);
    const int p = shape.size();
    for (int root : {0, 1, p / 2, p - 1}) {
      std::vector<int> has(p, 0);  // 1 once a node holds the vector
      has[root] = 1;
      for (int dim = 0; dim < shape.dimensions(); ++dim) {
        std::vector<int> got = has;
        for (int r = 0; r < p; ++r) {
          const DoplChain c = dopl_chain(shape, root, dim, r);
          if (!c.active) continue;
          const std::string where = spec + " root " + std::to_string(root) + " dim " +
                                    std::to_string(dim) + " rank " + std::to_string(r);
          EXPECT_EQ(c.position == 0, has[r] == 1) << where;  // heads hold it, no one else
          if (c.prev >= 0) {
            EXPECT_EQ(dopl_chain(shape, root, dim, c.prev).next, r) << where;
            EXPECT_EQ(dopl_chain(shape, root, dim, c.prev).position, c.position - 1) << where;
            ++got[r];
          }
          if (c.next >= 0) {  // a neighbour along the line (or the one wraparound)
            for (int i = 0; i < shape.dimensions(); ++i) {
              if (i != dim) { EXPECT_EQ(shape.coordinate(c.next, i), shape.coordinate(r, i)); }
            }
          }
          EXPECT_EQ(c.next < 0, c.position == shape.lengths[dim] - 1) << where;
        }
        for (int r = 0; r < p; ++r) EXPECT_LE(got[r], 1) << spec << " rank " << r;
        has = got;
      }
      for (int r = 0; r < p; ++r) EXPECT_EQ(has[r], 1) << spec << " rank " << r << " missed";
    }
  }
}

// Every step of the k_alt-part schedule: the parts it moves, checked against who holds what.
void check_alternations(const std::string& spec, int k_alt) {
  const auto topo = parse_topology(spec);
  const MeshShape shape = mesh_shape(topo.get(), topo->nodes(), true);
  const int p = shape.size(), d = shape.dimensions();
  ASSERT_EQ(dopl_steps(shape, k_alt), k_alt + d - 1) << spec;
  for (int root : {0, 1, p / 2, p - 1}) {
    const std::string where = spec + " k_alt " + std::to_string(k_alt) + " root " +
                              std::to_string(root);
    // got[v][q]: how many times v received part q; the root holds every part.
    std::vector<std::vector<int>> got(p, std::vector<int>(k_alt, 0));
    for (int q = 0; q < k_alt; ++q) got[root][q] = 1;
    std::map<int, int> sender_of_link;  // each directed link: the one node that sends on it
    std::vector<int> uses(d, 0);
    for (int i = 0; i < dopl_steps(shape, k_alt); ++i) {
      const auto before = got;
      std::set<std::pair<int, int>> pairs;  // (from, to) of this step
      for (int r = 0; r < p; ++r) {
        const DoplStep st = dopl_step(shape, root, k_alt, i, r);
        EXPECT_EQ(st.dim, i % d) << where;
        if (st.part >= 0) {
          ASSERT_LT(st.part, k_alt) << where;
          ASSERT_TRUE(st.chain.active) << where;
          if (st.chain.prev < 0) {
            EXPECT_EQ(before[r][st.part], 1) << where << " step " << i << " head " << r;
          } else {
            const DoplStep from = dopl_step(shape, root, k_alt, i, st.chain.prev);
            EXPECT_EQ(from.part, st.part) << where;  // one part per line
            EXPECT_EQ(from.chain.next, r) << where;
            ++got[r][st.part];
            pairs.insert({st.chain.prev, r});
          }
        }
        if (st.wrap_to >= 0) {
          EXPECT_EQ(before[r][st.wrap_part], 1) << where << " step " << i << " tail " << r;
          const DoplStep head = dopl_step(shape, root, k_alt, i, st.wrap_to);
          EXPECT_EQ(head.wrap_from, r) << where;
          EXPECT_EQ(head.wrap_part, st.wrap_part) << where;
          EXPECT_EQ(head.chain.position, 0) << where;
          ++got[st.wrap_to][st.wrap_part];
          pairs.insert({r, st.wrap_to});
        }
      }
      ++uses[i % d];
      std::set<int> links;  // no two messages of the step share a directed link
      for (const auto& [from, to] : pairs) {
        for (int link : topo->route(from, to)) {
          EXPECT_TRUE(links.insert(link).second)
              << where << " step " << i << ": " << from << " -> " << to << " shares a link";
          const auto [it, fresh] = sender_of_link.emplace(link, from);
          EXPECT_EQ(it->second, from) << where << " link " << link << " has two senders";
        }
      }
    }
    for (int r = 0; r < p; ++r) {
      for (int q = 0; q < k_alt; ++q) {
        EXPECT_EQ(got[r][q], 1) << where << " rank " << r << " part " << q;
      }
    }
    for (int i = 0; i < d; ++i) {  // 004 §9: dimension i is used ceil((k_alt + d - 1 - i)/d) times
      EXPECT_EQ(uses[i], (k_alt + d - 1 - i + d - 1) / d) << where << " dim " << i;
    }
  }
}

TEST(MeshDoplPattern, AlternationsReachEveryNodeOncePerPartOnDisjointLinks) {
  for (const std::string spec : {"mesh:4x4", "mesh:3x5", "mesh:5x7", "mesh:2x2", "mesh:8x8",
                                 "mesh:3x4x5", "mesh:2x3x4", "mesh:4x4x4", "torus:4x5",
                                 "hypercube:16", "mesh:2x3x5x7"}) {
    for (int k_alt : {1, 2, 3, 4, 5, 7}) check_alternations(spec, k_alt);
  }
}

// One dimension: every step is the root's line, one part after another, no wraparounds.
TEST(MeshDoplPattern, OneDimensionIsOneChainPerPart) {
  const MeshShape shape = linear_shape(9);
  for (int i = 0; i < dopl_steps(shape, 3); ++i) {
    for (int r = 0; r < 9; ++r) {
      const DoplStep st = dopl_step(shape, 4, 3, i, r);
      EXPECT_EQ(st.part, i);
      EXPECT_EQ(st.wrap_part, -1);
      EXPECT_EQ(st.chain.position, (r - 4 + 9) % 9);
    }
  }
  EXPECT_EQ(dopl_steps(linear_shape(1), 3), 0);
}

TEST(MeshDoplPattern, PartsCoverTheVector) {
  for (std::size_t n : {1u, 2u, 7u, 15u, 65536u}) {
    for (int k = 1; k <= 15 && std::size_t(k) <= n; ++k) {
      EXPECT_EQ(dopl_part_begin(n, k, 0), 0u);
      EXPECT_EQ(dopl_part_begin(n, k, k), n);
      for (int q = 0; q < k; ++q) EXPECT_LT(dopl_part_begin(n, k, q), dopl_part_begin(n, k, q + 1));
    }
  }
}

TEST(MeshDoplPattern, PiecesFollow004sRule) {
  EXPECT_EQ(dopl_pieces(2, 1000, 5.0, 1.0, 1), 1u);      // m <= 2: no pipelining
  EXPECT_EQ(dopl_pieces(8, 1, 5.0, 1.0, 1), 1u);
  EXPECT_EQ(dopl_pieces(8, 65536, 525.0, 2.0, 1), 39u);  // sqrt(6 * 65536 * 2 / 525) = 38.7
  EXPECT_EQ(dopl_pieces(8, 65536, 525.0, 2.0, 4), 19u);  // k_alt parts: sqrt(.../4)
  EXPECT_EQ(dopl_pieces(100, 10, 1.0, 1000.0, 1), 10u);  // at most n
  EXPECT_EQ(dopl_pieces(5, 10, 0.0, 1.0, 1), 10u);       // free startups: single items
}

}  // namespace
}  // namespace vmc::patterns
