// allgather mesh_pfr_alt: mesh_pfr's PFR collect (004 §8, allgather_mesh_pfr.cpp) with
// §5.2's dimension alternation within a stage: "utilizing rings that lie in different
// dimensions in the mesh ... one effectively reduces contention by a factor of 1/d". Where
// consecutive phases have rings of one prime and one spacing > 1 in g dimensions (a group;
// on mesh:8x8 the rings 4 apart in x and y, then those 2 apart), a node of class c runs the
// group's phases rotated by c (patterns::stage_order): at each stage about 1/g of the nodes
// collect in each dimension, and of the interleaved rings of one dimension only about 1/g
// are active, so fewer messages share a link (004's c_{i,j} counts the active ones).
// Rings of spacing 1 are contiguous and share nothing; they do not alternate (004 §8:
// "only ... in the dimensions that are factorized").
//
// "The alternation modification may complicate the algorithm somewhat since non-contiguous
// portions may be sent or received, requiring that the data be rearranged" (§5.2): here
// each node keeps its buffer in its own staged layout (the digits in its stage order), where
// every chunk it sends or receives is contiguous, and passes chunks on as they are held;
// where the blocks then sit is known (patterns::staged_owners), and the one rearrangement
// into rank order at the end is mesh_pfr's, (p-1)/p n items. So nothing is rearranged per
// message and the alternation costs no delta beyond mesh_pfr's.
//
// Requires: nothing (any p, any counts).
// Cost: mesh_pfr's formula with the alternated stages' sharers, equal blocks of b items:
//   sum_t (f_t - 1) (alpha + b f_0 ... f_{t-1} max(beta, c_t beta_net)) + (p-1) b delta,
// c_t the messages on the busiest link at stage t with alternation (004 §5.2's c_{i,j} "the
// number of active rings in the i-th dimension that are interleaved with the j-th ring",
// counted on the machine's routes). 004 §8's T_PFR-COLLECT with its per-message delta
// summed once (allgather_mesh_pfr.cpp). Every node's stage s moves as much (a group's
// phases have one radix), so the stages run in lockstep; claims as mesh_pfr's, with the
// alternated stages' sharing.
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"

namespace vmc::internal {

Algorithm allgather_mesh_pfr_alt_row() {
  return {
      .name = "mesh_pfr_alt",
      .description = "prime factors rings, widest first, with dimension alternation within a "
                     "stage (004 §5.2, §8 PFR collect)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = [](const CostQuery& q) {
        return cost_allgather_plan(q, pfr_plan(q), Alternation::interleaved);
      },
      .run = [](const Call& call) {
        run_allgather_plan(call, pfr_plan(*call.comm), Alternation::interleaved);
      },
      .claim = [](const CostQuery& q) {
        return plan_claim(q, pfr_plan(q), Alternation::interleaved);
      },
      // Where no group alternates, run_allgather_plan runs mesh_pfr's collect.
      .same_run = [](const CostQuery& q) -> const char* {
        return patterns::alternates(pfr_plan(q), Alternation::interleaved) ? nullptr
                                                                           : "mesh_pfr";
      },
  };
}

}  // namespace vmc::internal
