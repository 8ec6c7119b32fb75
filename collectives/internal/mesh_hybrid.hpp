// 004's hybrids as families (§8-§12, §15.1): a hybrid row of an operation has members 0 ..
// size-1, each one way to split the work between a short-vector and a long-vector primitive
// (where the split falls: how many prime factors are merged, how many rings reduce whole
// vectors, which dimensions are scattered). The row named for the hybrid runs the member
// Options::hybrid names; its `_optimal` row runs the member of least time, found by trying
// every one (004 §15.1: "find the minimum running time for all hybrids as well as the pure
// short and long vector approaches"), by formula where the formulas are exact and by
// simulation where they are not, remembered per query ("cache recent hybrid strategies").
// Every family holds the pure algorithms as members, so the optimal member is never slower
// than they are.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/registry.hpp"

namespace vmc::internal {

// The query of a running call as every member of its group builds it alike: the v-variants'
// whole counts vector, not this rank's count.
CostQuery call_query(const Call& call);

// A hybrid family as the tables register it: the rows `name` (member Options::hybrid) and
// `name_optimal` (the member of least time, chosen_member).
struct HybridFamily {
  std::string name;         // e.g. "mesh_pfr_dr"
  std::string description;  // of the family; the rows add how they pick
  std::string requirements;  // beyond the member index ("nothing", "a commutative op")
  Operation op = Operation::allgather;
  bool (*applicable)(const CostQuery&) = nullptr;  // the family's own requirements
  int (*members)(const CostQuery&) = nullptr;
  std::string (*label)(const CostQuery&, int member) = nullptr;
  Picos (*cost)(const CostQuery&, int member) = nullptr;
  Claim (*claim)(const CostQuery&, int member) = nullptr;
  void (*run)(const Call&, int member) = nullptr;
};

// " (short)", " (long)" or " (short = long)" for the end members 0 and last of a family whose
// ends are the rows `short_row` and `long_row`; "" for the others. For explain's labels.
std::string end_member_note(int member, int last, const std::string& short_row,
                            const std::string& long_row);

// The member the `_optimal` row runs for q, remembered per (family, q). Where every
// member's formula is exact, or selection cannot simulate q, the member of least formula;
// otherwise the member of least simulated time (the formulas of interleaved MST groups, of
// rings over a network that is not the group's mesh, are estimates, and the least of them
// is not always the fastest run). Inside a simulation nothing is simulated: the choice
// made outside, for the same query, is taken when there is one (selection makes it before
// it simulates an `_optimal` row, see Algorithm::chosen), else the least formula.
int chosen_member(const HybridFamily& f, const CostQuery& q);
// The member the row runs for q: q.options.hybrid (the given row) or chosen_member.
int hybrid_member(const HybridFamily& f, const CostQuery& q, bool optimal);
// Whether the given row applies: the family's requirements, and Options::hybrid a member.
bool hybrid_given_applies(const HybridFamily& f, const CostQuery& q);
// "member 3 of 8: <label>", for explain's detail column.
std::string hybrid_detail(const HybridFamily& f, const CostQuery& q, bool optimal);
// The labels of every member for q (explain lists them).
std::vector<std::string> hybrid_labels(const HybridFamily& f, const CostQuery& q);
// The requirements texts of the two rows.
std::string hybrid_given_requirements(const HybridFamily& f);

// The two registry rows of a family F (a namespace-scope object).
template <const HybridFamily& F>
std::vector<Algorithm> hybrid_rows() {
  Algorithm given{
      F.name, F.description + "; the member Options::hybrid names (vmc explain lists them)",
      hybrid_given_requirements(F),
      [](const CostQuery& q) { return hybrid_given_applies(F, q); },
      [](const CostQuery& q) { return F.cost(q, hybrid_member(F, q, false)); },
      [](const Call& c) { F.run(c, hybrid_member(F, call_query(c), false)); },
      [](const CostQuery& q) { return hybrid_detail(F, q, false); },
      [](const CostQuery& q) { return F.claim(q, hybrid_member(F, q, false)); }, true};
  Algorithm optimal{
      F.name + "_optimal",
      F.description + "; the member of least time, every member tried (004 §15.1)",
      F.requirements, F.applicable,
      [](const CostQuery& q) { return F.cost(q, hybrid_member(F, q, true)); },
      [](const Call& c) { F.run(c, hybrid_member(F, call_query(c), true)); },
      [](const CostQuery& q) { return hybrid_detail(F, q, true); },
      [](const CostQuery& q) { return F.claim(q, hybrid_member(F, q, true)); }, true};
  optimal.members = [](const CostQuery& q) { return hybrid_labels(F, q); };
  optimal.chosen = [](const CostQuery& q) { return chosen_member(F, q); };
  optimal.member_row = F.name;
  return {given, optimal};
}

}  // namespace vmc::internal
