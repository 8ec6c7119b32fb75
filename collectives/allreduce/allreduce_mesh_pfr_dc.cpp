// allreduce mesh_pfr_dc: 004 §12 PFR-DC reduction-to-all: "by cutting the vector in half at
// each stage, this redundancy is eliminated ...: the nodes essentially perform a distributed
// reduction followed by a collect", on the prime factors rings of §5.2: a PFR distributed
// reduction (closest rings first, reduce_scatter/reduce_scatter_mesh_pfr.cpp) then a PFR
// collect (widest first, allgather/allgather_mesh_pfr.cpp) of the vector cut into p blocks of
// c = ceil(n/p) items (the last ones padded). Which node ends the reduction with which
// block does not matter here, so block x belongs to the node of layout index x: every chunk
// is contiguous and nothing is rearranged (004 charges delta in both halves).
//
// Requires: a commutative op.
// Cost, phase t with rings of f_t nodes, chunks of c f_0 ... f_{t-1} items and c_t messages
// on the busiest link (004's c_{i,j}; 1 under exclusive contention or unknown routes):
//   sum_t (f_t - 1) (2 alpha + c f_0 ... f_{t-1} (2 max(beta, c_t beta_net) + gamma)),
// 004's T_PFR-DISTRIBUTED-REDUCTION + T_PFR-COLLECT without their delta terms. 004 sums the
// two formulas, delta included, but does not say in which order the blocks must end ("the
// nodes essentially perform a distributed reduction followed by a collect"); blocks in
// layout order need no rearrangement, so none is charged: a modelling choice, kept, that
// docs/004-formulas.md names beside 004's formula (its delta table). One-partner ports and
// claims as allgather_mesh_pfr.cpp.
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_allreduce_mesh_pfr_dc(const CostQuery& q) { return q.commutative; }

Picos cost_allreduce_mesh_pfr_dc(const CostQuery& q) {
  const patterns::RingPlan plan = pfr_plan(q);
  return plan_allreduce_cost(q, plan, plan.phases(),
                            charged_sharers(q, plan_sharing(q, plan, Alternation::none)));
}

void run_allreduce_mesh_pfr_dc(const Call& call) {
  const patterns::RingPlan plan = pfr_plan(*call.comm);
  plan_allreduce(call, plan, plan.phases());
}

Claim claim_allreduce_mesh_pfr_dc(const CostQuery& q) {
  return plan_claim(q, pfr_plan(q), Alternation::none);
}

Algorithm allreduce_mesh_pfr_dc_row() {
  return {
      .name = "mesh_pfr_dc",
      .description = "prime factors rings: PFR distributed reduction, then PFR collect (004 §12 "
                     "PFR-DC)",
      .requirements = "a commutative op",
      .applicable = applicable_allreduce_mesh_pfr_dc,
      .cost = cost_allreduce_mesh_pfr_dc,
      .run = run_allreduce_mesh_pfr_dc,
      .claim = claim_allreduce_mesh_pfr_dc,
  };
}

}  // namespace vmc::internal
