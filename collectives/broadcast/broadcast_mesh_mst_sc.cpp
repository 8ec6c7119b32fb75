// broadcast mesh_mst_sc and mesh_mst_sc_optimal: 004 §9's MST-SC hybrid broadcast. "The
// vector is scattered through the real dimensions, MST-broadcasted within the virtual and
// remaining real dimensions, and then collected over the dimensions that it was initially
// scattered over" (mesh/mst_sc.hpp). The members run from the pure MST broadcast
// (member 0, mesh_mst's tree) to the pure SC broadcast (the last, mesh_sc's phases),
// scattering one more dimension, or one more factor of a dimension (the virtual dimension,
// interleaved as 004 advises: its collect rings are contiguous, its MST groups spaced), at
// each step.
//
// Requires: nothing, and for mesh_mst_sc a member index (Options::hybrid).
// Cost (sc_broadcast_cost), B the scattered blocks and b = ceil(n/B): the scatter lines'
// times (each digit's 1-D tree, the root last to finish), the MST groups' broadcast of b
// items, ceil(log2 g)(alpha + b beta) in groups of g nodes, and the rings' collect, sum
// (f_t - 1)(alpha + b f_0 ... f_{t-1} beta). Interleaved groups (mesh/mst_sc.hpp) take the
// rank-order tree, whose first cuts split the virtual dimension, and the MST phase is the
// longest path down it, a message across the virtual dimension alpha + b max(beta, p0
// beta_net), one within the lower dimensions alpha + b beta: for p1 a power of two
// ceil(log2 p1) and ceil(log2 (m_0 ... m_{j-1})) of them. 004's T_MST-SC-BROADCAST (004 §9,
// garbled in the OCR text) is this sum with 2 n / B beta_node for its scatter and collect.
// Claims: mesh_mst's for member 0, mesh_sc's for the last; the others sc_member_claim's:
// exact under 004's model (duplex ports, wormhole routing, shared links) on the group's own
// mesh where every scattered line's length is a power of two, an estimate elsewhere. Where a
// line's length is not, its nodes finish the scatter apart, the groups that share links
// start their MST apart, and a message across the virtual dimension shares its links for
// part of its length only; a formula exact there in general would have to follow the
// sharing message by message. One such line is counted exactly (mesh/mst_sc.cpp,
// crossing_sharers): a line of 3 whose groups take one crossing step (mesh:6x4 member 4,
// three groups 3 apart), whose far node's crossing message ends, alone, as the other two
// start, so these share two ways: b max(beta, 2 beta_net), not 004's p0 = 3 (the run is
// 004's formula less b beta: 0.96 times it at n = 65,536), exact where beta_net <= beta and
// the line's other digits are powers of two. Where such groups have lower dimensions
// (mesh:2x6, 3x6 and 4x6's member 2, groups m_0 x 2) the far group runs ahead and its eager
// ring messages take the in-ports of the root's group's last MST step: one more message
// less the lag, alpha + b beta - b (max(beta, 2 beta_net) - beta), alpha under 004's model
// (staggered_delay), exact with the root in the line whose crossing runs upwards and where
// 2 beta_net > beta, an estimate elsewhere. Where the
// lines are not alike (mesh:7x11 member 1, root 0) early nodes' eager ring messages take
// in-ports the scatter still needs, as in mesh_sc.
#include "collectives/broadcast/broadcast_internal.hpp"
#include "collectives/mesh/families.hpp"
#include "collectives/mesh/mst_sc.hpp"
#include "collectives/primitives/group_mesh.hpp"

namespace vmc::internal {

namespace {
ScSplit split_of(const CostQuery& q, int i) { return sc_split(mesh_shape_of(q), i); }

Claim claim(const CostQuery& q, int i) {
  const ScSplit s = split_of(q, i);
  if (s.scattered.phases() == 0) return claim_broadcast_mesh_mst(q);
  if (s.group.size() == 1) return claim_broadcast_mesh_sc(q);
  return sc_member_claim(q, s, patterns::MstFlow::outward);
}

const MeshFamily kFamily{
    "mesh_mst_sc",
    "MST-SC hybrid broadcast: MST scatter through the highest dimensions (and a factor of "
    "one, interleaved), MST broadcast within the rest, ring collect (004 §9)",
    "nothing",
    applies_always,
    [](const CostQuery& q) { return sc_members(mesh_shape_of(q)); },
    [](const CostQuery& q, int i) {
      return describe(split_of(q, i)) +
             end_member_note(i, sc_members(mesh_shape_of(q)) - 1, "mesh_mst", "mesh_sc");
    },
    [](const CostQuery& q, int i) { return sc_broadcast_cost(q, split_of(q, i)); },
    claim,
    [](const Call& c, int i) { sc_broadcast(c, sc_split(mesh_shape_of(*c.comm), i)); },
};
}  // namespace

std::vector<Algorithm> broadcast_mesh_mst_sc_rows() { return family_rows<kFamily>(); }

}  // namespace vmc::internal
