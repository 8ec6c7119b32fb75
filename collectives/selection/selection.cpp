// Choosing the row of a call (selection.hpp).
#include "collectives/selection/selection.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "collectives/registry/registry.hpp"
#include "collectives/selection/members.hpp"
#include "collectives/selection/parallel.hpp"
#include "collectives/selection/simulation.hpp"

namespace vmc {

namespace {

// 004 §15.1: the choice for (operation, p, n) is made once and remembered. A registered
// algorithm may be the better choice for queries decided before it came: the choices are
// forgotten when the registry's count of registrations moves on.
struct SelectionCache {
  std::mutex mutex;
  std::unordered_map<std::string, const Algorithm*> chosen;
  std::uint64_t registrations = 0;  // what the remembered choices were made with
};

SelectionCache& selection_cache() {
  static SelectionCache cache;
  return cache;
}

// Which candidates selection must simulate, with every candidate's formula in `formula`.
// A formula that is exact or a lower bound (its claim) says the run takes at least that
// long; a candidate whose such formula exceeds the least exact formula (a time some
// candidate is known to take) cannot win or tie, and is not simulated: on hypercube:4096
// the ring allreduce of one item, 49 million messages, loses to recursive doubling by its
// formula alone.
std::vector<bool> worth_simulating(Operation op, const std::vector<const Algorithm*>& candidates,
                                   const CostQuery& q, std::vector<Picos>& formula) {
  formula.resize(candidates.size());
  std::vector<Claim> claim(candidates.size());
  std::optional<Picos> known;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const CostQuery as_run = row_query(op, *candidates[i], q);
    formula[i] = candidates[i]->cost(as_run);
    claim[i] = claim_of(*candidates[i], as_run);
    if (claim[i] == Claim::exact && (!known || formula[i] < *known)) known = formula[i];
  }
  std::vector<bool> simulate(candidates.size(), true);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (known && claim[i] != Claim::estimate && formula[i] > *known) simulate[i] = false;
  }
  return simulate;
}

}  // namespace

Model emulation_model(std::size_t item_size) {
  // Measured on the 2-core machines vmc is tested on (bench/bench_collectives.cpp): about
  // a microsecond of host work per message (hand-off, matching, logging), copies at about
  // 10 GB/s and combines at about 3 GB/s of the item type.
  const double bytes = static_cast<double>(item_size == 0 ? 1 : item_size);
  return Model{.alpha = 1e-6, .beta = 0.1e-9 * bytes, .gamma = 0.3e-9 * bytes,
               .port = Port::duplex, .routing = Routing::direct};
}

const Algorithm& select_algorithm(Operation op, const CostQuery& q) {
  if (q.options.custom != nullptr) {
    const Algorithm& a = *q.options.custom;
    if (a.run == nullptr) {
      throw std::invalid_argument(to_string(op) + ": algorithm " + a.name + " has no run function");
    }
    if (a.applicable != nullptr && !a.applicable(q)) {
      throw std::invalid_argument(to_string(op) + ": algorithm " + a.name +
                                  " does not apply here (requires " + a.requirements + ")");
    }
    return a;
  }
  const auto& table = algorithms(op);
  if (q.options.algorithm != "auto") {
    const Algorithm* a = find_algorithm(op, q.options.algorithm);
    if (a == nullptr) {
      std::string names;
      for (const Algorithm& x : table) names += (names.empty() ? "" : ", ") + x.name;
      throw std::invalid_argument(to_string(op) + ": no algorithm \"" + q.options.algorithm +
                                  "\" (expected auto or one of " + names + ")");
    }
    if (!a->applicable(q)) {
      throw std::invalid_argument(to_string(op) + ": algorithm " + a->name +
                                  " does not apply here (requires " + a->requirements + ")");
    }
    return *a;
  }
  // Inside a selection's own simulation the choice comes from formulas only: a different
  // choice, remembered apart.
  const std::string key = query_key(op, q) + (selection_simulates(q) ? "|sim" : "|formula");
  SelectionCache& cache = selection_cache();
  const std::uint64_t registered = registrations();
  {
    std::lock_guard lock(cache.mutex);
    if (cache.registrations != registered) {
      cache.chosen.clear();
      cache.registrations = registered;
    }
    auto it = cache.chosen.find(key);
    if (it != cache.chosen.end()) return *it->second;
  }
  // Where links are shared or routes have several hops, run the code and take its time:
  // every applicable candidate on a private machine of its own, side by side (oneTBB).
  std::vector<const Algorithm*> candidates;
  for (const Algorithm& a : table) {
    if (a.applicable(q)) candidates.push_back(&a);
  }
  std::vector<std::optional<SimulatedRun>> runs(candidates.size());
  std::vector<Picos> time(candidates.size());
  const std::vector<bool> simulate = worth_simulating(op, candidates, q, time);
  if (selection_simulates(q)) {
    internal::parallel_each(candidates.size(), [&](std::size_t i) {
      if (simulate[i]) runs[i] = simulated_run(op, *candidates[i], q);
    });
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (runs[i]) time[i] = runs[i]->time;
  }
  const Picos least = time.empty() ? 0 : *std::min_element(time.begin(), time.end());
  // A tie (every algorithm takes 0 s on the default zero-cost model): the least work for
  // the emulation itself, i.e. the least time on the host's model (emulation_model), then
  // the least work summed over nodes, then the fewest messages, then table order.
  std::vector<std::size_t> tied;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (time[i] == least) tied.push_back(i);
  }
  std::vector<std::tuple<Picos, std::uint64_t, std::uint64_t>> order(candidates.size());
  if (tied.size() > 1) {
    CostQuery host = q;
    host.model = emulation_model(q.item_size);
    host.units = CostUnits(host.model);
    std::vector<const Algorithm*> tied_rows;
    for (std::size_t i : tied) tied_rows.push_back(candidates[i]);
    std::vector<Picos> host_time(tied.size());
    const std::vector<bool> simulate_host = worth_simulating(op, tied_rows, host, host_time);
    internal::parallel_each(tied.size(), [&](std::size_t k) {
      const std::size_t i = tied[k];
      // Simulated where the run is small enough and might win, else the formula on the
      // host's model.
      std::optional<SimulatedRun> h;
      if (simulate_host[k]) h = simulated_run(op, *candidates[i], host);
      order[i] = {h ? h->time : host_time[k], runs[i] ? runs[i]->work_bytes : 0,
                  runs[i] ? runs[i]->messages : 0};
    });
  }
  const Algorithm* best = nullptr;
  std::size_t best_i = 0;
  for (std::size_t i : tied) {
    if (best == nullptr || order[i] < order[best_i]) {
      best = candidates[i];
      best_i = i;
    }
  }
  if (best == nullptr) {
    throw std::invalid_argument(to_string(op) + ": no registered algorithm applies to p = " +
                                std::to_string(q.p) + ", n = " + std::to_string(q.n));
  }
  std::lock_guard lock(cache.mutex);
  if (cache.registrations != registered) return *best;  // chosen among an older table
  if (cache.chosen.size() > 100000) cache.chosen.clear();  // bounded
  // The first choice remembered is everyone's: members that chose at the same time agree.
  return *cache.chosen.emplace(key, best).first->second;
}

Choice choose(Operation op, const CostQuery& q) {
  const Algorithm& row = select_algorithm(op, q);
  return {&row, chosen_member(op, row, q)};
}

}  // namespace vmc
