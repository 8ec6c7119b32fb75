// Communication patterns of the all-port hypercube algorithms (000 §7: a node of a d-cube
// sends to all d neighbours at once), on virtual ranks 0..2^d-1 with the root at 0. Pure
// functions, no I/O; tests/collectives/allport_test.cpp checks their properties alone.
//
// Two families of d spanning trees:
// - Rotated binomial trees (000 §7, "partitioned into d equal parts, where one part is
//   exchanged in each direction"): tree j is the binomial tree whose step s crosses
//   dimension (j + s) mod d. At any step the d trees cross d different dimensions, so when
//   every tree moves one part per step no directed link carries two messages at once.
// - Edge-disjoint spanning binomial trees (Johnsson and Ho's nESBT, cited by 000 §7 through
//   its reference [4]): tree j is the edge 0 -> e_j followed by the binomial tree rooted at
//   e_j whose dimensions come in the order j+1, j+2, ..., j+d-1, j (mod d), without its edge
//   back to 0. No directed link belongs to two trees, so the d trees can be pipelined at
//   once. Height d + 1 (1 for d = 1).
#pragma once

#include <cstddef>
#include <vector>

namespace vmc::patterns::allport {

// --- cutting a vector into equal windows ----------------------------------------------------
// A vector of n items cut into `count` windows of `size` items each: window k starts at
// min(k size, n - size), so every window lies inside the vector, they cover it, and only
// the last ones may overlap their neighbours. Equal windows make equal messages, which keeps
// the all-port schedules in lockstep. count = min(wanted, n); 0 windows for n = 0.
struct Windows {
  std::size_t n = 0;
  std::size_t count = 0;
  std::size_t size = 0;
  std::size_t start(std::size_t k) const { return k * size < n - size ? k * size : n - size; }
};
Windows windows(std::size_t n, std::size_t wanted);

// --- rotated binomial trees -----------------------------------------------------------------
// The dimension tree j crosses at step s (0 <= s < d).
int rotated_dimension(int j, int s, int d);
// The step at which v receives in tree j: the largest (k - j) mod d over the set bits k of v
// (-1 for v = 0, which holds every part from the start).
int rotated_receive_step(int v, int j, int d);
// Whether v holds tree j's part before step s (0 <= s <= d).
inline bool rotated_holds(int v, int j, int s, int d) { return rotated_receive_step(v, j, d) < s; }
// Rotates the d-bit label v right by j bits: dimension (j + i) mod d becomes bit i, so the
// nodes tree j has reached before step s form aligned blocks of 2^s consecutive labels.
int rotate_right(int v, int j, int d);

// --- edge-disjoint spanning binomial trees --------------------------------------------------
// Parent of v in tree j (-1 for the root 0).
int edst_parent(int v, int j, int d);
// Children of v in tree j (every child is a hypercube neighbour of v).
std::vector<int> edst_children(int v, int j, int d);
// Hops from the root to v in tree j (0 for the root).
int edst_depth(int v, int j, int d);
// The largest depth of any tree: d + 1 for d >= 2, d for d <= 1.
int edst_height(int d);

}  // namespace vmc::patterns::allport
