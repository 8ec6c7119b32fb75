// Operation names, table lookup, algorithm selection and the common call path.
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>


#include "collectives/dispatch.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/internal/parallel.hpp"
#include "collectives/simulated_cost.hpp"
#include "collectives/tables.hpp"
#include "runtime/errors.hpp"

namespace vmc {

namespace {
struct OperationName {
  Operation op;
  const char* name;
};
constexpr OperationName kNames[] = {
    {Operation::broadcast, "broadcast"}, {Operation::reduce, "reduce"},
    {Operation::allreduce, "allreduce"}, {Operation::allgather, "allgather"},
    {Operation::reduce_scatter, "reduce_scatter"}, {Operation::scan, "scan"},
    {Operation::exscan, "exscan"}, {Operation::scatter, "scatter"},
    {Operation::gather, "gather"}, {Operation::alltoall, "alltoall"},
    {Operation::barrier, "barrier"}, {Operation::scatterv, "scatterv"},
    {Operation::gatherv, "gatherv"}, {Operation::allgatherv, "allgatherv"},
    {Operation::alltoallv, "alltoallv"},
};
}  // namespace

std::string to_string(Operation op) {
  for (const auto& n : kNames) {
    if (n.op == op) return n.name;
  }
  return "?";
}

Operation parse_operation(std::string_view s) {
  for (const auto& n : kNames) {
    if (s == n.name) return n.op;
  }
  std::string all;
  for (const auto& n : kNames) all += std::string(all.empty() ? "" : ", ") + n.name;
  throw std::invalid_argument("unknown operation \"" + std::string(s) + "\": expected one of " +
                              all);
}

const std::vector<Operation>& all_operations() {
  static const std::vector<Operation> ops = [] {
    std::vector<Operation> v;
    for (const auto& n : kNames) v.push_back(n.op);
    return v;
  }();
  return ops;
}

std::string to_string(Claim c) {
  switch (c) {
    case Claim::exact: return "exact";
    case Claim::lower_bound: return "lower bound";
    case Claim::estimate: return "estimate";
  }
  return "?";
}

Claim claim_of(const Algorithm& a, const CostQuery& q) {
  // The rows' claims price every link at beta_net; per-class link rates degrade them.
  return internal::with_link_rates(q, a.claim != nullptr ? a.claim(q) : Claim::estimate);
}

namespace {
const std::vector<Algorithm>& built_in(Operation op) {
  switch (op) {
    case Operation::broadcast: return tables::broadcast();
    case Operation::reduce: return tables::reduce();
    case Operation::allreduce: return tables::allreduce();
    case Operation::allgather: return tables::allgather();
    case Operation::reduce_scatter: return tables::reduce_scatter();
    case Operation::scan: return tables::scan();
    case Operation::exscan: return tables::exscan();
    case Operation::scatter: return tables::scatter();
    case Operation::gather: return tables::gather();
    case Operation::alltoall: return tables::alltoall();
    case Operation::barrier: return tables::barrier();
    case Operation::scatterv: return tables::scatterv();
    case Operation::gatherv: return tables::gatherv();
    case Operation::allgatherv: return tables::allgatherv();
    case Operation::alltoallv: return tables::alltoallv();
  }
  throw std::logic_error("unknown operation");
}

// The tables register_algorithm published: current[op] (null: the built-in one), and every
// table ever published, kept because readers may still hold one.
struct RegisteredTables {
  std::mutex mutex;
  std::array<std::atomic<const std::vector<Algorithm>*>, std::size(kNames)> current{};
  std::deque<std::unique_ptr<const std::vector<Algorithm>>> kept;
};

RegisteredTables& registered_tables() {
  static RegisteredTables tables;
  return tables;
}

void forget_selections();
}  // namespace

const std::vector<Algorithm>& algorithms(Operation op) {
  const auto* table =
      registered_tables().current.at(static_cast<std::size_t>(op)).load(std::memory_order_acquire);
  return table != nullptr ? *table : built_in(op);
}

namespace {
bool always_applicable(const CostQuery&) { return true; }
}  // namespace

bool runs_timing_only(Operation op, const Algorithm& a) {
  if (a.timing_only) return true;
  for (const Algorithm& row : built_in(op)) {
    if (row.name == a.name) return true;  // a built-in name cannot be registered again
  }
  return false;
}

void register_algorithm(Operation op, Algorithm algorithm) {
  const std::string where = to_string(op) + ": cannot register algorithm \"" + algorithm.name + "\": ";
  if (algorithm.name.empty() || algorithm.name == "auto") {
    throw std::invalid_argument(where + "it needs a name other than \"\" and \"auto\"");
  }
  if (algorithm.run == nullptr) throw std::invalid_argument(where + "its run function is null");
  if (algorithm.cost == nullptr) {
    throw std::invalid_argument(where + "its cost function is null (selection needs one)");
  }
  if (algorithm.applicable == nullptr) algorithm.applicable = always_applicable;
  if (algorithm.requirements.empty()) algorithm.requirements = "nothing";
  RegisteredTables& tables = registered_tables();
  {
    std::lock_guard lock(tables.mutex);
    const std::vector<Algorithm>& now = algorithms(op);
    if (find_algorithm(op, algorithm.name) != nullptr) {
      throw std::invalid_argument(where + "the name is taken");
    }
    auto next = std::make_unique<std::vector<Algorithm>>(now);
    next->push_back(std::move(algorithm));
    tables.current.at(static_cast<std::size_t>(op)).store(next.get(), std::memory_order_release);
    tables.kept.push_back(std::move(next));
  }
  forget_selections();
}

bool is_member_row(Operation op, std::string_view name) {
  for (const Algorithm& a : algorithms(op)) {
    if (!a.member_row.empty() && a.member_row == name) return true;
  }
  return false;
}

const Algorithm* find_algorithm(Operation op, std::string_view name) {
  for (const Algorithm& a : algorithms(op)) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string query_key(Operation op, const CostQuery& q) {
  // Built on every call of a collective: one buffer, numbers written in place (no
  // temporaries), since a short collective costs a few microseconds in all.
  std::string key;
  key.reserve(160);
  auto num = [&key](auto v, char then) {
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    key.append(buf, end);
    key += then;
  };
  key += to_string(op);
  key += '|';
  num(q.p, '|');
  num(q.n, '|');
  num(q.root, '|');
  num(q.item_size, '|');
  key += q.commutative ? 'c' : 'n';
  key += q.in_place ? 'i' : 'o';
  key += '|';
  key += q.topology != nullptr ? q.topology->spec() : std::string("-");
  key += '|';
  num(q.units.alpha, ',');
  num(q.units.beta, ',');
  num(q.units.beta_net, ',');
  num(q.units.gamma, ',');
  num(q.units.delta, ',');
  num(q.units.short_alpha, ',');
  num(q.units.short_max_items, '|');
  // Per-class link rates (002 §3.3.4): a choice made for other link rates is not reused.
  for (const LinkRate& r : q.model.link_rates) {
    key += r.kind == LinkRate::Kind::dimension ? 'd' : "tud"[static_cast<int>(r.direction)];
    num(r.index, '=');
    num(to_picos(r.beta_net), ',');
  }
  key += '|';
  key += to_string(q.model.port);
  key += to_string(q.model.routing);
  key += to_string(q.model.contention);
  key += to_string(q.model.protocol);
  key += to_string(q.model.worm);
  key += '|';
  num(q.options.segment_items, '|');
  for (int s : q.options.strategy) key += char('0' + s);
  key += '|';
  key += std::to_string(q.options.hybrid);
  key += '|';
  // The whole counts vector, and the group's members: every member's key is the same.
  // Long vectors go in as a hash (FNV-1a), so the remembered keys stay small at p = 4096.
  if (q.counts.size() <= 16) {
    for (std::size_t c : q.counts) num(c, ',');
  } else {
    num(q.counts.size(), '#');
    num(hash_integers(std::span<const std::size_t>(q.counts)), ',');
  }
  key += '|';
  if (!q.members.empty()) {
    num(q.members.size(), '#');
    num(q.members_hash != 0 ? q.members_hash : hash_members(q.members), ',');
  }
  return key;
}

bool whole_machine(const CostQuery& q) {
  return q.topology != nullptr && q.topology->nodes() == q.p && q.members.empty();
}

namespace {

// 004 §15.1: the choice for (operation, p, n) is made once and remembered.
struct SelectionCache {
  std::mutex mutex;
  std::unordered_map<std::string, const Algorithm*> chosen;
};

SelectionCache& selection_cache() {
  static SelectionCache cache;
  return cache;
}

// A registered algorithm may be the better choice for queries decided before it came.
void forget_selections() {
  SelectionCache& cache = selection_cache();
  std::lock_guard lock(cache.mutex);
  cache.chosen.clear();
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

namespace {

// Which candidates selection must simulate, with every candidate's formula in `formula`.
// A formula that is exact or a lower bound (its claim) says the run takes at least that
// long; a candidate whose such formula exceeds the least exact formula (a time some
// candidate is known to take) cannot win or tie, and is not simulated: on hypercube:4096
// the ring allreduce of one item, 49 million messages, loses to recursive doubling by its
// formula alone.
std::vector<bool> worth_simulating(const std::vector<const Algorithm*>& candidates,
                                   const CostQuery& q, std::vector<Picos>& formula) {
  formula.resize(candidates.size());
  std::vector<Claim> claim(candidates.size());
  std::optional<Picos> known;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    formula[i] = candidates[i]->cost(q);
    claim[i] = claim_of(*candidates[i], q);
    if (claim[i] == Claim::exact && (!known || formula[i] < *known)) known = formula[i];
  }
  std::vector<bool> simulate(candidates.size(), true);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (known && claim[i] != Claim::estimate && formula[i] > *known) simulate[i] = false;
  }
  return simulate;
}

}  // namespace

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
  {
    std::lock_guard lock(cache.mutex);
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
  const std::vector<bool> simulate = worth_simulating(candidates, q, time);
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
    const std::vector<bool> simulate_host = worth_simulating(tied_rows, host, host_time);
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
  if (cache.chosen.size() > 100000) cache.chosen.clear();  // bounded
  // The first choice remembered is everyone's: members that chose at the same time agree.
  return *cache.chosen.emplace(key, best).first->second;
}

CostQuery make_query(const Topology& topology, const Model& model, int p, std::size_t n,
                     int root, std::size_t item_size, bool commutative, const Options& options) {
  CostQuery q;
  q.topology = &topology;
  q.model = model;
  q.units = CostUnits(model);
  q.p = p;
  q.n = n;
  q.root = root;
  q.item_size = item_size;
  q.commutative = commutative;
  q.options = options;
  return q;
}

CostQuery make_query(const Comm& comm, std::size_t n, int root, std::size_t item_size,
                     const Op* op, bool in_place, const Options& options) {
  CostQuery q = make_query(comm.topology(), comm.model(), comm.size(), n, root, item_size,
                           op == nullptr || op->commutative(), options);
  q.in_place = in_place;
  if (!comm.whole_machine()) {
    q.members = comm.members();
    q.members_hash = comm.members_hash();
  }
  return q;
}

void invoke(Operation operation, Call call, const CostQuery& query, const CallSignature& sig) {
  const Comm& comm = *call.comm;
  const Algorithm* algorithm = nullptr;
  try {
    algorithm = &select_algorithm(operation, query);
  } catch (const std::invalid_argument& e) {
    throw UsageError(comm.who() + ": " + e.what());
  }
  // The choice joins the signature: members that chose differently (other options, or a
  // selection input that differs) get an error naming both algorithms, not a deadlock.
  CallSignature checked = sig;
  checked.algorithm = algorithm->name;
  call.tag = comm.begin_collective(checked);
  const Comm::CollectiveScope scope(comm);
  // A timing-only run (Data::none) combines nothing: an op that touches no data, charged
  // as the real one would be.
  std::optional<Op> no_op;
  if (!comm.moves_data() && !runs_timing_only(operation, *algorithm)) {
    throw std::invalid_argument(to_string(operation) + ": algorithm " + algorithm->name +
                                " was registered without timing_only, so it cannot run on a "
                                "timing-only machine (Data::none)");
  }
  if (call.op != nullptr && !comm.moves_data()) {
    no_op.emplace(call.op->name(), call.op->commutative(), call.op->item_size(),
                  [](const void*, const void*, void*, std::size_t) {});
    call.op = &*no_op;
  }
  algorithm->run(call);
}

}  // namespace vmc
