#include "collectives/simulated_cost.hpp"

#include <future>
#include <map>
#include <set>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "runtime/machine.hpp"

namespace vmc {
namespace {

// The topologies of the machines running a simulation now: a call on one of them selects
// by formula, so nothing inside a simulation simulates again. Keyed by the machine's
// topology object (each simulation machine parses its own), not by thread: under the
// fibers engine one worker thread runs many nodes.
struct SimulationMachines {
  std::mutex mutex;
  std::multiset<const Topology*> running;
};
SimulationMachines& simulation_machines() {
  static SimulationMachines s;
  return s;
}
bool inside_simulation(const Topology* t) {
  SimulationMachines& s = simulation_machines();
  std::lock_guard lock(s.mutex);
  return s.running.count(t) != 0;
}

constexpr std::size_t kMaxBytes = std::size_t{1} << 28;
constexpr int kMaxSimulatedNodes = 4096;

bool is_v(Operation op) {
  return op == Operation::scatterv || op == Operation::gatherv ||
         op == Operation::allgatherv || op == Operation::alltoallv;
}

// The sizes of one simulated call, alike on every simulated node: n items per block of the
// regular forms, or the whole counts vector of a v-variant (or of reduce_scatter with
// counts), with contiguous displacements.
struct Layout {
  int p = 1;
  std::size_t n = 0;
  std::vector<std::size_t> counts, displs;  // empty for the regular forms
  std::size_t total = 0;                    // sum of counts
};

// Items simulated node `rank` holds in its send and receive buffers: each node sized by its
// own block, never by the caller's.
std::pair<std::size_t, std::size_t> buffer_items(Operation op, const Layout& l, int rank,
                                                 int root) {
  const std::size_t n = l.n, np = n * static_cast<std::size_t>(l.p);
  const std::size_t mine = l.counts.empty() ? n : l.counts[rank];
  const bool at_root = rank == root;
  switch (op) {
    case Operation::broadcast: return {0, n};
    case Operation::reduce: return {n, at_root ? n : 0};
    case Operation::allreduce:
    case Operation::scan:
    case Operation::exscan: return {n, n};
    case Operation::allgather: return {n, np};
    case Operation::gather: return {n, at_root ? np : 0};
    case Operation::reduce_scatter: return {l.counts.empty() ? np : l.total, mine};
    case Operation::scatter: return {at_root ? np : 0, n};
    case Operation::alltoall: return {np, np};
    case Operation::barrier: return {0, 0};
    case Operation::scatterv: return {at_root ? l.total : 0, mine};
    case Operation::gatherv: return {mine, at_root ? l.total : 0};
    case Operation::allgatherv: return {mine, l.total};
    case Operation::alltoallv: return {l.total, l.total};
  }
  return {0, 0};
}

// One node's call of the operation with the algorithm forced.
void call(Operation op, const Comm& c, Bytes& send, Bytes& recv,
          const Layout& l, std::size_t item, const Op& o, int root, const Options& opt) {
  const std::size_t s = send.size() / (item ? item : 1), r = recv.size() / (item ? item : 1);
  const std::size_t n = l.n;
  const auto& counts = l.counts;
  const auto& displs = l.displs;
  switch (op) {
    case Operation::broadcast: detail::broadcast_bytes(c, recv.data(), n, item, root, opt); break;
    case Operation::reduce:
      detail::reduce_bytes(c, send.data(), s, recv.data(), r, item, o, root, opt);
      break;
    case Operation::allreduce:
      detail::allreduce_bytes(c, send.data(), s, recv.data(), r, item, o, opt);
      break;
    case Operation::scan:
    case Operation::exscan:
      detail::scan_bytes(op, c, send.data(), s, recv.data(), r, item, o, opt);
      break;
    case Operation::allgather:
      detail::allgather_bytes(c, send.data(), s, recv.data(), r, item, opt);
      break;
    case Operation::gather:
      detail::gather_bytes(c, send.data(), s, recv.data(), r, item, root, false, opt);
      break;
    case Operation::reduce_scatter:
      detail::reduce_scatter_bytes(c, send.data(), s, recv.data(), r, item, counts, o, opt);
      break;
    case Operation::scatter:
      detail::scatter_bytes(c, send.data(), s, recv.data(), r, item, root, false, opt);
      break;
    case Operation::alltoall:
      detail::alltoall_bytes(c, send.data(), s, recv.data(), r, item, opt);
      break;
    case Operation::barrier: barrier(c, opt); break;
    case Operation::scatterv:
      detail::scatterv_bytes(c, send.data(), s, counts, displs, recv.data(), r, item, root, opt);
      break;
    case Operation::gatherv:
      detail::gatherv_bytes(c, send.data(), s, recv.data(), r, counts, displs, item, root, opt);
      break;
    case Operation::allgatherv:
      detail::allgatherv_bytes(c, send.data(), s, recv.data(), r, item, counts, displs, opt);
      break;
    case Operation::alltoallv:
      // Every node sends counts[j] items to node j and receives as much back: a symmetric
      // exchange whose sizes follow the query's counts.
      detail::alltoallv_bytes(c, send.data(), s, counts, displs, recv.data(), r, counts, displs,
                              item, opt);
      break;
  }
}

// Results by query and algorithm; a result being made is a future the others wait on.
struct SimulationCache {
  std::mutex mutex;
  std::map<std::string, std::shared_future<std::optional<SimulatedRun>>> results;
};

SimulationCache& cache() {
  static SimulationCache c;
  return c;
}

// q's sizes as one Layout, alike on every simulated node.
Layout layout_of(Operation op, const CostQuery& q) {
  Layout l;
  l.p = q.p;
  l.n = q.n;
  if (is_v(op) || (op == Operation::reduce_scatter && !q.counts.empty())) {
    l.counts = q.counts.empty() ? std::vector<std::size_t>(q.p, q.n) : q.counts;
    if (static_cast<int>(l.counts.size()) != q.p) {
      throw std::invalid_argument("the counts vector has " + std::to_string(l.counts.size()) +
                                  " entries for " + std::to_string(q.p) + " nodes");
    }
    l.displs.resize(q.p);
    std::exclusive_scan(l.counts.begin(), l.counts.end(), l.displs.begin(), std::size_t{0});
    l.total = std::accumulate(l.counts.begin(), l.counts.end(), std::size_t{0});
  }
  return l;
}

// Marks a machine as running a simulation while it does, so nothing inside simulates.
struct InsideSimulation {
  const Topology* topology;
  explicit InsideSimulation(const Topology* t) : topology(t) {
    SimulationMachines& s = simulation_machines();
    std::lock_guard lock(s.mutex);
    s.running.insert(t);
  }
  ~InsideSimulation() {
    SimulationMachines& s = simulation_machines();
    std::lock_guard lock(s.mutex);
    s.running.erase(s.running.find(topology));
  }
};

std::optional<SimulatedRun> run_simulation(Operation op, const Algorithm& a,
                                          const CostQuery& q) {
  CostQuery forced = q;
  forced.options.algorithm = a.name;
  try {
    const Layout l = layout_of(op, q);
    double bytes = 0;
    for (int r = 0; r < q.p; ++r) {
      const auto [send_items, recv_items] = buffer_items(op, l, r, q.root);
      bytes += (static_cast<double>(send_items) + static_cast<double>(recv_items)) *
               static_cast<double>(q.item_size);
    }
    if (bytes > static_cast<double>(kMaxBytes)) return std::nullopt;
    // A family's choice of member is made here, where its members can be simulated.
    if (a.chosen != nullptr) (void)a.chosen(q);
    // Timing only where the row allows it: the time and the statistics of the run with
    // data, without the data.
    Machine m({.topology = parse_topology(q.topology->spec()),
               .model = q.model,
               .trace = false,
               .data = runs_timing_only(op, a) ? Data::none : Data::full});
    const RunResult r = run_operation(m, op, forced);
    const Stats& s = r.stats();
    return SimulatedRun{r.time_ps(),
                        s.bytes + (s.combined_items + s.rearranged_items) * q.item_size,
                        s.messages};
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

Picos time_operation(Machine& m, Operation op, const CostQuery& q) {
  return run_operation(m, op, q).time_ps();
}

std::optional<Picos> simulated_cost(Operation op, const Algorithm& a, const CostQuery& q) {
  std::optional<SimulatedRun> r = simulated_run(op, a, q);
  if (!r) return std::nullopt;
  return r->time;
}

RunResult run_operation(Machine& m, Operation op, const CostQuery& q) {
  const Layout l = layout_of(op, q);
  const Op op_ = Op("simulated", q.commutative, q.item_size,
                    [](const void*, const void*, void*, std::size_t) {});
  InsideSimulation inside(&m.topology());
  // A group runs on its own nodes, in its own rank order (a query naming no members: the
  // first p nodes, see CostQuery::members); the other nodes only split.
  std::vector<int> index;  // comm rank of each node in the group; empty: the whole machine
  if (!q.members.empty() || q.p != m.size()) {
    if (q.p < 1 || q.p > m.size() ||
        (!q.members.empty() && static_cast<int>(q.members.size()) != q.p)) {
      throw std::invalid_argument("a group of " + std::to_string(q.p) + " nodes on a machine of " +
                                  std::to_string(m.size()));
    }
    index.assign(static_cast<std::size_t>(m.size()), -1);
    for (int r = 0; r < q.p; ++r) {
      const int w = q.members.empty() ? r : q.members[r];
      if (w < 0 || w >= m.size() || index[w] != -1) {
        throw std::invalid_argument("the group's members are not distinct nodes of the machine");
      }
      index[w] = r;
    }
  }
  RunResult r = m.run([&](Node& node) {
    Comm c = node.world();
    if (!index.empty()) {
      const int mine = index[node.rank()];
      c = c.split(mine >= 0 ? 0 : -1, mine);
      if (mine < 0) return;
    }
    const auto [send_items, recv_items] = buffer_items(op, l, c.rank(), q.root);
    Bytes send(send_items * q.item_size);
    Bytes recv(recv_items * q.item_size);
    call(op, c, send, recv, l, q.item_size, op_, q.root, q.options);
  });
  return r;
}

std::optional<SimulatedRun> simulated_run(Operation op, const Algorithm& a, const CostQuery& q) {
  if (!selection_simulates(q)) return std::nullopt;
  const std::string key = query_key(op, q) + '|' + a.name;
  SimulationCache& c = cache();
  std::promise<std::optional<SimulatedRun>> made;
  std::shared_future<std::optional<SimulatedRun>> result;
  {
    std::lock_guard lock(c.mutex);
    auto it = c.results.find(key);
    if (it != c.results.end()) {
      result = it->second;
    } else {
      if (c.results.size() > 100000) c.results.clear();  // bounded
      c.results.emplace(key, made.get_future().share());
    }
  }
  if (result.valid()) return result.get();  // made, or being made by another caller
  std::optional<SimulatedRun> r;
  try {
    r = run_simulation(op, a, q);
  } catch (...) {
    made.set_value(std::nullopt);
    throw;
  }
  made.set_value(r);
  return r;
}

}  // namespace vmc
