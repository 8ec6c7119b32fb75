// reduce_scatter mesh_pfr_alt: mesh_pfr's PFR distributed reduction (004 §10,
// reduce_scatter_mesh_pfr.cpp) with §5.2's dimension alternation within a stage: the
// alternating collect of allgather_mesh_pfr_alt.cpp run backwards. A node of class c runs a
// group's phases (rings of one prime and one spacing > 1 in several dimensions) rotated by
// c, so about 1/g of the interleaved rings of a dimension are active at a stage. Each node
// first puts its p blocks in the order its alternating collect would leave them
// (patterns::staged_owners, one rearrangement of (p-1)/p n items, as mesh_pfr's); every
// chunk a ring member sends is then contiguous and in the order the receiver holds the same
// blocks, so no message is rearranged.
//
// Requires: a commutative op (a ring combines each chunk starting after its owner).
// Cost: mesh_pfr's formula with the alternated stages' sharers c_t (004 §5.2's c_{i,j}),
// equal blocks of b items, run from the closest stage to the widest, chunks of
// c'_t = b f_0 ... f_{t-1} items:
//   (p-1) b delta + sum_t (f_t - 1) (alpha + c'_t (max(beta, c_t beta_net) + gamma)),
// 004 §10's T_PFR-DISTRIBUTED-REDUCTION with its per-message delta summed once. Claims as
// mesh_pfr's, with the alternated stages' sharing.
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"

namespace vmc::internal {

Algorithm reduce_scatter_mesh_pfr_alt_row() {
  return {
      .name = "mesh_pfr_alt",
      .description = "prime factors rings, closest first, with dimension alternation within a "
                     "stage (004 §5.2, §10 PFR distributed reduction)",
      .requirements = "a commutative op",
      .applicable = applies_commutative,
      .cost = [](const CostQuery& q) {
        return cost_reduce_scatter_plan(q, pfr_plan(q), Alternation::interleaved);
      },
      .run = [](const Call& call) {
        run_reduce_scatter_on_plan(call, pfr_plan(*call.comm), Alternation::interleaved);
      },
      .claim = [](const CostQuery& q) {
        return plan_claim(q, pfr_plan(q), Alternation::interleaved);
      },
      // Where no group alternates, reduce_scatter_plan runs mesh_pfr's reduction.
      .same_run = [](const CostQuery& q) -> const char* {
        return patterns::alternates(pfr_plan(q), Alternation::interleaved) ? nullptr
                                                                           : "mesh_pfr";
      },
  };
}

}  // namespace vmc::internal
