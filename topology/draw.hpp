// ASCII drawings of networks, the kind a teacher puts on a slide, with every link's
// characters known so a step of a run can mark the links in use:
//   arrays        a row (a snake of rows of 16 beyond 16 nodes)
//   rings         two rows closed at both ends, 0 at the top left going right (003 Fig. 4.2)
//   2-D meshes and tori   a grid, node 0 at the bottom left (003 Fig. 4.5); a link leaving
//                 the border of a torus wraps around
//   3-D and higher meshes  layers of dimensions 0 and 1 side by side, one per value of the
//                 higher coordinates (their links join the same place of two layers)
//   hypercubes    d <= 3 a line, a square, a cube (003 Fig. 4.6); d = 4..6 squares (bits
//                 0 and 1) side by side (bits 2 and 4) and one above the other (bits 3 and
//                 5), a bundle of links in the gap between two squares joined; incomplete
//                 ones with their missing corners left out
//   trees         sideways, switches in brackets (003 Fig. 4.7)
//   full:P        its nodes (every pair is linked; no lines)
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace vmc {

// Largest grid side (per layer) drawn.
inline constexpr int kMaxDrawnSide = 16;

struct AsciiDrawing {
  // A character of the picture that draws a link, and what it becomes while the link
  // carries a message ('>' '<' '^' 'v' for the way it goes; '#' where both ways are in use).
  struct Cell {
    int line = 0;
    int column = 0;
    char busy = '#';
  };
  std::vector<std::string> lines;
  std::string note;                           // printed under the picture, may be empty
  std::vector<std::vector<Cell>> link_cells;  // per directed link; empty: not drawn

  // The picture and its note.
  std::string text() const;
  // The picture (without the note) with the links in `in_use` marked.
  std::string marked(std::span<const LinkId> in_use) const;
};

std::optional<AsciiDrawing> ascii_drawing(const Topology& t);

// The drawing's text, ending in a newline, or empty when t is not drawable.
std::optional<std::string> draw_ascii(const Topology& t);

// Which networks draw_ascii can draw, for error messages.
std::string drawable_networks();

}  // namespace vmc
