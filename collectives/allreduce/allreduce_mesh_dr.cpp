// allreduce mesh_dr: 004 §12's "buckets" reduction-to-all for very long vectors: a DR
// distributed reduction (reduce_scatter/reduce_scatter_mesh_dr.cpp: a ring in each dimension
// of the group's mesh, highest first) then a DR collect of the result
// (allgather/allgather_mesh_dr.cpp: lowest first), on the vector cut into p blocks of
// c = ceil(n/p) items (the last ones padded).
//
// Requires: a commutative op (the rings combine each block starting after its owner).
// Cost: the sum of the two, T_DR-DISTRIBUTED-REDUCTION + T_DR-COLLECT (004 §12):
//   duplex, all:  2 sum_i (m_i - 1) alpha + (p - 1) c (2 beta + gamma)
// (004: 2 sum (m_i - 1) alpha + (p-1)/p n (2 beta + gamma) when p divides n). On mesh:7x11
// with alpha 525 us, beta 2 us, gamma 0.35 us and n = 65536 that is 298.1 ms by 004's
// formula, 298.5 ms with c = 852. One-partner ports as allgather_mesh_dr.cpp. Exact under
// duplex and all ports on the group's own mesh (no two messages share a link) and on
// private links; a lower bound for longer rings under exchange and half ports.
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_allreduce_mesh_dr(const CostQuery& q) { return q.commutative; }

Picos cost_allreduce_mesh_dr(const CostQuery& q) {
  const patterns::RingPlan plan = patterns::dimensional_rings(mesh_shape_of(q));
  return plan_allreduce_cost(q, plan, plan.phases(), {});
}

void run_allreduce_mesh_dr(const Call& call) {
  const patterns::RingPlan plan = patterns::dimensional_rings(mesh_shape_of(*call.comm));
  plan_allreduce(call, plan, plan.phases());
}

Algorithm allreduce_mesh_dr_row() {
  return {
      .name = "mesh_dr",
      .description = "dimensional rings: DR distributed reduction, then DR collect (004 §12 "
                     "buckets)",
      .requirements = "a commutative op",
      .applicable = applicable_allreduce_mesh_dr,
      .cost = cost_allreduce_mesh_dr,
      .run = run_allreduce_mesh_dr,
      .claim = dr_claim,
  };
}

}  // namespace vmc::internal
