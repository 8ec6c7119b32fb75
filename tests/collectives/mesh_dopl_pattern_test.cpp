// The DOPL schedule of 004 §6.2 (collectives/patterns/mesh_dopl.hpp), without threads: in
// the phases of dimensions 0, 1, ... the chains reach every node once, each chain is one
// line of the phase's dimension starting at the root's coordinate, every node on a chain
// already has the vector or gets it on that chain, and 004 §9's piece counts.
#include <gtest/gtest.h>

#include <string>
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
              if (i != dim) EXPECT_EQ(shape.coordinate(c.next, i), shape.coordinate(r, i));
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
