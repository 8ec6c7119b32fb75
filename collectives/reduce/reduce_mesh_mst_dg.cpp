// reduce mesh_mst_dg and mesh_mst_dg_optimal: 004 §11's MST-DG hybrid reduction-to-one,
// "the exact reverse" of the MST-SC broadcast: a distributed reduction over the highest
// dimensions (and a factor of one, the interleaved virtual dimension), an MST reduction
// within the rest, and an MST gather through the reduced dimensions, the lowest first, to
// the root (mesh/mst_sc.hpp). Member 0 is the pure MST reduction (mesh_mst's tree), the
// last the pure DG (mesh_dg's phases).
//
// Requires: a commutative op (the rings combine a block starting after its owner), and for
// mesh_mst_dg a member index (Options::hybrid). Blocks are ceil(n/B) items, the last ones
// padded with zero bytes, combined and dropped.
// Cost (dg_reduce_cost): the rings' sum (f_t - 1)(alpha + b f_0 ... f_{t-1} (beta + gamma)),
// the MST reduction of b items in groups of g nodes (mst_reduce_time: each node takes its
// children's messages in turn, combining each), and the gather lines' times. Interleaved
// groups (mesh/mst_sc.hpp) charge a message across the virtual dimension alpha + b max(beta,
// p0 beta_net) and one within the lower dimensions alpha + b beta; the rings end together
// everywhere, so the groups that share links run their trees in lockstep. 004's
// T_MST-DG-REDUCTION-TO-ONE (004 §11, garbled in the OCR text) is this sum, with
// ceil(log2 p1) crossing and ceil(log2 (m_0 ... m_{j-1})) lower messages of b (beta + gamma)
// on the longest path where no node combines one child's vector while the next arrives
// (eager messages let it: the time is then less, as for mesh_mst). Claims: mesh_mst's for
// member 0, mesh_dg's for the last; the others sc_member_claim's: exact under 004's model
// (duplex ports, wormhole routing, shared links) on the group's own mesh, an estimate
// elsewhere.
#include "collectives/mesh/families.hpp"
#include "collectives/mesh/mst_sc.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/reduce/reduce_internal.hpp"

namespace vmc::internal {

namespace {
ScSplit split_of(const CostQuery& q, int i) { return sc_split(mesh_shape_of(q), i); }

Claim claim(const CostQuery& q, int i) {
  const ScSplit s = split_of(q, i);
  if (s.scattered.phases() == 0) return claim_reduce_mesh_mst(q);
  if (s.group.size() == 1) return claim_reduce_mesh_dg(q);
  return sc_member_claim(q, s, patterns::MstFlow::inward);
}

const MeshFamily kFamily{
    "mesh_mst_dg",
    "MST-DG hybrid reduction-to-one: ring distributed reduction over the highest dimensions "
    "(and a factor of one, interleaved), MST reduction within the rest, MST gather (004 §11)",
    "a commutative op",
    applies_commutative,
    [](const CostQuery& q) { return sc_members(mesh_shape_of(q)); },
    [](const CostQuery& q, int i) {
      return describe(split_of(q, i)) +
             end_member_note(i, sc_members(mesh_shape_of(q)) - 1, "mesh_mst", "mesh_dg");
    },
    [](const CostQuery& q, int i) { return dg_reduce_cost(q, split_of(q, i)); },
    claim,
    [](const Call& c, int i) { dg_reduce(c, sc_split(mesh_shape_of(*c.comm), i)); },
};
}  // namespace

std::vector<Algorithm> reduce_mesh_mst_dg_rows() { return family_rows<kFamily>(); }

}  // namespace vmc::internal
