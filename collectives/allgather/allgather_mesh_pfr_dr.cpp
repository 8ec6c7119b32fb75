// allgather mesh_pfr_dr and mesh_pfr_dr_optimal: 004 §8's PFR-DR hybrid collect. "One
// partially factorizes the dimensions": member h of the family merges h prime factors of
// the mesh lengths, the highest dimensions first (patterns::pfr_dr_rings), so the early
// phases run on interleaved prime factors rings, few startups for the small chunks, and the
// late ones on whole dimensional rings, no contention for the large ones. Member 0 is
// mesh_pfr's plan, the last member mesh_dr's. The collect itself is mesh_pfr's code over the
// member's plan (allgather_mesh_pfr.cpp: a ring allgather of layout chunks, phase by phase,
// and one rearrangement into rank order at the end unless the layout is the rank order).
// mesh_pfr_dr_alt and mesh_pfr_dr_alt_optimal are the same family with §5.2's dimension
// alternation within a stage (allgather_mesh_pfr_alt.cpp): "the dimensional-alternation
// strategy for the PFR should only be used in the dimensions that are factorized; it should
// not be used in the dimensions containing pure DR" (§8), and only rings of spacing > 1
// alternate, which the whole rings are not. Member 0 is mesh_pfr_alt's plan, the last
// mesh_dr's (nothing alternates there).
//
// Requires: nothing, and for mesh_pfr_dr a member index (Options::hybrid, `--hybrid`).
// Cost: mesh_pfr's over the member's plan, sum_t (f_t - 1) (alpha + b f_0 ... f_{t-1}
// max(beta, c_t beta_net)) + (p-1) b delta, with the rearrangement only where the layout is
// not the rank order. 004's T_PFR-DR-COLLECT (garbled in the OCR text) is this sum. Claims
// as mesh_pfr's, for the member's plan.
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/mesh/families.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"

namespace vmc::internal {

namespace pfr_dr_collect {
template <Alternation A>
Picos cost(const CostQuery& q, int h) {
  return cost_allgather_plan(q, patterns::pfr_dr_rings(mesh_shape_of(q), h), A);
}
template <Alternation A>
void run(const Call& c, int h) {
  run_allgather_plan(c, patterns::pfr_dr_rings(mesh_shape_of(*c.comm), h), A);
}

constexpr auto kNone = Alternation::none;
constexpr auto kAlternate = Alternation::interleaved;
// Where member h's rings do not alternate, run_allgather_plan runs the plain member.
const char* same_run_alternating(const CostQuery& q, int h) {
  return patterns::alternates(patterns::pfr_dr_rings(mesh_shape_of(q), h), kAlternate)
             ? nullptr
             : "mesh_pfr_dr";
}
const MeshFamily kFamily{
    "mesh_pfr_dr",
    "PFR-DR hybrid collect: prime factors rings for the first phases, whole dimensional "
    "rings for the last (004 §8)",
    "nothing",
    applies_always,
    pfr_dr_members,
    pfr_dr_label_of<kNone>,
    cost<kNone>,
    pfr_dr_claim_of<kNone>,
    run<kNone>,
};
const MeshFamily kAlternating{
    "mesh_pfr_dr_alt",
    "PFR-DR hybrid collect with dimension alternation within a stage in the factored "
    "phases: prime factors rings for the first phases, whole dimensional rings for the last "
    "(004 §5.2, §8)",
    "nothing",
    applies_always,
    pfr_dr_members,
    pfr_dr_label_of<kAlternate>,
    cost<kAlternate>,
    pfr_dr_claim_of<kAlternate>,
    run<kAlternate>,
    same_run_alternating,
};
}  // namespace pfr_dr_collect

std::vector<Algorithm> allgather_mesh_pfr_dr_rows() {
  return family_rows<pfr_dr_collect::kFamily>();
}
std::vector<Algorithm> allgather_mesh_pfr_dr_alt_rows() {
  return family_rows<pfr_dr_collect::kAlternating>();
}

}  // namespace vmc::internal
