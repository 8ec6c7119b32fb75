// 004's hybrids as families (§8-§12, §15.1): a hybrid row of an operation has members 0 ..
// size-1, each one way to split the work between a short-vector and a long-vector primitive
// (where the split falls: how many prime factors are merged, how many rings reduce whole
// vectors, which dimensions are scattered). The row named for the hybrid runs the member
// Options::hybrid names; its `_optimal` row runs the member of least time, which selection
// finds by trying every one (collectives/selection/members.hpp) and hands down to it in
// Options::hybrid; given none, the `_optimal` row runs and prices the member of least
// formula. Every family holds the pure algorithms as members, so the optimal member is never
// slower than they are.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

// A hybrid family of 004 as the tables register it: the rows `name` (member Options::hybrid)
// and `name_optimal` (the member of least time, handed down by selection).
struct MeshFamily {
  std::string name;         // e.g. "mesh_pfr_dr"
  std::string description;  // of the family; the rows add how they pick
  std::string requirements;  // beyond the member index ("nothing", "a commutative op")
  bool (*applicable)(const CostQuery&) = nullptr;  // the family's own requirements
  int (*members)(const CostQuery&) = nullptr;
  std::string (*label)(const CostQuery&, int member) = nullptr;
  Picos (*cost)(const CostQuery&, int member) = nullptr;
  Claim (*claim)(const CostQuery&, int member) = nullptr;
  void (*run)(const Call&, int member) = nullptr;
  // Optional: the row whose member of the same index runs as this family's member does
  // (Algorithm::same_run), or null.
  const char* (*same_run)(const CostQuery&, int member) = nullptr;
};

// " (short)", " (long)" or " (short = long)" for the end members 0 and last of a family whose
// ends are the rows `short_row` and `long_row`; "" for the others. For explain's labels.
std::string end_member_note(int member, int last, const std::string& short_row,
                            const std::string& long_row);

// The member the `_optimal` row runs for q: the one handed down in Options::hybrid, or
// given none, the member of least formula (ties: the lowest index).
int optimal_member(const MeshFamily& f, const CostQuery& q);
// The same for a running call.
int optimal_member(const MeshFamily& f, const Call& call);
// Whether the given row applies: the family's requirements, and Options::hybrid a member.
bool family_given_applies(const MeshFamily& f, const CostQuery& q);
// "member 3 of 0..7: <label>", for explain's detail column.
std::string family_detail(const MeshFamily& f, const CostQuery& q, int member);
// The labels of every member for q (explain lists them).
std::vector<std::string> family_labels(const MeshFamily& f, const CostQuery& q);
// The requirements texts of the two rows.
std::string family_given_requirements(const MeshFamily& f);

// The two registry rows of a family F (a namespace-scope object).
template <const MeshFamily& F>
std::vector<Algorithm> family_rows() {
  Algorithm given{
      F.name, F.description + "; the member Options::hybrid names (vmc explain lists them)",
      family_given_requirements(F),
      [](const CostQuery& q) { return family_given_applies(F, q); },
      [](const CostQuery& q) { return F.cost(q, q.options.hybrid); },
      [](const Call& c) { F.run(c, c.options->hybrid); },
      [](const CostQuery& q) { return family_detail(F, q, q.options.hybrid); },
      [](const CostQuery& q) { return F.claim(q, q.options.hybrid); }, true};
  if (F.same_run != nullptr) {
    given.same_run = [](const CostQuery& q) { return F.same_run(q, q.options.hybrid); };
  }
  Algorithm optimal{
      F.name + "_optimal",
      F.description + "; the member of least time, every member tried (004 §15.1)",
      F.requirements, F.applicable,
      [](const CostQuery& q) { return F.cost(q, optimal_member(F, q)); },
      [](const Call& c) { F.run(c, optimal_member(F, c)); },
      [](const CostQuery& q) { return family_detail(F, q, optimal_member(F, q)); },
      [](const CostQuery& q) { return F.claim(q, optimal_member(F, q)); }, true};
  optimal.members = [](const CostQuery& q) { return family_labels(F, q); };
  optimal.member_row = F.name;
  return {given, optimal};
}

}  // namespace vmc::internal
