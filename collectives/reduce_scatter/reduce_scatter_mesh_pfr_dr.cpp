// reduce_scatter mesh_pfr_dr and mesh_pfr_dr_optimal: 004 §10's PFR-DR hybrid distributed
// reduction: "the PFR and DR algorithms for the distributed reduction can be hybridized by
// partially factoring the dimensions to better balance the relative latency and
// transmission costs of the two methods". Member h is the collect's plan of
// allgather_mesh_pfr_dr.cpp (h prime factors merged, the highest dimensions first) run
// backwards by mesh_pfr's code (reduce_scatter_mesh_pfr.cpp): the whole dimensional rings
// first, with the most data and no contention, the interleaved prime factors rings last,
// with the least. Member 0 is mesh_pfr's plan, the last member mesh_dr's.
//
// Requires: a commutative op, and for mesh_pfr_dr a member index (Options::hybrid).
// Cost: mesh_pfr's over the member's plan, (p-1) b delta (none where the layout is the rank
// order) + sum_t (f_t - 1) (alpha + c'_t (max(beta, c_t beta_net) + gamma)); 004's
// T_PFR-DR-DISTRIBUTED-REDUCTION (garbled in the OCR text) is this sum. Claims as
// mesh_pfr's, for the member's plan. mesh_pfr_dr_alt and mesh_pfr_dr_alt_optimal: the same
// family with §5.2's dimension alternation within a stage in the factored phases
// (reduce_scatter_mesh_pfr_alt.cpp, allgather_mesh_pfr_dr.cpp).
#include "collectives/mesh/families.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"

namespace vmc::internal {

namespace pfr_dr_reduction {
template <Alternation A>
Picos cost(const CostQuery& q, int h) {
  return cost_reduce_scatter_plan(q, patterns::pfr_dr_rings(mesh_shape_of(q), h), A);
}
template <Alternation A>
void run(const Call& call, int h) {
  run_reduce_scatter_on_plan(call, patterns::pfr_dr_rings(mesh_shape_of(*call.comm), h), A);
}

constexpr auto kNone = Alternation::none;
constexpr auto kAlternate = Alternation::interleaved;
// Where member h's rings do not alternate, reduce_scatter_plan runs the plain member.
const char* same_run_alternating(const CostQuery& q, int h) {
  return patterns::alternates(patterns::pfr_dr_rings(mesh_shape_of(q), h), kAlternate)
             ? nullptr
             : "mesh_pfr_dr";
}
const MeshFamily kFamily{
    "mesh_pfr_dr",
    "PFR-DR hybrid distributed reduction: whole dimensional rings for the first phases, "
    "prime factors rings for the last (004 §10)",
    "a commutative op",
    applies_commutative,
    pfr_dr_members,
    pfr_dr_label_of<kNone>,
    cost<kNone>,
    pfr_dr_claim_of<kNone>,
    run<kNone>,
};
const MeshFamily kAlternating{
    "mesh_pfr_dr_alt",
    "PFR-DR hybrid distributed reduction with dimension alternation within a stage in the "
    "factored phases: whole dimensional rings for the first phases, prime factors rings for "
    "the last (004 §5.2, §10)",
    "a commutative op",
    applies_commutative,
    pfr_dr_members,
    pfr_dr_label_of<kAlternate>,
    cost<kAlternate>,
    pfr_dr_claim_of<kAlternate>,
    run<kAlternate>,
    same_run_alternating,
};
}  // namespace pfr_dr_reduction

std::vector<Algorithm> reduce_scatter_mesh_pfr_dr_alt_rows() {
  return family_rows<pfr_dr_reduction::kAlternating>();
}
std::vector<Algorithm> reduce_scatter_mesh_pfr_dr_rows() {
  return family_rows<pfr_dr_reduction::kFamily>();
}

}  // namespace vmc::internal
