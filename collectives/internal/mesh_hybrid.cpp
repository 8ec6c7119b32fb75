// Hybrid families and their least-cost member (mesh_hybrid.hpp).
#include "collectives/internal/mesh_hybrid.hpp"

#include <map>
#include <mutex>

#include "collectives/dispatch.hpp"

namespace vmc::internal {

CostQuery call_query(const Call& call) {
  const bool counts = !call.recv_counts.empty();
  CostQuery q = make_query(*call.comm, counts ? 0 : call.n, call.root, call.item_size,
                           call.op, false, *call.options);
  if (counts) q.counts.assign(call.recv_counts.begin(), call.recv_counts.end());
  return q;
}

int least_cost_member(std::string_view family, Operation op, const CostQuery& q, int members,
                      const std::function<Picos(int)>& cost) {
  static std::mutex mutex;
  static std::map<std::string, int, std::less<>> chosen;
  CostQuery key_query = q;
  key_query.options.algorithm.clear();
  key_query.options.hybrid = -1;
  std::string key(family);
  key += '|';
  key += query_key(op, key_query);
  const std::lock_guard lock(mutex);
  if (auto it = chosen.find(key); it != chosen.end()) return it->second;
  int best = 0;
  Picos best_cost = cost(0);
  for (int i = 1; i < members; ++i) {
    const Picos c = cost(i);
    if (c < best_cost) best = i, best_cost = c;
  }
  chosen.emplace(std::move(key), best);
  return best;
}

std::string end_member_note(int member, int last, const std::string& short_row,
                            const std::string& long_row) {
  if (member == 0 && last == 0) return " (" + short_row + " = " + long_row + ")";
  if (member == 0) return " (" + short_row + ")";
  if (member == last) return " (" + long_row + ")";
  return "";
}

int hybrid_member(const HybridFamily& f, const CostQuery& q, bool optimal) {
  if (!optimal) return q.options.hybrid;
  return least_cost_member(f.name, f.op, q, f.members(q),
                           [&](int i) { return f.cost(q, i); });
}

bool hybrid_given_applies(const HybridFamily& f, const CostQuery& q) {
  return f.applicable(q) && q.options.hybrid >= 0 && q.options.hybrid < f.members(q);
}

std::string hybrid_detail(const HybridFamily& f, const CostQuery& q, bool optimal) {
  const int i = hybrid_member(f, q, optimal);
  return "member " + std::to_string(i) + " of 0.." + std::to_string(f.members(q) - 1) + ": " +
         f.label(q, i);
}

std::vector<std::string> hybrid_labels(const HybridFamily& f, const CostQuery& q) {
  std::vector<std::string> out;
  for (int i = 0; i < f.members(q); ++i) out.push_back(f.label(q, i));
  return out;
}

std::string hybrid_given_requirements(const HybridFamily& f) {
  const std::string member = "Options::hybrid naming a member of the family, as vmc explain lists them";
  return f.requirements == "nothing" ? member : f.requirements + " and " + member;
}

}  // namespace vmc::internal
