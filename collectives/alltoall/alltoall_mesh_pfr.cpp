// alltoall mesh_pfr: 004 §13's interleaved exchange ([10]'s interleaved binary exchange,
// generalised to any mesh by the prime factors rings of §5.2): ring by ring of prime
// length p_{i,j}, the nodes run the ring all-to-all of alltoall_mesh_dr.cpp ("the nodes
// circulate all the subvectors destined for nodes that are in the remaining rings of the
// other nodes of the current ring"), with §5.2's dimension alternation: where consecutive
// phases have rings of one length and spacing in several dimensions, about 1/d of the nodes
// work in each dimension at each stage (patterns::stage_order), so fewer interleaved rings
// share a link. Every phase moves p n / 2 items per step on average, so the order of the
// rings only changes which ones interleave.
//
// Requires: nothing (alltoall only, as mesh_dr).
// Cost, blocks of n items, stage t with rings of f_t nodes and c_t messages on the busiest
// link (004's c_{i,j} with alternation; 1 under exclusive contention or unknown routes):
//   sum_t (f_t - 1) (alpha + (p n / 2) max(beta, c_t beta_net) + 2 (p n / f_t) delta).
// 004's formula for this algorithm is lost in the source text ("where n is the length of
// all of the vectors on all of the nodes ... and j represents the rings in the i-th
// dimension"); this is the algorithm's own, derived as in alltoall_mesh_dr.cpp, delta
// included (what the schedule rearranges: a node's own groups when a stage starts and each
// group that arrives home). docs/004-formulas.md derives 004's from its PFR terms, the DR
// all-to-all's per ring of the prime factors rings with §5.2's c_{i,j}, sum_t (f_t - 1)
// (alpha + N/(2p) (max(beta, c_t beta) + delta)), N = p^2 n: this cost with delta = 0, to
// the picosecond on its nine meshes; with delta, the DR row's modelling choice. One-partner
// ports as allgather_mesh_dr.cpp. Exact under duplex and all ports where no stage shares a
// link, or, under shared contention, where every message of a stage shares alike; an
// estimate where they do not; a lower bound under exclusive contention with shared links.
#include "collectives/alltoall/alltoall_internal.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"

namespace vmc::internal {

void run_alltoall_mesh_pfr(const Call& call) {
  const Comm& c = *call.comm;
  copy_items(call.recv, call.send, call.n * c.size(), call.item_size);
  ring_alltoall(c, pfr_plan(c), Alternation::every_group, call.recv, call.n, call.item_size,
                call.tag);
}

Picos cost_alltoall_mesh_pfr(const CostQuery& q) {
  const patterns::RingPlan plan = pfr_plan(q);
  return ring_alltoall_cost(q, plan, q.n,
                            charged_sharers(q, plan_sharing(q, plan, Alternation::every_group)));
}

Claim claim_alltoall_mesh_pfr(const CostQuery& q) {
  return plan_claim(q, pfr_plan(q), Alternation::every_group);
}

Algorithm alltoall_mesh_pfr_row() {
  return {
      .name = "mesh_pfr",
      .description =
          "prime factors rings with dimension alternation: 004 §13 interleaved exchange",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_alltoall_mesh_pfr,
      .run = run_alltoall_mesh_pfr,
      .claim = claim_alltoall_mesh_pfr,
  };
}

}  // namespace vmc::internal
