// 004 §6.2's dimension-ordered pipeline (DOPL) on a mesh as a pure schedule: in each step,
// who a node receives from and sends to, which part of the vector, and the wraparound
// messages; and 004 §9's number of pieces per dimension. No I/O, no threads.
//
// The vector is split into k_alt parts. Each part is pipelined completely along every line
// of one dimension before it goes on to the next (004 §6.2: "each part of the vector is
// completely pipelined along all the nodes in a dimension before proceeding to the next
// dimension"); part q takes the dimensions in the rotated order q, q+1, ..., q+d-1 (mod d),
// so that different parts use different lines at once. There are k_alt + d - 1 steps; step
// i pipelines along every line of dimension i mod d (so dimension i is used
// ceil((k_alt + d - 1 - i)/d) times, 004 §9's factor).
//
// Derived, because 004 §6.2's step rule is garbled in our copy. What survives: at step i
// the nodes of a row pipeline piece i + j - d, where j counts the "consecutive dimension
// positions that the 'head' node of that row shares with the source node, starting with
// the (i mod d)th dimension"; at the same time the "tail" node sends piece i - d "directly
// to the 'head' node in its row (unless the 'head' node is the source node)"; nothing where
// i + j - d or i - d is negative; and "if i + j - d is greater than k_alt - 1 ... re-transmit
// the (k_alt - 1)th piece". From this we build (and tests/collectives/
// mesh_dopl_pattern_test.cpp checks) the following. The line of dimension D = i mod d
// through a node is a chain from its head, the node with the root's coordinate D, up the
// line and around (as for k_alt = 1). j = the number of dimensions D, D+1, ... (mod d), in
// that order, in which the head agrees with the root (j = d only for the root). The line
// carries part q = i + j - d (none if negative; part k_alt - 1 if i + j - d exceeds it,
// 004's re-transmission). Part q then reaches, at step q + t (t = 0 .. d-1), the nodes
// that differ from the root in dimension q + t and agree with it in q+t+1 .. q+d-1
// whenever they also differ in dimension q: every node but the ones that share the root's
// coordinate q, each once. Those get part q < k_alt - 1 at
// step q + d from the tails (the wraparound: the tail, which holds part q since step q + t
// for some t < d, sends it whole to the head); part k_alt - 1 has no step q + d, and the
// re-transmitting lines spread it as a k_alt = 1 DOPL starting with dimension k_alt - 1.
// No head ever forwards the part its wraparound brings, so the receive may come last.
//
// Every message runs along one line. On a line whose head has coordinate h, the chain sends
// up the line from every coordinate but h - 1 (and the last, when h > 0), its one wrap from
// the last coordinate down to 0 (h > 0), and the tail's wraparound goes from h - 1 up to h
// (or, for h = 0, from the last coordinate down to 0): so each directed link of a line
// carries only messages of one sender, in every step, and under dimension-order routing on
// the mesh itself no two messages share a directed link unless one sender sends both.
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

// The chain of dimension `dim` through `rank` when `root` broadcasts on a mesh of `shape`
// with one part (k_alt = 1): active on the lines whose nodes agree with the root in every
// dimension above `dim`.
DoplChain dopl_chain(const MeshShape& shape, int root, int dim, int rank);

// The number of steps of the DOPL with k_alt parts: k_alt + d - 1 (0 for a one-node group).
int dopl_steps(const MeshShape& shape, int k_alt);

// What `rank` does at step `step` (0 .. dopl_steps - 1) of the DOPL with k_alt parts.
struct DoplStep {
  int dim = 0;         // the dimension of the step, step mod d
  int part = -1;       // the part pipelined along the node's line (-1: none)
  DoplChain chain;     // the node's place on that line (active when part >= 0)
  int wrap_part = -1;  // the part of the wraparound (-1: none)
  int wrap_to = -1;    // the tail: the head it sends part wrap_part to
  int wrap_from = -1;  // the head: the tail it receives part wrap_part from
};
DoplStep dopl_step(const MeshShape& shape, int root, int k_alt, int step, int rank);

// 004 §9's k_i, the pieces a line of m nodes pipelines n items in: sqrt((m - 2) n beta /
// (k_alt alpha)) rounded, within [1, n] (1 for m <= 2 or n <= 1; n when alpha is 0).
std::size_t dopl_pieces(int m, std::size_t n, double alpha, double beta, int k_alt);

// Part q of n items cut into k parts: items [q n / k, (q + 1) n / k).
inline std::size_t dopl_part_begin(std::size_t n, int k, int q) {
  return n * static_cast<std::size_t>(q) / static_cast<std::size_t>(k);
}

}  // namespace vmc::patterns
