// reduce mesh_dg: 004 §11 DG (distributed reduction - gather) reduction-to-one, the SC
// broadcast reversed: a DR distributed reduction over the group's mesh, the highest
// dimension first (a ring along each line, 004 §6.1), leaves every node with its own block
// of the result; then the blocks are MST-gathered within each dimension, the lowest first,
// until the whole result is at the root. It is the last member of the MST-DG family, every
// dimension reduced by rings and no MST group (mesh/mst_sc.hpp, dg_reduce;
// reduce_mesh_mst_dg.cpp).
//
// Requires: a commutative op (the rings combine a block starting after its owner). Any p,
// root and n; a group that is not a whole mesh is a linear array. Blocks are ceil(n/p)
// items (the last ones padded with zero bytes, combined and dropped).
// Cost: 004 §11, T_DG-REDUCTION-TO-ONE = (sum_i (ceil(log2 m_i) + m_i - 1)) alpha +
// (p-1)/p n (2 beta + gamma); with b = ceil(n/p): the rings' and the gather lines' costs,
// sum_i (m_i - 1)(alpha + stride_i b (beta + gamma)) + sum_i ceil(log2 m_i) alpha +
// (p-1) b beta. The rings run in lockstep and end together; every line of a dimension's
// gather is alike, so the phases add up. Exact where the DR distributed reduction is
// (dims_claim, equal blocks): private links and the group's own mesh under duplex ports
// (all-port nodes take a line's gather messages at once over shared links: only on private
// links); a lower bound under exchange and half ports. 0 for n = 0.
#include "collectives/costs/claims.hpp"
#include "collectives/mesh/mst.hpp"
#include "collectives/mesh/mst_sc.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/reduce/reduce_internal.hpp"

namespace vmc::internal {

namespace {
ScSplit every_dimension(const patterns::MeshShape& shape) {
  return sc_split(shape, sc_members(shape) - 1);
}
}  // namespace

bool applicable_reduce_mesh_dg(const CostQuery& q) { return q.commutative; }

Picos cost_reduce_mesh_dg(const CostQuery& q) {
  return dg_reduce_cost(q, every_dimension(mesh_shape_of(q)));
}

void run_reduce_mesh_dg(const Call& call) {
  dg_reduce(call, every_dimension(mesh_shape_of(*call.comm)));
}
Claim claim_reduce_mesh_dg(const CostQuery& q) {
  const Claim rings = dims_claim(q);
  // All-port nodes take a line's gather messages at once, and they may share links.
  if (rings == Claim::exact && q.model.port == Port::all && !links_private(q)) {
    return Claim::lower_bound;
  }
  return rings;
}

Algorithm reduce_mesh_dg_row() {
  return {
      .name = "mesh_dg",
      .description = "DR distributed reduction from the highest dimension, then MST gather from "
                     "the lowest (004 §11 DG): sum_i (ceil(log2 m_i) + m_i - 1) alpha + (p-1)/p n "
                     "(2 beta + gamma)",
      .requirements = "a commutative op",
      .applicable = applicable_reduce_mesh_dg,
      .cost = cost_reduce_mesh_dg,
      .run = run_reduce_mesh_dg,
      .claim = claim_reduce_mesh_dg,
  };
}

}  // namespace vmc::internal
