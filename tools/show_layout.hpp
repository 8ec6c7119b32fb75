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
//   hypercube:P       a d-cube as two (d-1)-cubes side by side with their corresponding
//                     corners joined (001), recursively, the dimensions alternately along x
//                     and y: dimensions 0 and 1 a square, 2 and 3 the squares side by side
//                     and one above the other, 4 and 5 those blocks again at a larger scale,
//                     and so on; the links of dimension 2 and up leave the corners at right
//                     angles and run in the gaps between the squares and blocks, so they
//                     pass no node
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

// An undirected link between vertices a < b, drawn as a curve whose middle is `bend` units
// to the left of the line from a to b (0: a straight line): a quadratic curve, or, `lifted`,
// a cubic one that leaves both ends at right angles to that line.
struct PlaneEdge {
  int a = 0;
  int b = 0;
  int dimension = 0;  // hypercube and grid: the dimension it crosses; others 0
  double bend = 0;
  bool lifted = false;
};

struct PlaneDrawing {
  std::vector<PlanePoint> vertex;   // per vertex (nodes, then switches)
  std::vector<PlaneEdge> edges;     // every undirected link, once
  std::vector<int> link_edge;       // per directed link id: its index in edges
  // Hypercubes: the box, centred on each node, that holds everything drawn for it (its
  // circle, its number, its bits above and the bar of what it holds below); no two nodes'
  // boxes overlap. Zero: the page sizes nodes by their closest neighbour.
  double node_width = 0;
  double node_height = 0;
};

// The most nodes `vmc show` draws.
inline constexpr int kMaxShownNodes = 256;

PlaneDrawing plane_drawing(const Topology& t);

// The point of edge e at fraction f of the way from e.a to e.b (the page draws the same
// curve: a cubic Bezier curve, a quadratic one raised to a cubic).
PlanePoint edge_point(const PlaneDrawing& d, const PlaneEdge& e, double f);

}  // namespace vmc::cli
