// ASCII drawings of small networks, the kind a teacher puts on a slide: rings and arrays
// as a row of nodes, 2-D meshes and tori as a grid with node 0 at the bottom left (as in
// 003 Figure 4.5), the 2-, 4- and 8-node hypercubes as a line, square and cube (003
// Figure 4.6) and other hypercubes up to 16 nodes as a table of bits and neighbours,
// trees up to 16 leaves sideways with their switches in brackets (003 Figure 4.7).
#pragma once

#include <optional>
#include <string>

#include "topology/topology.hpp"

namespace vmc {

// Largest line length / grid side / hypercube / tree leaf count that is drawn.
inline constexpr int kMaxDrawnSide = 16;

// The drawing, ending in a newline, or empty when t is not drawable.
std::optional<std::string> draw_ascii(const Topology& t);

// Which networks draw_ascii can draw, for error messages.
std::string drawable_networks();

}  // namespace vmc
