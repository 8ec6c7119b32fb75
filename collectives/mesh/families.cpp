// Hybrid families and the member their `_optimal` rows run (families.hpp).
#include "collectives/mesh/families.hpp"

namespace vmc::internal {

int optimal_member(const MeshFamily& f, const CostQuery& q) {
  if (q.options.hybrid >= 0) return q.options.hybrid;
  return least_cost_member(f.members(q), [&](int i) { return f.cost(q, i); });
}

int optimal_member(const MeshFamily& f, const Call& call) {
  if (call.options->hybrid >= 0) return call.options->hybrid;
  return optimal_member(f, call_query(call));
}

std::string end_member_note(int member, int last, const std::string& short_row,
                            const std::string& long_row) {
  if (member == 0 && last == 0) return " (" + short_row + " = " + long_row + ")";
  if (member == 0) return " (" + short_row + ")";
  if (member == last) return " (" + long_row + ")";
  return "";
}

bool family_given_applies(const MeshFamily& f, const CostQuery& q) {
  return f.applicable(q) && q.options.hybrid >= 0 && q.options.hybrid < f.members(q);
}

std::string family_detail(const MeshFamily& f, const CostQuery& q, int i) {
  return "member " + std::to_string(i) + " of 0.." + std::to_string(f.members(q) - 1) + ": " +
         f.label(q, i);
}

std::vector<std::string> family_labels(const MeshFamily& f, const CostQuery& q) {
  std::vector<std::string> out;
  for (int i = 0; i < f.members(q); ++i) out.push_back(f.label(q, i));
  return out;
}

std::string family_given_requirements(const MeshFamily& f) {
  const std::string member =
      "Options::hybrid naming a member of the family, as vmc explain lists them";
  return f.requirements == "nothing" ? member : f.requirements + " and " + member;
}

}  // namespace vmc::internal
