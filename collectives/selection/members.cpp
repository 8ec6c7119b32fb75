// The member of a hybrid family its `_optimal` row runs (members.hpp).
#include "collectives/selection/members.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>
#include <vector>

#include "collectives/registry/registry.hpp"
#include "collectives/selection/parallel.hpp"
#include "collectives/selection/simulation.hpp"

namespace vmc {

namespace {

// q with member i handed down to the family's row.
CostQuery member_query(const CostQuery& q, int i) {
  CostQuery m = q;
  m.options.hybrid = i;
  return m;
}

// The member of least simulated time, each run as the family's given row with
// Options::hybrid = i (ties: less emulation work, then the lower formula, then the lower
// index); empty when a member run fails (too large to simulate), or when more members are
// worth running than `budget` private runs allow. A member whose formula is exact or a lower
// bound and exceeds another member's exact formula (a time that member is known to take)
// cannot win or tie: it is not worth running, and is not counted. The others are run in
// increasing order of formula, as many side by side as the host has cores, and before each
// batch a member whose lower bound exceeds the least time known so far (an exact formula or
// a run made) is dropped too: it cannot win or tie either (on mesh:8x8 an allreduce family's
// 25 members take 5 or 6 runs). A member whose formula is exact takes its formula's time:
// it is run only if it ties for the least time (the tie is broken by what the runs measured).
// Given `bound` (a time another row is known to take), a member whose lower bound exceeds it
// is dropped as well, without changing what counts against the budget; when no member left
// takes `bound` or less, the family cannot win against that row, and the answer is
// `outrun` (any member it chose could differ from the one chosen without the bound).
struct MemberChoice {
  std::optional<int> member;  // empty: judged by formula (a run failed, or over budget)
  bool outrun = false;        // no member takes `bound` or less
};
MemberChoice least_simulated_member(Operation op, const Algorithm& given, const CostQuery& q,
                                    int members, int budget, std::optional<Picos> bound) {
  std::vector<Picos> formula(static_cast<std::size_t>(members));
  std::vector<Claim> claim(formula.size());
  std::optional<Picos> known;
  for (int i = 0; i < members; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    formula[k] = given.cost(member_query(q, i));
    claim[k] = claim_of(given, member_query(q, i));
    if (claim[k] == Claim::exact && (!known || formula[k] < *known)) known = formula[k];
  }
  auto beaten = [&](std::size_t k) {
    return known && claim[k] != Claim::estimate && formula[k] > *known;
  };
  std::vector<std::size_t> run;  // the members worth running
  for (std::size_t k = 0; k < formula.size(); ++k) {
    if (!beaten(k)) run.push_back(k);
  }
  if (run.size() > static_cast<std::size_t>(budget)) return {};
  if (bound && (!known || *bound < *known)) known = bound;
  std::vector<std::optional<SimulatedRun>> runs(formula.size());
  // A run is stopped once its time passes `limit` (simulated_run): it is then `over`, its
  // time above the least time known before its batch, so it neither wins nor ties (nor
  // lowers what is known) and no choice changes. The deferred runs are made whole.
  auto simulate = [&](const std::vector<std::size_t>& which, std::optional<Picos> limit) {
    internal::parallel_each(which.size(), [&](std::size_t j) {
      CostQuery m = member_query(q, static_cast<int>(which[j]));
      m.options.algorithm = given.name;
      runs[which[j]] = simulated_run(op, given, m, limit);
    });
  };
  std::vector<std::size_t> now, deferred;
  for (std::size_t k : run) (claim[k] == Claim::exact ? deferred : now).push_back(k);
  std::stable_sort(now.begin(), now.end(),
                   [&](std::size_t a, std::size_t b) { return formula[a] < formula[b]; });
  const std::size_t batch = std::max(1u, std::thread::hardware_concurrency());
  std::vector<char> dropped(formula.size(), 0);
  for (std::size_t next = 0; next < now.size();) {
    std::vector<std::size_t> these;
    for (; next < now.size() && these.size() < batch; ++next) {
      if (beaten(now[next])) {
        dropped[now[next]] = 1;
      } else {
        these.push_back(now[next]);
      }
    }
    simulate(these, known);
    for (std::size_t k : these) {
      if (!runs[k]) return {};
      if (!known || runs[k]->time < *known) known = runs[k]->time;
    }
  }
  std::optional<Picos> least;
  for (std::size_t k : run) {
    if (dropped[k]) continue;  // slower than a time known: cannot win
    const Picos t = claim[k] == Claim::exact ? formula[k] : runs[k]->time;
    if (!least || t < *least) least = t;
  }
  if (bound && (!least || *least > *bound)) return {.outrun = true};
  if (!least) return {};
  std::vector<std::size_t> tied;
  for (std::size_t k : deferred) {
    if (formula[k] == *least) tied.push_back(k);
  }
  simulate(tied, std::nullopt);
  std::optional<int> best;
  std::tuple<Picos, std::uint64_t, Picos> best_order{};
  for (std::size_t k : run) {
    if (dropped[k]) continue;
    if (claim[k] == Claim::exact && formula[k] != *least) continue;  // slower: cannot win
    const std::optional<SimulatedRun>& r = runs[k];
    if (!r) return {};
    const std::tuple<Picos, std::uint64_t, Picos> order{r->time, r->work_bytes, formula[k]};
    if (!best || order < best_order) best = static_cast<int>(k), best_order = order;
  }
  return {.member = best};
}

// Whether every member's formula is its run's time for q (claim_of: the registry's own
// downgrades too, e.g. links of unequal bandwidth).
bool every_member_exact(const Algorithm& given, const CostQuery& q, int members) {
  for (int i = 0; i < members; ++i) {
    if (claim_of(given, member_query(q, i)) != Claim::exact) return false;
  }
  return true;
}

}  // namespace

int chosen_member(Operation op, const Algorithm& row, const CostQuery& q) {
  return *chosen_member_within(op, row, q, std::nullopt);
}

std::optional<int> chosen_member_within(Operation op, const Algorithm& row, const CostQuery& q,
                                        std::optional<Picos> bound) {
  if (row.members == nullptr) return -1;
  static std::mutex mutex;
  static std::map<std::string, int, std::less<>> chosen;
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
  const std::string key = row.member_row + '|' + query_key(op, base);
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
  const int members = static_cast<int>(row.members(base).size());
  const Algorithm* given = find_algorithm(op, row.member_row);
  if (given == nullptr) return -1;
  std::optional<int> best;
  // Within the choice's budget of private runs (simulation_budget: it shrinks with p): a
  // family with more members worth running than that takes its least formula, as above
  // 4096 nodes.
  if (simulates && !every_member_exact(*given, base, members)) {
    const MemberChoice c =
        least_simulated_member(op, *given, base, members, simulation_budget(base), bound);
    if (c.outrun) return std::nullopt;  // nothing remembered: the bound decided
    best = c.member;
  }
  if (!best) {
    best = least_cost_member(members, [&](int i) { return given->cost(member_query(base, i)); });
  }
  const std::lock_guard lock(mutex);
  if (chosen.size() > 100000) chosen.clear();  // bounded
  return chosen.emplace(key + (simulates ? "|sim" : "|formula"), *best).first->second;
}

CostQuery row_query(Operation op, const Algorithm& row, const CostQuery& q) {
  const int member = chosen_member(op, row, q);
  return member < 0 ? q : member_query(q, member);
}

}  // namespace vmc
