// allreduce mesh_pfr_pfr_dc and mesh_pfr_pfr_dc_optimal: 004 §12's reduction-to-all hybrids
// in one family. "The strategy which was given in [1] hybridizes the PFR-DC and PFR
// approaches. The distributed reduction is performed over a subset of the rings, leaving"
// the others to circulate and combine whole (short) vectors; and "for very long vectors" the
// DR buckets. A member is a pair (h, k): the rings are the PFR-DR plan of h merged prime
// factors (patterns::pfr_dr_rings, as the collect's hybrid), and the distributed reduction
// and the collect run over its last k digits (the closest rings, which carry the large
// chunks), the first ones combining whole chunks (mesh/rings.hpp, plan_allreduce).
// Members in order h = 0, 1, ..., and for each h, k = 0 .. phases. Among them:
//   (0, 0)            the PFR reduction-to-all (mesh_pfr's rings, whole vectors);
//   (0, phases)       PFR-DC (mesh_pfr_dc);
//   (last, phases)    DR-DC, 004's buckets (mesh_dr);
//   (0, 0 < k < phases) PFR-PFR-DC, 004's hybrid of [1].
//
// Requires: a commutative op, and for mesh_pfr_pfr_dc a member index (Options::hybrid).
// Cost (plan_allreduce_cost), B the product of the last k radices, c = ceil(n/B) and s_t the
// sharers of digit t (004's c_{i,j}):
//   sum_{t >= phases-k} (f_t - 1) (2 alpha + c f_{phases-k} ... f_{t-1} (2 max(beta, s_t
//   beta_net) + gamma)) + sum_{t < phases-k} (f_t - 1) (alpha + c (max(beta, s_t beta_net)
//   + gamma))
// under duplex and all ports (one-partner ports: ring steps as allgather_mesh_pfr.cpp); 004's
// T_PFR-PFR-DC-REDUCTION-TO-ALL (garbled in the OCR text) without its delta terms: a node's
// block is its layout index, so nothing is rearranged. Claims: the plan's (plan_claim).
//
// mesh_pfr_pfr_dc_alt and mesh_pfr_pfr_dc_alt_optimal: the same members with §5.2's
// dimension alternation within a stage ("by utilizing rings that lie in different dimensions
// in the mesh ... one effectively reduces contention"), in each of the two parts: the tail's
// groups (runs of interleaved digits of one prime and spacing in several dimensions) rotate
// as in mesh_pfr_dc_alt (allreduce_mesh_pfr_dc_alt.cpp), by a class counting the tail's
// other digits; the head's groups rotate too (§12: for the whole-vector rings "this is
// minimized by using rings in alternating dimensions"), by a class counting the tail's
// digits alone, so the nodes that hold one block combine in one order and every node ends
// with the same bits (patterns::stage_order's split), and only where the tail holds every
// closer digit of the group's dimensions (they tell its interleaved rings apart; otherwise
// its stages would meet unequal sharing and the formula would not hold). A member whose
// tail is empty has no class to rotate by: it is the member without alternation. The cost
// is the formula above with s_t the sharers of stage t under alternation (004's c_{i,j}: the
// active interleaved rings), plus 2 (B-1) c delta where the tail alternates (its blocks put
// in the staged order and back, as mesh_pfr_dc_alt). Member (0, phases) is mesh_pfr_dc_alt,
// (last, phases) DR-DC.
#include "collectives/mesh/families.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace {
struct Member {
  patterns::RingPlan plan;
  int dc = 0;
  int h = 0;  // the plan's merged prime factors
};

// Member i of the shape's family: the pairs (h, k) in order.
Member member_of(const patterns::MeshShape& shape, int i) {
  const auto family = patterns::pfr_dr_family(shape);
  const int merges = static_cast<int>(family->size()) - 1;
  for (int h = 0; h <= merges; ++h) {
    const patterns::RingPlan& plan = (*family)[static_cast<std::size_t>(h)];
    if (i <= plan.phases()) return {plan, i, h};
    i -= plan.phases() + 1;
  }
  return {family->back(), 0, merges};  // out of range: not applicable
}

int members(const CostQuery& q) {
  int count = 0;
  for (const patterns::RingPlan& plan : *patterns::pfr_dr_family(mesh_shape_of(q))) {
    count += plan.phases() + 1;
  }
  return count;
}

template <Alternation A>
std::string label(const CostQuery& q, int i) {
  const Member m = member_of(mesh_shape_of(q), i);
  const bool pfr = m.h == 0;
  const bool dr = m.h == patterns::pfr_dr_merges(mesh_shape_of(q));
  const bool alt = A != Alternation::none;
  std::string named;
  if (pfr && m.dc == 0) named = " (PFR: mesh_pfr)";
  if (pfr && m.dc == m.plan.phases() && m.dc > 0) {
    named = alt ? " (PFR-DC: mesh_pfr_dc_alt)" : " (PFR-DC: mesh_pfr_dc)";
  }
  if (dr && m.dc == m.plan.phases() && m.dc > 0) named += " (DR-DC: mesh_dr)";
  return patterns::describe_plan(m.plan) + "; distributed reduction and collect over the last " +
         std::to_string(m.dc) + " of " + std::to_string(m.plan.phases()) + " rings" + named;
}

// The head's digits (phases - dc) split the plan for the alternation (patterns::stage_order).
int split_of(const Member& m) { return m.plan.phases() - m.dc; }

template <Alternation A>
Picos cost(const CostQuery& q, int i) {
  const Member m = member_of(mesh_shape_of(q), i);
  return plan_allreduce_cost(q, m.plan, m.dc,
                             charged_sharers(q, plan_sharing(q, m.plan, A, split_of(m))), A);
}

template <Alternation A>
Claim claim(const CostQuery& q, int i) {
  const Member m = member_of(mesh_shape_of(q), i);
  return plan_claim(q, m.plan, A, split_of(m));
}

template <Alternation A>
void run(const Call& call, int i) {
  const Member m = member_of(mesh_shape_of(*call.comm), i);
  plan_allreduce(call, m.plan, m.dc, A);
}

constexpr auto kNone = Alternation::none;
constexpr auto kAlternate = Alternation::interleaved;

// The alternating member's run is the plain member's where nothing rotates (1-D rings,
// a hypercube's rings of two, a member without a tail).
const char* plain_member_run(const CostQuery& q, int i) {
  const Member m = member_of(mesh_shape_of(q), i);
  return plan_allreduce_alternates(m.plan, m.dc, kAlternate) ? nullptr : "mesh_pfr_pfr_dc";
}

const MeshFamily kFamily{
    "mesh_pfr_pfr_dc",
    "reduction-to-all hybrids: a distributed reduction and a collect over the closest "
    "rings, whole vectors combined on the others, over prime factors, partly merged or "
    "dimensional rings (004 §12 PFR-PFR-DC; PFR, PFR-DC and DR-DC are members)",
    "a commutative op",
    applies_commutative,
    members,
    label<kNone>,
    cost<kNone>,
    claim<kNone>,
    run<kNone>,
};
const MeshFamily kAlternating{
    "mesh_pfr_pfr_dc_alt",
    "reduction-to-all hybrids with dimension alternation within a stage: a distributed "
    "reduction and a collect over the closest rings, whole vectors combined on the others, "
    "each part's interleaved prime factors rings alternating dimensions (004 §5.2, §12 "
    "PFR-PFR-DC; PFR, PFR-DC with alternation and DR-DC are members)",
    "a commutative op",
    applies_commutative,
    members,
    label<kAlternate>,
    cost<kAlternate>,
    claim<kAlternate>,
    run<kAlternate>,
    plain_member_run,
};
}  // namespace

std::vector<Algorithm> allreduce_mesh_pfr_pfr_dc_rows() { return family_rows<kFamily>(); }
std::vector<Algorithm> allreduce_mesh_pfr_pfr_dc_alt_rows() {
  return family_rows<kAlternating>();
}

}  // namespace vmc::internal
