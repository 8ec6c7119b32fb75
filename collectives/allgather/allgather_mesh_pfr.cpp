// allgather mesh_pfr: 004 §8 PFR collect on the prime factors rings of §5.2. Each length m_i
// of the group's mesh is factored into primes p_{i,j}; each prime makes rings of p_{i,j}
// nodes spaced along dimension i (the largest prime contiguous, the next spaced by it, ...),
// and the nodes collect ring by ring, as a ring allgather of chunks, from the widest rings to
// the closest (004 Fig. 7: the early phases, which move little data, suffer the contention
// of interleaved rings; the last ones move the most data between neighbours). A node's
// chunks are contiguous in the plan's layout (patterns/mesh_rings.hpp), so the collect runs
// in a buffer in that order and the p - 1 received blocks are put in rank order at the end,
// one rearrangement of (p-1)/p n items (none when every m_i is prime: then the layout is the
// rank order and mesh_pfr is mesh_dr). Every node runs the rings in the same order;
// allgather_mesh_pfr_alt.cpp is the same collect with §5.2's dimension alternation.
//
// Requires: nothing (any p, any counts).
// Cost, equal blocks of b items (n = p b), phase t with rings of f_t nodes on which c_t
// messages share the busiest link (004's c_{i,j}, counted on the machine's routes; 1 under
// exclusive contention or where the routes are not known):
//   sum_t (f_t - 1) (alpha + b f_0 ... f_{t-1} max(beta, c_t beta_net)) + (p-1) b delta.
// 004 §8 charges delta with each message, n/(prod of the rings not yet collected) delta per
// step; summed over the steps that is the same (p-1)/p n delta, paid here once at the end.
// Where every m_i is prime (mesh:7x11) the layout is the rank order and nothing is charged:
// 004's PFR formula, read literally, charges delta there too, but the rings are then the
// dimensional rings, whose DR collect has none, and 004's reason for delta (§5.2: "non-
// contiguous portions may be sent or received") does not arise. Kept so, a modelling choice
// docs/004-formulas.md names beside 004's formula.
// One-partner ports as in allgather_mesh_dr. Exact for equal blocks under duplex and all
// ports where the rings share no link or, under shared contention, where every message of a
// phase shares alike (the phases run in lockstep: tests/collectives/mesh_rings_ops_test.cpp);
// an estimate where they do not; a lower bound under exclusive contention with shared links
// (messages wait) and for longer rings under exchange and half ports.
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"

namespace vmc::internal {

void run_allgather_plan(const Call& call, const patterns::RingPlan& plan,
                        Alternation a) {
  const Comm& comm = *call.comm;
  const Blocks blocks = prepare_allgather(call);
  if (!patterns::alternates(plan, a) && plan.identity_layout()) {
    ring_collect(comm, plan, call.recv, call.item_size, blocks, call.tag);
    return;
  }
  const int me = comm.rank();
  const std::vector<int> owners = layout_owners(plan, me, a);
  const Blocks work = plan_layout(owners, blocks);
  Bytes buf(work.total() * call.item_size);
  move_blocks(owners, me, blocks, call.recv, work, buf.data(), call.item_size, true,
              WhichBlocks::own);
  ring_collect(comm, patterns::staged_plan(plan, me, a), buf.data(), call.item_size, work,
               call.tag);
  move_blocks(owners, me, blocks, call.recv, work, buf.data(), call.item_size, false,
              WhichBlocks::others);
  const std::size_t others = work.total() - blocks.counts[me];
  if (others > 0) comm.charge_rearrange(others);
}

Picos cost_allgather_plan(const CostQuery& q, const patterns::RingPlan& plan,
                          Alternation a) {
  const std::vector<std::size_t> counts = layout_counts(q, plan);
  return checked_add(
      ring_collect_cost(q, plan, counts, charged_sharers(q, plan_sharing(q, plan, a))),
      plan_rearrange_cost(q, plan, counts), "allgather time");
}

void run_allgather_mesh_pfr(const Call& call) {
  run_allgather_plan(call, pfr_plan(*call.comm), Alternation::none);
}

Picos cost_allgather_mesh_pfr(const CostQuery& q) {
  return cost_allgather_plan(q, pfr_plan(q), Alternation::none);
}

Claim claim_allgather_mesh_pfr(const CostQuery& q) {
  return plan_claim(q, pfr_plan(q), Alternation::none);
}

Algorithm allgather_mesh_pfr_row() {
  return {
      .name = "mesh_pfr",
      .description = "prime factors rings: rings of each prime factor of the mesh lengths, widest "
                     "first (004 §8 PFR collect)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_allgather_mesh_pfr,
      .run = run_allgather_mesh_pfr,
      .claim = claim_allgather_mesh_pfr,
  };
}

}  // namespace vmc::internal
