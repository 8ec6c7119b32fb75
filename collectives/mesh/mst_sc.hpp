// 004 §9's MST-SC broadcast and §11's MST-DG reduction-to-one, on byte buffers: the hybrids
// between the MST (short vectors) and the SC / DG algorithms (long vectors).
//
// A split of the group's mesh names the scattered digits and the MST groups. With split
// dimension j and a divisor p0 of m_j, a coordinate x_j is a + p0 c (a < p0 contiguous, c <
// p1 = m_j / p0 spaced p0 apart: 004's virtual dimension, "interleaved"):
// - the scattered digits (a RingPlan, collect order, lowest first): a (radix p0, spacing 1,
//   when p0 > 1), then every dimension above j whole (radix m_i);
// - an MST group: the nodes that agree in the scattered digits, a mesh of m_0 x ... x
//   m_{j-1} x p1 (dimension j's part spaced p0 apart).
// Broadcast (MST-SC): the vector, cut into B = p0 m_{j+1} ... m_{d-1} blocks, is MST-scattered
// through the scattered digits, the highest first, among the nodes that agree with the root
// in the MST coordinates, so that each holds its own block; each of them MST-broadcasts its block within its MST group; then the
// blocks are collected over the scattered digits (rings, the lowest first). "Scattered
// through the real dimensions, MST-broadcasted within the virtual and remaining real
// dimensions, and then collected over the dimensions that it was initially scattered over."
// Reduction (MST-DG): the reverse: a distributed reduction over the scattered digits (the
// highest first), an MST reduction of each node's block within its MST group to the node
// that agrees with the root in the MST coordinates, and an MST gather through the scattered
// digits, the lowest first, to the root.
//
// The members of a shape's family, in order: 0 the pure MST (nothing scattered: split j =
// d-1, p0 = 1); then for j = d-1 down to 0, each divisor p0 > 1 of m_j, increasing (p0 = m_j
// scatters dimension j whole); the last member is SC (DG): every dimension scattered.
// Interleaved members (1 < p0 < m_j with p1 > 1) run the MST groups' dimension-j steps over
// links that p0 groups share (004: "the short-vector MST-broadcast phase incurs the link
// contention"). Their groups use the rank-order tree (dimension j cut first, in both
// operations), and the formula charges a message that crosses dimension j b max(beta, p0
// beta_net) and one within the lower dimensions b beta: with p1 a power of two, ceil(log2
// p1) of the first and ceil(log2 (m_0 ... m_{j-1})) of the second on the longest path,
// 004 §9's and §11's closed forms (T_MST-SC-BROADCAST, T_MST-DG-REDUCTION-TO-ONE, garbled in
// the OCR text: their MST terms read ceil(log2 p_{d',1})(alpha + n/B max(beta_node, p_{d',0}
// beta_net)) and ceil(log2 prod_{i<d'} m_i)(alpha + n/B beta_node), gamma added for the
// reduction). The groups that share links run the same tree at the same time where they start
// together, so each crossing message shares its links with exactly p0 - 1 others for its
// whole length (sc_member_claim says where); on the broadcast's scattered line of 3 whose
// groups take one crossing step they start one message apart and the last two share two
// ways, which the formula counts (mesh/mst_sc.cpp, crossing_sharers). The others keep every
// phase on links of its own.
#pragma once

#include <string>
#include <vector>

#include "collectives/mesh/mst.hpp"
#include "collectives/patterns/mesh_rings.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

struct ScSplit {
  patterns::MeshShape shape;
  int dim = 0;  // j
  int p0 = 1;   // the contiguous part of dimension j that is scattered
  patterns::RingPlan scattered;  // the scattered digits, lowest first
  patterns::MeshShape group;     // an MST group's mesh

  int p1() const { return shape.lengths[dim] / p0; }
  bool interleaved() const { return p0 > 1 && p1() > 1; }
  // The rank's place in its MST group, and the rank at place g of `rank`'s group.
  int group_index(int rank) const;
  int group_member(int rank, int g) const;
};

int sc_members(const patterns::MeshShape& shape);
ScSplit sc_split(const patterns::MeshShape& shape, int member);
// "scatter 2@1 8@2; MST 4x4 (interleaved 4/2)" for explain.
std::string describe(const ScSplit& s);

void sc_broadcast(const Call& call, const ScSplit& s);
Picos sc_broadcast_cost(const CostQuery& q, const ScSplit& s);
void dg_reduce(const Call& call, const ScSplit& s);
Picos dg_reduce_cost(const CostQuery& q, const ScSplit& s);

// The claim of a member between the ends (something scattered, MST groups of two or more
// nodes), `flow` outward for the broadcast, inward for the reduction: exact on the group's
// own mesh under eager messages and duplex ports (and all-port nodes for the broadcast),
// where the MST groups' trees keep to their own links (patterns::mst_contention_free) and,
// interleaved, under shared links; for the broadcast also where every scattered line's
// length is a power of two (its nodes finish the scatter together, so the MST groups that
// share links run in lockstep; a line of 3 whose groups take one crossing step, on links no
// slower than a node, ends one message apart, as the formula counts) and, interleaved,
// where the group's lengths but the first are powers of two (the rank-order tree's parts
// are boxes, so its outward routes keep to them). An estimate elsewhere.
Claim sc_member_claim(const CostQuery& q, const ScSplit& s, patterns::MstFlow flow);

}  // namespace vmc::internal
