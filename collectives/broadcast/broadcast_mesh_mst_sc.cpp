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
// times (each digit's 1-D tree, the root last to finish), ceil(log2 g) (alpha + b beta) for
// the MST groups of g nodes (beta replaced by max(beta, p0 beta_net) when interleaved), and
// the rings' collect, sum (f_t - 1)(alpha + b f_0 ... f_{t-1} beta). 004's T_MST-SC-BROADCAST
// (garbled in the OCR text) is this sum with 2 n / B beta_node for its scatter and collect.
// Claims: mesh_mst's for member 0, mesh_sc's for the last; an estimate for the others (the
// scatter ends at different times on different lines, so the MST groups and the rings do
// not start together, and interleaved groups share links).
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
  return Claim::estimate;
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
