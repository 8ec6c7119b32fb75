// 004 §6.2's dimension-ordered pipeline (DOPL) on a mesh as a pure schedule: who a node
// receives from and sends to in each dimension's phase, and 004 §9's number of pieces per
// dimension. No I/O, no threads.
//
// The vector is pipelined completely along every line of one dimension before it goes on
// to the next, dimension 0 first (004 §6.2: "each part of the vector is completely
// pipelined along all the nodes in a dimension before proceeding to the next dimension").
// In the phase of dimension i the nodes that agree with the root in every dimension above
// i (those that have the vector after phases 0 .. i-1, and the idle members of their lines)
// form one chain per line of dimension i: it starts at the node with the root's
// coordinate (the line's "head") and runs up the line, wrapping from the last coordinate
// to the first (004 §2: on a mesh without wraparound links the one logical wraparound
// runs against the others and shares no link with them).
//
// 004 §6.2 and §9 also alternate the dimension order between k_alt parts of the vector;
// that part of the text is garbled in our copy (the step rule survives only in pieces) and
// is not built here: dopl_pieces takes k_alt for 004's formula, the schedule is k_alt = 1.
#pragma once

#include <cstddef>

#include "collectives/patterns/mesh_shape.hpp"

namespace vmc::patterns {

struct DoplChain {
  bool active = false;  // the node is on a chain of this phase
  int position = 0;     // its place on the chain, the head 0
  int prev = -1;        // the rank it receives from (-1: the head)
  int next = -1;        // the rank it sends to (-1: the tail)
};

// The chain of dimension `dim` through `rank` when `root` broadcasts on a mesh of `shape`.
DoplChain dopl_chain(const MeshShape& shape, int root, int dim, int rank);

// 004 §9's k_i, the pieces a line of m nodes pipelines n items in: sqrt((m - 2) n beta /
// (k_alt alpha)) rounded, within [1, n] (1 for m <= 2 or n <= 1; n when alpha is 0).
std::size_t dopl_pieces(int m, std::size_t n, double alpha, double beta, int k_alt);

}  // namespace vmc::patterns
