// reduce_scatter mesh_pfr: 004 §10 PFR distributed reduction on the prime factors rings of
// §5.2: the rings of allgather_mesh_pfr.cpp run backwards, closest first, so the first
// phases, which move the most data, run between neighbours and the widest, interleaved rings
// move the least. "In each ring, the nodes trade and reduce a portion equal in length to all
// the portions destined for the nodes in the remaining rings to which they belong": a ring
// reduce-scatter of chunks that are contiguous in the plan's layout (patterns/mesh_rings.hpp).
// A node first puts its p - 1 other blocks in layout order, one rearrangement of (p-1)/p n
// items (none when every m_i is prime: then mesh_pfr is mesh_dr). No dimension alternation;
// reduce_scatter_mesh_pfr_alt.cpp is the same reduction with it.
//
// Requires: a commutative op (a ring combines each chunk starting after its owner).
// Cost, equal blocks of b items (n = p b), phase t with rings of f_t nodes and c_t messages
// on the busiest link (004's c_{i,j}; 1 under exclusive contention or unknown routes), run
// from t = last (closest) to t = 0, with chunks of c'_t = b f_0 ... f_{t-1} items:
//   (p-1) b delta + sum_t (f_t - 1) (alpha + c'_t (max(beta, c_t beta_net) + gamma)).
// 004 §10 charges delta with each message; summed over the steps that is the same (p-1)/p n
// delta, paid here once at the start. Where every m_i is prime nothing is rearranged and
// nothing charged: 004's PFR formula, read literally, charges delta there too, but its rings
// are then the dimensional rings, whose DR formula (§10) has none, and 004's reason for delta
// (§5.2: non-contiguous portions) does not arise; kept so, a modelling choice
// docs/004-formulas.md names. One-partner ports and claims as allgather_mesh_pfr.
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"

namespace vmc::internal {

void reduce_scatter_plan(const Comm& comm, const patterns::RingPlan& plan,
                         Alternation a, void* buf, std::size_t item_size,
                         const Blocks& blocks, const Op& op, Tag tag) {
  if (!patterns::alternates(plan, a) && plan.identity_layout()) {
    ring_reduce_scatter(comm, plan, buf, item_size, blocks, op, tag);
    return;
  }
  const int me = comm.rank();
  const std::vector<int> owners = layout_owners(plan, me, a);
  const Blocks work = plan_layout(owners, blocks);
  Bytes layout(work.total() * item_size);
  move_blocks(owners, me, blocks, buf, work, layout.data(), item_size, true, WhichBlocks::all);
  const std::size_t others = work.total() - blocks.counts[me];
  if (others > 0) comm.charge_rearrange(others);
  ring_reduce_scatter(comm, patterns::staged_plan(plan, me, a), layout.data(), item_size, work,
                      op, tag);
  move_blocks(owners, me, blocks, buf, work, layout.data(), item_size, false, WhichBlocks::own);
}

Picos cost_reduce_scatter_plan(const CostQuery& q, const patterns::RingPlan& plan,
                               Alternation a) {
  const std::vector<std::size_t> counts = layout_counts(q, plan);
  return checked_add(
      plan_rearrange_cost(q, plan, counts),
      ring_reduce_scatter_cost(q, plan, counts, charged_sharers(q, plan_sharing(q, plan, a))),
      "reduce_scatter time");
}

void run_reduce_scatter_on_plan(const Call& call, const patterns::RingPlan& plan,
                                Alternation a) {
  run_reduce_scatter(call, [&](const Comm& comm, void* buf, std::size_t item_size,
                               const Blocks& blocks, const Op& op, Tag tag) {
    reduce_scatter_plan(comm, plan, a, buf, item_size, blocks, op, tag);
  });
}

Algorithm reduce_scatter_mesh_pfr_row() {
  return {
      .name = "mesh_pfr",
      .description = "prime factors rings: rings of each prime factor of the mesh lengths, "
                     "closest first (004 §10 PFR distributed reduction)",
      .requirements = "a commutative op",
      .applicable = applies_commutative,
      .cost = [](const CostQuery& q) {
        return cost_reduce_scatter_plan(q, pfr_plan(q), Alternation::none);
      },
      .run = [](const Call& call) {
        run_reduce_scatter_on_plan(call, pfr_plan(*call.comm), Alternation::none);
      },
      .claim = [](const CostQuery& q) {
        return plan_claim(q, pfr_plan(q), Alternation::none);
      },
  };
}

}  // namespace vmc::internal
