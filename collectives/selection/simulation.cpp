// Simulated runs of rows on private machines (simulation.hpp).
#include "collectives/selection/simulation.hpp"

#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

#include "collectives/execution/machine_run.hpp"
#include "collectives/registry/registry.hpp"
#include "collectives/selection/members.hpp"
#include "collectives/selection/selection.hpp"

namespace vmc {
namespace {

// The topologies of the machines running a simulation now: a call on one of them selects
// by formula, so nothing inside a simulation simulates again (a registered row may call the
// public collectives). Keyed by the machine's topology object (each simulation machine
// parses its own), not by thread: under the fibers engine one worker thread runs many nodes.
struct SimulationMachines {
  std::mutex mutex;
  std::multiset<const Topology*> running;
  // running.size(), read without the lock by a call that wants to know whether any
  // simulation runs at all (none, on every call of a program that chose its shapes).
  std::atomic<std::size_t> count{0};
};
SimulationMachines& simulation_machines() {
  static SimulationMachines s;
  return s;
}
bool inside_simulation(const Topology* t) {
  SimulationMachines& s = simulation_machines();
  // A machine marked running was marked before its nodes started, so a call on it sees
  // the count its marking raised.
  if (s.count.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(s.mutex);
  return s.running.count(t) != 0;
}

// Marks a machine as running a simulation while it does, so nothing inside simulates.
struct InsideSimulation {
  const Topology* topology;
  explicit InsideSimulation(const Topology* t) : topology(t) {
    SimulationMachines& s = simulation_machines();
    std::lock_guard lock(s.mutex);
    s.running.insert(t);
    s.count.store(s.running.size(), std::memory_order_release);
  }
  ~InsideSimulation() {
    SimulationMachines& s = simulation_machines();
    std::lock_guard lock(s.mutex);
    s.running.erase(s.running.find(topology));
    s.count.store(s.running.size(), std::memory_order_release);
  }
};

constexpr std::size_t kMaxBytes = std::size_t{1} << 28;
constexpr int kMaxSimulatedNodes = 4096;

// Results by query and algorithm; a result being made is a future the others wait on.
struct SimulationCache {
  std::mutex mutex;
  std::map<std::string, std::shared_future<std::optional<SimulatedRun>>> results;
};

SimulationCache& cache() {
  static SimulationCache c;
  return c;
}

// Private machines kept for the next simulation on the same topology and model. Making and
// ending a machine costs more than a short run on it (its worker threads, the mapping of
// its stacks and a guard page under each), and a call shape's first choice simulates
// several candidates on one topology and model, often on several threads at once (each
// takes a machine of its own). A machine goes back only after a run that succeeded. At
// most kKeptMachines machines of kKeptNodes nodes in all are kept, the least recently used
// dropped first, so what stays is a few MiB (the stack pages the runs touched) and two
// sleeping worker threads per machine. The pool ends its machines when the process exits
// (a machine left alive would hold its nodes' memory where the leak checker cannot see it).
class MachinePool {
 public:
  std::unique_ptr<Machine> take(const std::string& spec, const Model& model, Data data) {
    {
      std::lock_guard lock(mutex_);
      for (auto it = kept_.begin(); it != kept_.end(); ++it) {
        if (it->spec == spec && it->data == data && it->model == model) {
          std::unique_ptr<Machine> m = std::move(it->machine);
          nodes_ -= m->size();
          kept_.erase(it);
          return m;
        }
      }
    }
    // Selection reads a run's time and work only: no trace, no second pass measuring
    // contention's share of the time (MachineConfig::contention_share), and no count of the
    // requests waiting for each link (MachineConfig::count_link_waiters).
    return std::make_unique<Machine>(MachineConfig{.topology = parse_topology(spec),
                                                   .model = model,
                                                   .trace = false,
                                                   .contention_share = false,
                                                   .count_link_waiters = false,
                                                   .data = data});
  }
  void give_back(std::unique_ptr<Machine> m) {
    if (m->size() > kKeptNodes) return;
    std::vector<std::unique_ptr<Machine>> dropped;  // ended outside the lock
    {
      std::lock_guard lock(mutex_);
      nodes_ += m->size();
      kept_.push_back(Kept{m->topology().spec(), m->config().model, m->config().data,
                           std::move(m)});
      while (kept_.size() > kKeptMachines || nodes_ > kKeptNodes) {
        nodes_ -= kept_.front().machine->size();
        dropped.push_back(std::move(kept_.front().machine));
        kept_.pop_front();
      }
    }
  }

 private:
  static constexpr std::size_t kKeptMachines = 8;
  static constexpr int kKeptNodes = 2048;
  struct Kept {
    std::string spec;
    Model model;
    Data data;
    std::unique_ptr<Machine> machine;
  };
  std::mutex mutex_;
  std::deque<Kept> kept_;  // oldest first
  int nodes_ = 0;
};

MachinePool& machine_pool() {
  static MachinePool pool;
  return pool;
}

std::optional<SimulatedRun> run_simulation(Operation op, const Algorithm& a,
                                          const CostQuery& q, std::optional<Picos> limit) {
  try {
    const std::vector<std::size_t> counts = call_counts(op, q);
    double bytes = 0;
    for (int r = 0; r < q.p; ++r) {
      const BufferItems items = buffer_items(op, q.p, r, q.root, q.n, counts);
      bytes += (static_cast<double>(items.send) + static_cast<double>(items.recv)) *
               static_cast<double>(q.item_size);
    }
    if (bytes > static_cast<double>(kMaxBytes)) return std::nullopt;
    // A family's choice of member is made here, where its members can be simulated, and
    // handed down to the run.
    CostQuery forced = row_query(op, a, q);
    forced.options.algorithm = a.name;
    // Timing only where the row allows it: the time and the statistics of the run with
    // data, without the data.
    std::unique_ptr<Machine> m = machine_pool().take(
        q.topology->spec(), q.model, runs_timing_only(op, a) ? Data::none : Data::full);
    std::optional<SimulatedRun> made;
    {
      const InsideSimulation inside(&m->topology());
      const std::optional<RunResult> r =
          limit ? run_on_machine_within(*m, op, a, forced, *limit)
                : std::optional<RunResult>(run_on_machine(*m, op, a, forced));
      if (r) {
        const Stats& s = r->stats();
        made = SimulatedRun{r->time_ps(),
                            s.bytes + (s.combined_items + s.rearranged_items) * q.item_size,
                            s.messages};
      } else {
        made = SimulatedRun{.time = *limit + 1, .over = true};
      }
    }
    machine_pool().give_back(std::move(m));  // usable after a run stopped at its limit too
    return made;
  } catch (const std::exception&) {
    // Counts that do not fit p, or sizes the algorithm refuses: selection uses its formula.
    return std::nullopt;
  }
}

}  // namespace

bool selection_simulates(const CostQuery& q) {
  // A group's simulation runs on a machine of the whole topology, the other nodes idle.
  return q.topology != nullptr && q.topology->nodes() <= kMaxSimulatedNodes &&
         !inside_simulation(q.topology);
}

int simulation_budget(const CostQuery& q) {
  if (!selection_simulates(q)) return 0;
  const long long nodes = q.topology->nodes();
  const long long share = static_cast<long long>(kBudgetScale) * kBudgetScale / (nodes * nodes);
  return static_cast<int>(share);
}

Picos time_operation(Machine& m, Operation op, const CostQuery& q) {
  return run_operation(m, op, q).time_ps();
}

std::optional<Picos> simulated_cost(Operation op, const Algorithm& a, const CostQuery& q) {
  std::optional<SimulatedRun> r = simulated_run(op, a, q);
  if (!r) return std::nullopt;
  return r->time;
}

RunResult run_operation(Machine& m, Operation op, const CostQuery& q) {
  const InsideSimulation inside(&m.topology());
  CostQuery on_m = q;
  on_m.topology = &m.topology();
  const Algorithm& row = select_algorithm(op, on_m);
  return run_on_machine(m, op, row, q);
}

std::optional<SimulatedRun> simulated_run(Operation op, const Algorithm& a, const CostQuery& q,
                                          std::optional<Picos> limit) {
  if (!selection_simulates(q)) return std::nullopt;
  // A family's `_optimal` row runs the member chosen for q as the family's given row runs
  // it (Options::hybrid handed down): the same run, simulated once under the given row.
  if (a.members != nullptr && q.options.hybrid < 0) {
    if (const Algorithm* given = find_algorithm(op, a.member_row)) {
      CostQuery m = row_query(op, a, q);
      m.options.algorithm = given->name;
      if (m.options.hybrid >= 0) return simulated_run(op, *given, m, limit);
    }
  }
  // A row whose run for q is another row's, message for message (Algorithm::same_run: an
  // `_alt` row where nothing alternates): that row's run, made once for both.
  if (a.same_run != nullptr) {
    const char* other_name = a.same_run(q);
    const Algorithm* other = other_name != nullptr ? find_algorithm(op, other_name) : nullptr;
    if (other != nullptr && other != &a) {
      CostQuery as_other = q;
      // A member run names its row (members.cpp): the other row's member runs, so named.
      if (as_other.options.algorithm == a.name) as_other.options.algorithm = other->name;
      return simulated_run(op, *other, as_other, limit);
    }
  }
  const std::string key = query_key(op, q) + '|' + a.name;
  SimulationCache& c = cache();
  std::promise<std::optional<SimulatedRun>> made;
  // Whether a result remembered answers this caller: any but a run stopped at a limit
  // below this caller's (or a run stopped, for a caller who gives none).
  auto answers = [&](const std::optional<SimulatedRun>& r) {
    return !r || !r->over || (limit && *limit < r->time);
  };
  for (;;) {
    std::shared_future<std::optional<SimulatedRun>> result;
    {
      std::lock_guard lock(c.mutex);
      auto it = c.results.find(key);
      if (it == c.results.end()) {
        if (c.results.size() > 100000) c.results.clear();  // bounded
        c.results.emplace(key, made.get_future().share());
        break;
      }
      result = it->second;
      if (result.wait_for(std::chrono::seconds(0)) == std::future_status::ready &&
          !answers(result.get())) {
        it->second = made.get_future().share();  // made again, without that limit
        break;
      }
    }
    // Made, or being made by another caller (who may have stopped at a lower limit: look
    // again once it is made).
    const std::optional<SimulatedRun>& r = result.get();
    if (answers(r)) return r;
  }
  std::optional<SimulatedRun> r;
  try {
    r = run_simulation(op, a, q, limit);
  } catch (...) {
    made.set_value(std::nullopt);
    throw;
  }
  made.set_value(r);
  return r;
}

}  // namespace vmc
