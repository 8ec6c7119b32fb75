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
#include "collectives/allreduce/algorithms.hpp"
#include "collectives/internal/combine_call.hpp"
#include "collectives/internal/mesh.hpp"
#include "collectives/internal/mesh_rings.hpp"
#include "collectives/internal/trees.hpp"

namespace vmc::internal {

namespace {
patterns::RingPlan plan_of(const patterns::MeshShape& shape) {
  return patterns::prime_factor_rings(shape, patterns::RingOrder::rank_order);
}
}  // namespace

bool applicable_allreduce_mesh_pfr(const CostQuery&) { return true; }

Picos cost_allreduce_mesh_pfr(const CostQuery& q) {
  if (q.n == 0 || q.p == 1) return 0;
  const patterns::RingPlan plan = plan_of(mesh_shape_of(q));
  const std::vector<int> sharers = charged_sharers(q, plan_sharing(q, plan, false));
  Picos cost = 0;
  for (int t = 0; t < plan.phases(); ++t) {
    const int f = plan.digits[t].radix;
    const Picos step = checked_add(
        ring_step_time(q, f, q.n, q.n, sharers.empty() ? 1 : sharers[t]), trees::comb(q, q.n),
        "allreduce step");
    cost = checked_add(cost, checked_mul(step, f - 1), "allreduce time");
  }
  return cost;
}

void run_allreduce_mesh_pfr(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size, bytes = n * isz;
  const patterns::RingPlan plan = plan_of(mesh_shape_of(c));
  auto acc = contribution(call, n);
  Bytes ring;
  for (int t = 0; t < plan.phases(); ++t) {
    const int f = plan.digits[t].radix;
    ring.resize(f * bytes);
    copy_items(ring.data() + plan.value(c.rank(), t) * bytes, acc.data(), n, isz);
    // One ring's collect of whole vectors: a plan of digit t alone, one block per member.
    ring_collect(c, patterns::RingPlan{plan.shape, {plan.digits[t]}}, ring.data(), isz,
                 Blocks::equal(n, f), call.tag);
    copy_items(acc.data(), ring.data(), n, isz);
    for (int u = 1; u < f; ++u) {
      trees::combine(c, *call.op, acc.data(), ring.data() + u * bytes, acc.data(), n);
    }
  }
  deliver(call, acc);
}

Claim claim_allreduce_mesh_pfr(const CostQuery& q) {
  return plan_claim(q, plan_of(mesh_shape_of(q)), false);
}

}  // namespace vmc::internal
