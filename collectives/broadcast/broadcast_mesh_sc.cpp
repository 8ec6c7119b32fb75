// broadcast mesh_sc: 004 §9 SC (scatter-collect) broadcast. The vector, cut into p blocks,
// is MST-scattered through each dimension of the group's mesh, the highest first (first
// along the root's line of dimension d-1, then each of those nodes along its line of
// dimension d-2, ...), so that every node holds its own block; then the blocks are
// DR-collected in each dimension, the lowest first (a ring along each line, 004 §6.1). It
// is the last member of the MST-SC family, every dimension scattered and no MST group
// (mesh/mst_sc.hpp, sc_broadcast; broadcast_mesh_mst_sc.cpp).
//
// Requires: nothing (any p, root and n; a group that is not a whole mesh is a linear array:
// a 1-D scatter, then a ring collect). Blocks are ceil(n/p) items (the last ones padded;
// the padding travels and is dropped).
// Cost: 004 §9, T_SC-BROADCAST = (sum_i (ceil(log2 m_i) + m_i - 1)) alpha + 2 (p-1)/p n beta;
// with b = ceil(n/p): the scatter lines' and the rings' costs, sum_i ceil(log2 m_i) alpha +
// (p-1) b beta + sum_i (m_i - 1)(alpha + stride_i b beta). Under duplex and all-port nodes
// the rings of each dimension end (m_i - 1) steps after their last member is ready, which
// is the root's chain, so the phases add up, provided no eager ring message of a node that
// is done with the scatter takes the in-port of one that still waits for its scatter
// message. Found so (tests/collectives/mesh_mst_test.cpp, the formula claims sweep, not
// proven): on meshes whose lengths are all powers of two, any root, and on one-dimensional
// groups rooted at either end; elsewhere (mesh:4x3 root 0, array:13 root 1) such messages
// delay the scatter and the formula is a lower bound. So: exact under two-sided ports on
// those groups, on private links and on the group's own mesh (the scatter's lines are 1-D
// trees, contention-free on every line and ring); a lower bound elsewhere and under
// exchange and half ports (ring steps take turns, dims_claim). 0 for n = 0.
#include "collectives/broadcast/broadcast_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/mesh/mst.hpp"
#include "collectives/mesh/mst_sc.hpp"
#include "collectives/primitives/group_mesh.hpp"

namespace vmc::internal {

namespace {
ScSplit every_dimension(const patterns::MeshShape& shape) {
  return sc_split(shape, sc_members(shape) - 1);
}
}  // namespace

bool applicable_broadcast_mesh_sc(const CostQuery&) { return true; }

Picos cost_broadcast_mesh_sc(const CostQuery& q) {
  return sc_broadcast_cost(q, every_dimension(mesh_shape_of(q)));
}

void run_broadcast_mesh_sc(const Call& call) {
  sc_broadcast(call, every_dimension(mesh_shape_of(*call.comm)));
}
Claim claim_broadcast_mesh_sc(const CostQuery& q) {
  const Claim collect = dims_claim(q);
  if (collect != Claim::exact) return collect;
  // Elsewhere nodes finish their scatter at uneven times and the early ones' eager ring
  // messages take in-ports the scatter still needs (see the header comment).
  const patterns::MeshShape shape = mesh_shape_of(q);
  bool powers_of_two = true;
  for (int m : shape.lengths) powers_of_two = powers_of_two && is_power_of_two(m);
  const bool end_root = shape.dimensions() <= 1 && (q.root == 0 || q.root == q.p - 1);
  return powers_of_two || end_root ? Claim::exact : Claim::lower_bound;
}

Algorithm broadcast_mesh_sc_row() {
  return {
      .name = "mesh_sc",
      .description = "MST scatter through each dimension from the highest, then DR collect from "
                     "the lowest (004 §9 SC): sum_i (ceil(log2 m_i) + m_i - 1) alpha + 2 (p-1)/p n "
                     "beta",
      .requirements = "nothing",
      .applicable = applicable_broadcast_mesh_sc,
      .cost = cost_broadcast_mesh_sc,
      .run = run_broadcast_mesh_sc,
      .claim = claim_broadcast_mesh_sc,
  };
}

}  // namespace vmc::internal
