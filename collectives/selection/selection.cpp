// Choosing the row of a call (selection.hpp).
#include "collectives/selection/selection.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
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

// Every candidate's formula (as the row runs for q) and what it claims.
struct Formulas {
  std::vector<Picos> time;
  std::vector<Claim> claim;
};
// `bounded`: a family's `_optimal` row chooses its member against the least exact formula
// of the rows without members (chosen_member_within), a time one of them is known to take;
// a family none of whose members is as fast is given that time plus a picosecond as a
// lower bound, and is ruled out without its member chosen (on ring:64 an allreduce family
// runs about half its 27 members against mesh_mst's exact formula). The rows are then ruled
// out in another order than their formulas', so selection bounds only a choice whose
// budget of runs does not bind (every candidate would get its run; the order decides nothing).
Formulas formulas(Operation op, const std::vector<const Algorithm*>& candidates,
                  const CostQuery& q, bool bounded) {
  Formulas f{std::vector<Picos>(candidates.size()), std::vector<Claim>(candidates.size())};
  std::optional<Picos> bound;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i]->members != nullptr) continue;
    f.time[i] = candidates[i]->cost(q);
    f.claim[i] = claim_of(*candidates[i], q);
    if (bounded && f.claim[i] == Claim::exact && (!bound || f.time[i] < *bound)) {
      bound = f.time[i];
    }
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i]->members == nullptr) continue;
    const std::optional<int> member = chosen_member_within(op, *candidates[i], q, bound);
    if (!member) {  // every member slower than the bound: so is the row
      f.time[i] = *bound + 1;
      f.claim[i] = Claim::lower_bound;
      continue;
    }
    CostQuery as_run = q;
    if (*member >= 0) as_run.options.hybrid = *member;
    f.time[i] = candidates[i]->cost(as_run);
    f.claim[i] = claim_of(*candidates[i], as_run);
  }
  return f;
}

// Whether candidate i's formula says its run takes longer than `known` (a time some
// candidate is known to take): an exact or lower-bound formula above it cannot win or tie.
bool ruled_out(const Formulas& f, std::size_t i, std::optional<Picos> known) {
  return known && f.claim[i] != Claim::estimate && f.time[i] > *known;
}

// Candidates' runs on private machines, the most promising first: in increasing order of
// formula (a lower bound where the claim says so), a batch of as many as the host has
// cores at a time, side by side (oneTBB). Before each batch, a candidate ruled out by the
// least time known so far (an exact formula, or a run made) is dropped: on hypercube:4096
// the ring allreduce of one item, 49 million messages, loses to recursive doubling by its
// formula alone. At most `budget` runs are counted (simulation_budget); a candidate left
// without one is judged by its formula. A candidate whose formula is exact is counted but
// not run: its run would take its formula's time, already known; it is marked `deferred`,
// and run only if it ties for the least time (the tie is broken by what the runs measured).
// The runs a candidate did not get leave its entry empty. A run is stopped once its time
// passes the least time known before its batch (simulated_run's limit): it is then `over`,
// its time above that one, so it neither wins nor ties and no pick changes.
struct CandidateRuns {
  std::vector<std::optional<SimulatedRun>> runs;
  std::vector<char> deferred;  // counted, not run: an exact formula (see above)
};
// Runs the candidates listed in `which` side by side, into runs, each stopped once its time
// passes `limit` (none: whole).
void run_each(Operation op, const std::vector<const Algorithm*>& candidates, const CostQuery& q,
              const std::vector<std::size_t>& which,
              std::vector<std::optional<SimulatedRun>>& runs, std::optional<Picos> limit) {
  internal::parallel_each(which.size(), [&](std::size_t k) {
    runs[which[k]] = simulated_run(op, *candidates[which[k]], q, limit);
  });
}
CandidateRuns simulate_candidates(Operation op, const std::vector<const Algorithm*>& candidates,
                                  const CostQuery& q, const Formulas& f, int budget) {
  CandidateRuns out{std::vector<std::optional<SimulatedRun>>(candidates.size()),
                    std::vector<char>(candidates.size(), 0)};
  std::optional<Picos> known;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (f.claim[i] == Claim::exact && (!known || f.time[i] < *known)) known = f.time[i];
  }
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return f.time[a] < f.time[b]; });
  const std::size_t batch = std::max(1u, std::thread::hardware_concurrency());
  std::size_t next = 0, made = 0;
  while (next < order.size() && made < static_cast<std::size_t>(budget)) {
    std::vector<std::size_t> now;
    for (; next < order.size() && now.size() < batch &&
           made + now.size() < static_cast<std::size_t>(budget);
         ++next) {
      if (!ruled_out(f, order[next], known)) now.push_back(order[next]);
    }
    std::vector<std::size_t> run;
    for (std::size_t i : now) {
      if (f.claim[i] == Claim::exact) {
        out.deferred[i] = 1;
      } else {
        run.push_back(i);
      }
    }
    run_each(op, candidates, q, run, out.runs, known);
    made += now.size();
    for (std::size_t i : run) {
      if (out.runs[i] && (!known || out.runs[i]->time < *known)) known = out.runs[i]->time;
    }
  }
  return out;
}

// The deferred runs among `which`, made now (side by side), whole: what they measure breaks
// a tie.
void run_deferred(Operation op, const std::vector<const Algorithm*>& candidates,
                  const CostQuery& q, const std::vector<std::size_t>& which, CandidateRuns& c) {
  std::vector<std::size_t> run;
  for (std::size_t i : which) {
    if (c.deferred[i]) run.push_back(i);
  }
  run_each(op, candidates, q, run, c.runs, std::nullopt);
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
  const int budget = simulation_budget(q);
  const Formulas f =
      formulas(op, candidates, q, candidates.size() <= static_cast<std::size_t>(budget));
  std::vector<Picos> time = f.time;
  CandidateRuns made = simulate_candidates(op, candidates, q, f, budget);
  const std::vector<std::optional<SimulatedRun>>& runs = made.runs;
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
    const Formulas host_f = formulas(op, tied_rows, host, false);
    // On the host's model only times are compared: an exact formula's needs no run.
    const std::vector<std::optional<SimulatedRun>> host_runs =
        simulate_candidates(op, tied_rows, host, host_f, simulation_budget(host)).runs;
    // Simulated where the run is small enough and might win, else the formula on the
    // host's model.
    std::vector<Picos> host_time(tied.size());
    for (std::size_t k = 0; k < tied.size(); ++k) {
      host_time[k] = host_runs[k] ? host_runs[k]->time : host_f.time[k];
    }
    const Picos least_host = *std::min_element(host_time.begin(), host_time.end());
    // What the runs measured breaks a tie on the host's model too: the deferred runs of the
    // candidates of least host time are made now; a candidate slower on the host's model
    // loses whatever its run would measure (on the zero-cost model every row ties at 0 s,
    // and every row of exact formula was run).
    std::vector<std::size_t> measured;
    for (std::size_t k = 0; k < tied.size(); ++k) {
      if (host_time[k] == least_host) measured.push_back(tied[k]);
    }
    run_deferred(op, candidates, q, measured, made);
    for (std::size_t k = 0; k < tied.size(); ++k) {
      const std::size_t i = tied[k];
      order[i] = {host_time[k], runs[i] ? runs[i]->work_bytes : 0,
                  runs[i] ? runs[i]->messages : 0};
    }
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

namespace {

// A call shape as choose() remembers it per thread, in plain values: everything query_key
// writes (the topology by its identity, a finer key than its spec), the row named, whether
// selection simulates, and the registrations the choice was made with. A call that repeats
// a shape (a program's loop) is answered from here without building a text or taking a
// lock; a shape not found here takes the remembered choices behind select_algorithm and
// chosen_member (keyed by query_key), so a pick is the same with or without this memo.
struct Shape {
  Operation op = Operation::barrier;
  bool simulates = false;
  std::uint64_t registrations = 0;
  std::uint64_t topology = 0;
  int p = 0;
  std::size_t n = 0;
  int root = 0;
  std::size_t item_size = 0;
  bool commutative = true, in_place = false;
  CostUnits units;
  std::vector<LinkRate> link_rates;
  Port port{};
  Routing routing{};
  Contention contention{};
  Protocol protocol{};
  Worm worm{};
  std::string algorithm;
  std::size_t segment_items = 0;
  std::vector<int> strategy;
  int hybrid = -1;
  DoplSteps dopl_steps = DoplSteps::overlap;
  std::vector<std::size_t> counts;  // up to 16; longer ones by size and hash, as query_key
  std::size_t counts_size = 0;
  std::uint64_t counts_hash = 0;
  std::size_t members_size = 0;
  std::uint64_t members_hash = 0;
  std::uint64_t fingerprint = 0;  // of the scalars above: what a lookup compares first
  Choice choice;
};

constexpr std::size_t kLongCounts = 16;

bool same_units(const CostUnits& a, const CostUnits& b) {
  return a.alpha == b.alpha && a.beta == b.beta && a.beta_net == b.beta_net &&
         a.gamma == b.gamma && a.delta == b.delta && a.short_alpha == b.short_alpha &&
         a.short_max_items == b.short_max_items;
}

std::uint64_t members_hash_of(const CostQuery& q) {
  if (q.members.empty()) return 0;
  return q.members_hash != 0 ? q.members_hash : hash_members(q.members);
}

std::uint64_t fingerprint(Operation op, const CostQuery& q, bool simulates) {
  const std::uint64_t v[] = {static_cast<std::uint64_t>(op), simulates,
                             q.topology != nullptr ? q.topology->identity() : 0,
                             static_cast<std::uint64_t>(q.p), q.n,
                             static_cast<std::uint64_t>(q.root), q.item_size,
                             static_cast<std::uint64_t>(q.units.alpha),
                             static_cast<std::uint64_t>(q.units.beta), q.counts.size(),
                             q.members.size()};
  return hash_integers(std::span<const std::uint64_t>(v));
}

bool matches(const Shape& s, Operation op, const CostQuery& q, bool simulates,
             std::uint64_t registrations, std::uint64_t print) {
  if (s.fingerprint != print || s.op != op || s.simulates != simulates ||
      s.registrations != registrations ||
      s.topology != (q.topology != nullptr ? q.topology->identity() : 0) || s.p != q.p ||
      s.n != q.n || s.root != q.root || s.item_size != q.item_size ||
      s.commutative != q.commutative || s.in_place != q.in_place ||
      !same_units(s.units, q.units) || s.port != q.model.port ||
      s.routing != q.model.routing || s.contention != q.model.contention ||
      s.protocol != q.model.protocol || s.worm != q.model.worm ||
      s.link_rates != q.model.link_rates || s.algorithm != q.options.algorithm ||
      s.segment_items != q.options.segment_items || s.strategy != q.options.strategy ||
      s.hybrid != q.options.hybrid || s.dopl_steps != q.options.dopl_steps ||
      s.counts_size != q.counts.size() ||
      s.members_size != q.members.size()) {
    return false;
  }
  if (q.counts.size() <= kLongCounts) {
    if (!std::equal(s.counts.begin(), s.counts.end(), q.counts.begin())) return false;
  } else if (s.counts_hash != hash_integers(std::span<const std::size_t>(q.counts))) {
    return false;
  }
  return s.members_hash == members_hash_of(q);
}

Shape shape_of(Operation op, const CostQuery& q, bool simulates, std::uint64_t registrations,
               std::uint64_t print, Choice choice) {
  Shape s;
  s.op = op;
  s.simulates = simulates;
  s.registrations = registrations;
  s.topology = q.topology != nullptr ? q.topology->identity() : 0;
  s.p = q.p;
  s.n = q.n;
  s.root = q.root;
  s.item_size = q.item_size;
  s.commutative = q.commutative;
  s.in_place = q.in_place;
  s.units = q.units;
  s.link_rates = q.model.link_rates;
  s.port = q.model.port;
  s.routing = q.model.routing;
  s.contention = q.model.contention;
  s.protocol = q.model.protocol;
  s.worm = q.model.worm;
  s.algorithm = q.options.algorithm;
  s.segment_items = q.options.segment_items;
  s.strategy = q.options.strategy;
  s.hybrid = q.options.hybrid;
  s.dopl_steps = q.options.dopl_steps;
  s.counts_size = q.counts.size();
  if (q.counts.size() <= kLongCounts) {
    s.counts = q.counts;
  } else {
    s.counts_hash = hash_integers(std::span<const std::size_t>(q.counts));
  }
  s.members_size = q.members.size();
  s.members_hash = members_hash_of(q);
  s.fingerprint = print;
  s.choice = choice;
  return s;
}

// The shapes this thread chose last: a few, the latest looked at first, the oldest
// replaced (a loop over twenty lengths fits).
struct RememberedShapes {
  static constexpr std::size_t kShapes = 32;
  std::vector<Shape> shapes;
  std::size_t latest = 0;
  const Choice* find(Operation op, const CostQuery& q, bool simulates,
                     std::uint64_t registrations, std::uint64_t print) {
    if (shapes.empty()) return nullptr;
    if (matches(shapes[latest], op, q, simulates, registrations, print)) {
      return &shapes[latest].choice;
    }
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      if (i != latest && matches(shapes[i], op, q, simulates, registrations, print)) {
        latest = i;
        return &shapes[i].choice;
      }
    }
    return nullptr;
  }
  void remember(Shape s) {
    if (shapes.size() < kShapes) {
      shapes.push_back(std::move(s));
      latest = shapes.size() - 1;
    } else {
      latest = (latest + 1) % kShapes;
      shapes[latest] = std::move(s);
    }
  }
};

}  // namespace

Choice choose(Operation op, const CostQuery& q) {
  if (q.options.custom != nullptr) {  // a row not in the registry: nothing is remembered
    const Algorithm& row = select_algorithm(op, q);
    return {&row, chosen_member(op, row, q)};
  }
  thread_local RememberedShapes remembered;
  const bool simulates = selection_simulates(q);
  const std::uint64_t registered = registrations();
  const std::uint64_t print = fingerprint(op, q, simulates);
  if (const Choice* c = remembered.find(op, q, simulates, registered, print)) return *c;
  const Algorithm& row = select_algorithm(op, q);
  const Choice choice{&row, chosen_member(op, row, q)};
  remembered.remember(shape_of(op, q, simulates, registered, print, choice));
  return choice;
}

}  // namespace vmc
