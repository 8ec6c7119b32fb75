// Where `vmc show` draws each vertex and link of a network: the pictures of the textbooks,
// as plane coordinates (x to the right, y up; one unit is about one link of a mesh). Pure:
// no threads, no time.
//
//   ring:P            a circle, node 0 at the top, clockwise (003 Fig. 4.2 closes its ring
//                     the same way)
//   array:P           a line
//   mesh/torus AxB    a grid, node 0 at the bottom left (003 Fig. 4.5); wraparound links
//                     bend outside the grid
//   mesh AxBxC...     layers of A x B side by side, one per value of the higher coordinates
//   hypercube:P       d <= 3: a line, a square, a cube in oblique projection (003 Fig. 4.6);
//                     d = 4..6: two, four, eight such cubes, each d-cube two (d-1)-cubes
//                     with their corners joined (001), dimension-3-and-up links bent so they
//                     pass no corner; larger: bits alternately along x and y
//   tree:P            leaves in a row, each switch above its children (003 Fig. 4.7)
//   full:P            a circle; every chord is a link
#pragma once

#include <vector>

#include "topology/topology.hpp"

namespace vmc::cli {

struct PlanePoint {
  double x = 0;
  double y = 0;
};

// An undirected link between vertices a < b, drawn as a quadratic curve whose middle is
// `bend` units to the left of the line from a to b (0: a straight line).
struct PlaneEdge {
  int a = 0;
  int b = 0;
  int dimension = 0;  // hypercube and grid: the dimension it crosses; others 0
  double bend = 0;
};

struct PlaneDrawing {
  std::vector<PlanePoint> vertex;   // per vertex (nodes, then switches)
  std::vector<PlaneEdge> edges;     // every undirected link, once
  std::vector<int> link_edge;       // per directed link id: its index in edges
};

// The most nodes `vmc show` draws.
inline constexpr int kMaxShownNodes = 256;

PlaneDrawing plane_drawing(const Topology& t);

}  // namespace vmc::cli
