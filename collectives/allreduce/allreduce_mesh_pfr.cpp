// allreduce mesh_pfr: 004 §12 PFR reduction-to-all, for short vectors: ring by ring of the
// prime factors rings of §5.2, every node passes its whole (partly reduced) vector around
// its ring, f - 1 steps, and combines the ring's f vectors; after the last ring every node
// holds the result. "There is no need to rearrange data since the entire vector is being
// used." The rings run in rank order (dimension 0 first, each dimension's closest rings
// first) and a node combines its ring's vectors in ring order x_0 op x_1 op ... op x_{f-1},
// so the result is op over the ranks in rank order, bitwise the same on every node: any op,
// commutative or not. 004 would alternate dimensions to lessen contention; that would have
// nodes combine in different orders (no rank order, different rounding on different
// nodes), so here every node runs the same order and the interleaved rings of a phase share
// links as 004's c_{i,j} counts.
//
// Requires: nothing.
// Cost, phase t with rings of f_t nodes and c_t messages on the busiest link (1 under
// exclusive contention or unknown routes):
//   sum_t (f_t - 1) (alpha + n (max(beta, c_t beta_net) + gamma))
// exactly 004's T_PFR-REDUCTION-TO-ALL (the f_t - 1 combines follow the ring's steps instead
// of each one, the same time). One-partner ports and claims as allgather_mesh_pfr.cpp.
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_allreduce_mesh_pfr(const CostQuery&) { return true; }

Picos cost_allreduce_mesh_pfr(const CostQuery& q) {
  if (q.n == 0 || q.p == 1) return 0;
  const patterns::RingPlan plan =
      patterns::prime_factor_rings(mesh_shape_of(q), patterns::RingOrder::rank_order);
  return plan_allreduce_cost(q, plan, 0,
                             charged_sharers(q, plan_sharing(q, plan, Alternation::none)));
}

void run_allreduce_mesh_pfr(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const patterns::RingPlan plan =
      patterns::prime_factor_rings(mesh_shape_of(c), patterns::RingOrder::rank_order);
  auto acc = contribution(call, call.n);
  for (int t = 0; t < plan.phases(); ++t) {
    ring_combine(c, plan, t, acc.data(), call.n, call.item_size, *call.op, call.tag);
  }
  deliver(call, acc);
}

Claim claim_allreduce_mesh_pfr(const CostQuery& q) {
  const patterns::RingPlan plan =
      patterns::prime_factor_rings(mesh_shape_of(q), patterns::RingOrder::rank_order);
  return plan_claim(q, plan, Alternation::none);
}

Algorithm allreduce_mesh_pfr_row() {
  return {
      .name = "mesh_pfr",
      .description = "prime factors rings: each ring circulates and combines whole vectors (004 "
                     "§12 PFR reduction-to-all)",
      .requirements = "nothing",
      .applicable = applicable_allreduce_mesh_pfr,
      .cost = cost_allreduce_mesh_pfr,
      .run = run_allreduce_mesh_pfr,
      .claim = claim_allreduce_mesh_pfr,
  };
}

}  // namespace vmc::internal
