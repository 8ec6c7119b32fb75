// Exhaustive computation of a network's properties from its graph alone, the reference
// the formulas in the family files are tested against (and the fallback they use for
// small networks where no formula applies). Definitions as in 001 "Static
// interconnection networks": diameter = the largest distance between processing nodes;
// arc connectivity = fewest links whose removal disconnects two processing nodes;
// bisection width = fewest links whose removal splits the processing nodes into halves
// of floor(P/2) and ceil(P/2) (switches may fall on either side). A single node has
// 0 for all three.
#pragma once

#include <vector>

#include "topology/topology.hpp"

namespace vmc::exhaustive {

// Largest vertices() bisection_width() accepts: it looks at 2^(V-1) vertex subsets.
inline constexpr int kMaxBisectionVertices = 26;
// Networks with at most this many vertices get their unknown properties computed here.
inline constexpr int kSmallVertices = 20;

// Hop distances from `source` to every vertex (breadth-first search); -1 if unreachable.
std::vector<int> distances_from(const Topology& t, int source);

// Largest distance between two processing nodes (BFS from each). Polynomial.
int diameter(const Topology& t);

// Minimum over processing nodes b != 0 of the maximum flow from node 0 to b with unit
// capacity in each direction of each link (max-flow = min-cut). Polynomial.
int arc_connectivity(const Topology& t);

// Enumerates every split of the vertices (Gray code order, O(1) per split); throws
// std::invalid_argument when vertices() > kMaxBisectionVertices.
int bisection_width(const Topology& t);

// Every property computed from the graph; bisection width empty when too big to enumerate.
TopologyProperties properties(const Topology& t);

// `known` with its empty fields filled exhaustively when vertices() <= kSmallVertices.
TopologyProperties complete_if_small(const Topology& t, TopologyProperties known);

}  // namespace vmc::exhaustive
