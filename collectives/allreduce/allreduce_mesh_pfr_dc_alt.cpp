// allreduce mesh_pfr_dc_alt: mesh_pfr_dc's PFR-DC reduction-to-all (004 §12,
// allreduce_mesh_pfr_dc.cpp) with §5.2's dimension alternation within a stage: the
// alternating distributed reduction of reduce_scatter_mesh_pfr_alt.cpp, then the
// alternating collect of allgather_mesh_pfr_alt.cpp, of the vector cut into p blocks of
// c = ceil(n/p) items (the last ones padded). mesh_pfr_dc gives block x to the node of
// layout index x on every node, so nothing moves; with alternation the ring members' layouts
// differ, and each node puts the vector in its own alternating order first and back at the
// end (patterns::staged_owners): 2 (p-1) c items rearranged, where 004 charges delta with
// every message of both halves. The rings of a group of one prime and spacing > 1 (several
// dimensions) run rotated by the node's class, so fewer interleaved rings are active at a
// stage.
//
// Requires: a commutative op.
// Cost, phase t with rings of f_t nodes, chunks of c f_0 ... f_{t-1} items and c_t messages
// on the busiest link with alternation (004 §5.2's c_{i,j}; 1 under exclusive contention or
// unknown routes):
//   sum_t (f_t - 1) (2 alpha + c f_0 ... f_{t-1} (2 max(beta, c_t beta_net) + gamma))
//   + 2 (p-1) c delta,
// 004's T_PFR-DISTRIBUTED-REDUCTION + T_PFR-COLLECT with their per-message delta summed
// once (the rearrangement is the whole vector twice, not the messages). Where no group
// alternates (every m_i prime, or no two dimensions with one prime and spacing) it is
// mesh_pfr_dc exactly, with no rearrangement. Claims as mesh_pfr_dc's, with the alternated
// stages' sharing.
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

Algorithm allreduce_mesh_pfr_dc_alt_row() {
  return {
      .name = "mesh_pfr_dc_alt",
      .description = "prime factors rings with dimension alternation within a stage: PFR "
                     "distributed reduction, then PFR collect (004 §5.2, §12 PFR-DC)",
      .requirements = "a commutative op",
      .applicable = applies_commutative,
      .cost = [](const CostQuery& q) {
        const patterns::RingPlan plan = pfr_plan(q);
        const std::vector<int> sharers =
            charged_sharers(q, plan_sharing(q, plan, Alternation::interleaved));
        return plan_allreduce_cost(q, plan, plan.phases(), sharers, Alternation::interleaved);
      },
      .run = [](const Call& call) {
        const patterns::RingPlan plan = pfr_plan(*call.comm);
        plan_allreduce(call, plan, plan.phases(), Alternation::interleaved);
      },
      .claim = [](const CostQuery& q) {
        return plan_claim(q, pfr_plan(q), Alternation::interleaved);
      },
      .same_run = [](const CostQuery& q) -> const char* {
        const patterns::RingPlan plan = pfr_plan(q);
        return plan_allreduce_alternates(plan, plan.phases(), Alternation::interleaved)
                   ? nullptr
                   : "mesh_pfr_dc";
      },
  };
}

}  // namespace vmc::internal
