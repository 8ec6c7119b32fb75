// Hybrid families and the member their `_optimal` rows run (mesh_hybrid.hpp).
#include "collectives/internal/mesh_hybrid.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "collectives/dispatch.hpp"
#include "collectives/internal/parallel.hpp"
#include "collectives/simulated_cost.hpp"

namespace vmc::internal {

CostQuery call_query(const Call& call) {
  const bool counts = !call.recv_counts.empty();
  CostQuery q = make_query(*call.comm, counts ? 0 : call.n, call.root, call.item_size,
                           call.op, false, *call.options);
  if (counts) q.counts.assign(call.recv_counts.begin(), call.recv_counts.end());
  return q;
}

namespace {

// The member of least formula (ties: the lowest index).
int least_formula_member(const HybridFamily& f, const CostQuery& q, int members) {
  int best = 0;
  Picos best_cost = f.cost(q, 0);
  for (int i = 1; i < members; ++i) {
    const Picos c = f.cost(q, i);
    if (c < best_cost) best = i, best_cost = c;
  }
  return best;
}

// The member of least simulated time, each run as the family's given row with
// Options::hybrid = i (ties: less emulation work, then the lower formula, then the lower
// index); empty when a member is too large to simulate.
std::optional<int> least_simulated_member(const HybridFamily& f, const Algorithm& given,
                                          const CostQuery& q, int members) {
  std::vector<std::optional<SimulatedRun>> runs(static_cast<std::size_t>(members));
  parallel_each(runs.size(), [&](std::size_t i) {
    CostQuery m = q;
    m.options.algorithm = f.name;
    m.options.hybrid = static_cast<int>(i);
    runs[i] = simulated_run(f.op, given, m);
  });
  std::optional<int> best;
  std::tuple<Picos, std::uint64_t, Picos> best_order{};
  for (int i = 0; i < members; ++i) {
    const std::optional<SimulatedRun>& r = runs[static_cast<std::size_t>(i)];
    if (!r) return std::nullopt;
    const std::tuple<Picos, std::uint64_t, Picos> order{r->time, r->work_bytes, f.cost(q, i)};
    if (!best || order < best_order) best = i, best_order = order;
  }
  return best;
}

// Whether every member's formula is its run's time for q (claim_of: the registry's own
// downgrades too, e.g. links of unequal bandwidth).
bool every_member_exact(const Algorithm& given, const CostQuery& q, int members) {
  CostQuery m = q;
  for (int i = 0; i < members; ++i) {
    m.options.hybrid = i;
    if (claim_of(given, m) != Claim::exact) return false;
  }
  return true;
}

}  // namespace

int chosen_member(const HybridFamily& f, const CostQuery& q) {
  static std::mutex mutex;
  static std::map<std::string, int, std::less<>> chosen;
  const Operation op = f.op;
  // The query as every node of a call builds it (call_query) and as selection and the
  // simulations pass it, alike: a v-variant's counts whole (equal counts spelled out), n
  // then 0; not in place; no row named.
  CostQuery base = q;
  if (op == Operation::allgatherv && base.counts.empty()) {
    base.counts.assign(static_cast<std::size_t>(base.p), base.n);
  }
  if (!base.counts.empty()) base.n = 0;
  base.options.algorithm.clear();
  base.options.hybrid = -1;
  base.in_place = false;
  const std::string key = f.name + '|' + query_key(op, base);
  const bool simulates = selection_simulates(q);
  {
    const std::lock_guard lock(mutex);
    if (auto it = chosen.find(key + "|sim"); it != chosen.end()) return it->second;
    if (!simulates) {
      if (auto it = chosen.find(key + "|formula"); it != chosen.end()) return it->second;
    }
  }
  // Made outside the lock: the simulations run machines whose nodes may choose too. Two
  // callers that choose at once choose alike (the runs are deterministic); the first kept.
  // Outside a simulation the choice is remembered as "|sim" even where it fell back to the
  // formulas (every member exact, or too large to simulate): it is the best there is.
  const int members = f.members(base);
  const Algorithm* given = find_algorithm(op, f.name);
  std::optional<int> best;
  if (simulates && given != nullptr && !every_member_exact(*given, base, members)) {
    best = least_simulated_member(f, *given, base, members);
  }
  if (!best) best = least_formula_member(f, base, members);
  const std::lock_guard lock(mutex);
  if (chosen.size() > 100000) chosen.clear();  // bounded
  return chosen.emplace(key + (simulates ? "|sim" : "|formula"), *best).first->second;
}

std::string end_member_note(int member, int last, const std::string& short_row,
                            const std::string& long_row) {
  if (member == 0 && last == 0) return " (" + short_row + " = " + long_row + ")";
  if (member == 0) return " (" + short_row + ")";
  if (member == last) return " (" + long_row + ")";
  return "";
}

int hybrid_member(const HybridFamily& f, const CostQuery& q, bool optimal) {
  return optimal ? chosen_member(f, q) : q.options.hybrid;
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
  const std::string member =
      "Options::hybrid naming a member of the family, as vmc explain lists them";
  return f.requirements == "nothing" ? member : f.requirements + " and " + member;
}

}  // namespace vmc::internal
