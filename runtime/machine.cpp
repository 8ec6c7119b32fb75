// Machine: the facade over MachineImpl, which checks the configuration, makes the transport
// the configuration chooses (runtime/transports.cpp) and runs every node function through it
// (runtime/transport.hpp). What happens during a run is the transport's.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "runtime/machine_impl.hpp"
#include "runtime/simulator.hpp"
#include "runtime/transports.hpp"

namespace vmc {

namespace detail {

MachineImpl::MachineImpl(MachineConfig cfg) : config(std::move(cfg)) {
  check_transport(config);
  if (config.topology == nullptr) {
    if (config.nodes < 1) {
      throw UsageError("Machine: give a topology or a node count of at least 1 (got " +
                       std::to_string(config.nodes) + ")");
    }
    config.topology = parse_topology("full:" + std::to_string(config.nodes));
  }
  topology = config.topology;
  p = topology->nodes();
  if (config.nodes != 0 && config.nodes != p) {
    throw UsageError("Machine: node count " + std::to_string(config.nodes) +
                     " disagrees with topology " + topology->spec() + " of " +
                     std::to_string(p) + " nodes");
  }
  if (p < 1) throw UsageError("Machine: a machine needs at least one node");
  // Bounds that keep both clocks' arithmetic in range: above 1e3 a modelled wait of up to
  // 9e6 s overflows the wall clock's nanoseconds; below 1e-6 a few wall seconds overflow
  // the model's picoseconds.
  if (!(config.time_scale >= 1e-6 && config.time_scale <= 1e3)) {
    char got[32];
    std::snprintf(got, sizeof got, "%g", config.time_scale);
    throw UsageError(std::string("Machine: time_scale (--time-scale) must be a number from 1e-6 "
                                 "to 1e3 wall seconds per modelled second (got ") +
                     got + ")");
  }
  try {
    check_stragglers(config.model, p);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("Machine: ") + e.what());
  }
  check_failures();
  units = CostUnits(config.model);
  steady_model = steady(config.model);
  uses_links = config.model.routing != Routing::direct && topology->family() != "full";
  try {
    links = LinkTimes(config.model, *topology);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("Machine: ") + e.what());
  }
  transport = make_transport(*this);
}

MachineImpl::~MachineImpl() { transport.reset(); }

void MachineImpl::check_failures() {
  const char* where = "Machine: failures (--fail): ";
  failures_ = config.failures;
  if (config.random_failures) {
    std::vector<NodeFailure> drawn;
    try {
      drawn = draw_failures(*config.random_failures, p, config.failures);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string(where) + e.what());
    }
    drawn_ = describe(*config.random_failures) + " drew " +
             (drawn.empty() ? std::string("no failure") : describe_failures(drawn));
    failures_.insert(failures_.end(), drawn.begin(), drawn.end());
  }
  check_link_failures();
  failing_ = !failures_.empty() || links_failing();
  if (!failing_) return;
  // Which transports and clocks take them: check_transport (runtime/transports.cpp).
  if (links_failing() && config.model.protocol == Protocol::rendezvous) {
    throw UsageError(std::string(where) + "failed links under the rendezvous protocol are not "
                     "supported (a rendezvous send waits for its receive, and would have to "
                     "wait for the simulation's word that its message was lost): use "
                     "--protocol eager");
  }
  for (std::size_t i = 0; i < failures_.size(); ++i) {
    const NodeFailure& f = failures_[i];
    if (f.node < 0 || f.node >= p) {
      throw UsageError(std::string(where) + "node " + std::to_string(f.node) +
                       " is not a node of this machine of " + counted(p, "node"));
    }
    if (!(f.at >= 0) || f.at > 9.2e6) {
      throw UsageError(std::string(where) + "node " + std::to_string(f.node) +
                       ": the time must be from 0 to about 9.2e6 s (vmc's picosecond clock)");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (failures_[j].node == f.node) {
        throw UsageError(std::string(where) + "node " + std::to_string(f.node) +
                         " is given twice");
      }
    }
  }
}

void MachineImpl::check_link_failures() {
  const std::string where = "Machine: failures (--fail): ";
  const std::vector<LinkFailure>& links = config.link_failures;
  const int vertices = topology->vertices();
  for (std::size_t k = 0; k < links.size(); ++k) {
    const LinkFailure& f = links[k];
    const std::string name = where + link_name(f) + ": ";
    for (const int v : {f.a, f.b}) {
      if (v < 0 || v >= vertices) {
        throw UsageError(name + "node " + std::to_string(v) + " is not a node of this machine (" +
                         topology->spec() + ", " + std::to_string(p) + " nodes" +
                         (vertices > p ? " and " + std::to_string(vertices - p) + " switches"
                                       : std::string()) +
                         ")");
      }
    }
    if (!(f.at >= 0) || f.at > 9.2e6) {
      throw UsageError(name + "the time must be from 0 to about 9.2e6 s (vmc's picosecond clock)");
    }
    const LinkId ab = topology->link_between(f.a, f.b), ba = topology->link_between(f.b, f.a);
    if (ab < 0 || ba < 0) {
      std::string around;
      for (const int n : topology->neighbours(f.a)) {
        around += (around.empty() ? "" : ", ") + std::to_string(n);
      }
      throw UsageError(name + "nodes " + std::to_string(f.a) + " and " + std::to_string(f.b) +
                       " are not neighbours on " + topology->spec() +
                       " (a link joins neighbours; node " + std::to_string(f.a) + "'s are " +
                       around + ")");
    }
    for (std::size_t j = 0; j < k; ++j) {
      if (std::min(links[j].a, links[j].b) == std::min(f.a, f.b) &&
          std::max(links[j].a, links[j].b) == std::max(f.a, f.b)) {
        throw UsageError(name + "the link is given twice");
      }
    }
    failed_links_.emplace_back(ab, static_cast<int>(k));
    failed_links_.emplace_back(ba, static_cast<int>(k));
  }
  for (const LinkFailure& f : links) down_times_.push_back(to_picos(f.at));
  std::sort(down_times_.begin(), down_times_.end());
  down_times_.erase(std::unique(down_times_.begin(), down_times_.end()), down_times_.end());
  for (const Picos t : down_times_) {
    std::vector<LinkId>& down = down_links_.emplace_back();
    for (const auto& [id, k] : failed_links_) {
      if (to_picos(links[static_cast<std::size_t>(k)].at) <= t) down.push_back(id);
    }
    std::sort(down.begin(), down.end());
  }
  // 004 §13's blocked worms hold their channels; routes in several dimension orders can then
  // wait for each other in a cycle (on a mesh, one worm x first and one y first around a
  // square), which dimension order alone never does.
  const Model& m = config.model;
  if (!links.empty() && config.fail_routes == FailRoutes::around && m.worm == Worm::blocking &&
      m.routing == Routing::wormhole && m.contention == Contention::exclusive) {
    throw UsageError(where + "routing around failed links with --worm blocking is not "
                     "supported (worms that hold their links on routes of other dimension "
                     "orders can wait for each other in a cycle): use --worm atomic, or "
                     "--fail-routes fixed to lose the messages instead");
  }
}

int MachineImpl::down_index(Picos t) const {
  const auto after = std::upper_bound(down_times_.begin(), down_times_.end(), t);
  return static_cast<int>(after - down_times_.begin()) - 1;
}

bool MachineImpl::route_around_down(int src, int dst, int down, std::vector<LinkId>& out) const {
  return topology->route_around(src, dst, down_links_.at(static_cast<std::size_t>(down)), out);
}

int MachineImpl::failed_link_on_route(int src, int dst) const {
  const std::vector<LinkFailure>& links = config.link_failures;
  int best = -1;
  auto consider = [&](int k) {
    if (best < 0 || to_picos(links[k].at) < to_picos(links[best].at)) best = k;
  };
  if (config.model.routing == Routing::direct) {
    // Every pair adjacent: only the link's own ends use it.
    for (std::size_t k = 0; k < links.size(); ++k) {
      const LinkFailure& f = links[k];
      if ((f.a == src && f.b == dst) || (f.a == dst && f.b == src)) consider(static_cast<int>(k));
    }
    return best;
  }
  std::vector<LinkId> route;
  topology->route(src, dst, route);
  for (const LinkId l : route) {
    for (const auto& [id, k] : failed_links_) {
      if (id == l) consider(k);
    }
  }
  return best;
}

std::uint32_t MachineImpl::allocate_comm_id() {
  std::lock_guard lock(comm_mutex_);
  return next_comm_id_++;
}

RunResult MachineImpl::run(const std::function<void(Node&)>& fn) {
  if (current_node != nullptr && current_node->machine == this) {
    // The caller is one of this machine's own nodes: its run cannot start before this
    // node's function returns.
    throw UsageError("node " + std::to_string(current_node->rank) +
                     ": Machine::run: called from inside a node function of the same "
                     "machine; a node cannot start a run of the machine it runs on");
  }
  auto world = std::make_shared<CommGroup>();
  world->id = 0;
  world->machine = this;
  world->world.resize(p);
  for (int r = 0; r < p; ++r) world->world[r] = r;
  world->whole = true;
  ++runs;
  // However the run ends, the next one numbers its groups from 1 again.
  struct NextRun {
    MachineImpl& m;
    ~NextRun() {
      std::lock_guard lock(m.comm_mutex_);
      m.next_comm_id_ = 1;
    }
  } next_run{*this};
  const NodeBody body = [&](NodeState& self) {
    Node node(Comm(&self, world, self.rank));
    struct Handle {
      NodeState& self;
      ~Handle() { self.handle = nullptr; }
    } handle{self};
    self.handle = &node;
    fn(node);
    check_requests_completed(self);
  };
  RunResult result;
  try {
    transport->run(*world, body, result.stats_, result.trace_);
  } catch (RunError& e) {
    // Every node ended, normally or stopped: the run's statistics and trace are whole.
    if (e.kind() == RunError::Kind::node_failed) {
      e.set_result(std::make_shared<const RunResult>(std::move(result)));
    }
    throw;
  }
  return result;
}

}  // namespace detail

Node* this_node() {
  return detail::current_node != nullptr ? detail::current_node->handle : nullptr;
}

StackRange this_node_stack() noexcept {
  if (detail::current_node == nullptr) return {};
  return {detail::current_node->stack_low, detail::current_node->stack_size};
}

bool below_node_stack(const void* address) noexcept {
  const StackRange s = this_node_stack();
  const char* at = static_cast<const char*>(address);
  constexpr std::size_t kReach = std::size_t{64} << 20;
  return s.low != nullptr && at < s.low && static_cast<std::size_t>(s.low - at) <= kReach;
}

// Only the node writes its context, so it reads its own without the lock; a report reads it
// under the node's wait_mutex (NodeState::context_text).
bool mark_output() {
  detail::NodeState* n = detail::current_node;
  return n != nullptr && n->machine->transport->mark_output(*n);
}

CallContext::CallContext(std::string call) {
  detail::NodeState* n = detail::current_node;
  if (n == nullptr) return;
  if (!n->call_context.empty() || n->call_describe.load(std::memory_order_relaxed) != nullptr) {
    return;
  }
  std::lock_guard lock(n->wait_mutex);
  n->call_context = std::move(call);
  set_ = true;
}

CallContext::CallContext(Describe describe, const void* arg) {
  detail::NodeState* n = detail::current_node;
  if (n == nullptr) return;
  if (!n->call_context.empty() || n->call_describe.load(std::memory_order_relaxed) != nullptr) {
    return;
  }
  // No lock on the way in (a call made often): the argument is there before the function
  // that reads it.
  n->call_describe_arg.store(arg, std::memory_order_relaxed);
  n->call_describe.store(describe, std::memory_order_release);
  set_ = true;
}

CallContext::~CallContext() {
  if (!set_) return;
  detail::NodeState* n = detail::current_node;
  // Under the lock: a report that is making the text finishes before the argument goes.
  std::lock_guard lock(n->wait_mutex);
  n->call_context.clear();
  n->call_describe.store(nullptr, std::memory_order_relaxed);
  n->call_describe_arg.store(nullptr, std::memory_order_relaxed);
}

Machine::Machine(MachineConfig config)
    : impl_(std::make_unique<detail::MachineImpl>(std::move(config))) {}
Machine::~Machine() = default;
int Machine::size() const { return impl_->p; }
bool Machine::hosts(int node) const { return impl_->transport->hosts(node); }
bool Machine::everywhere(bool mine) { return impl_->transport->everywhere(mine); }
const MachineConfig& Machine::config() const { return impl_->config; }
const std::vector<NodeFailure>& Machine::failures() const { return impl_->failures(); }
const Topology& Machine::topology() const { return *impl_->topology; }
RunResult Machine::run(const std::function<void(Node&)>& fn) { return impl_->run(fn); }

std::optional<RunResult> Machine::run_within(Picos limit,
                                             const std::function<void(Node&)>& fn) {
  struct Limited {
    detail::MachineImpl& m;
    ~Limited() { m.time_limit.reset(); }
  } limited{*impl_};
  impl_->time_limit = limit;
  try {
    RunResult r = impl_->run(fn);
    // A pass that ended beside the run (streamed) never looked at the limit.
    if (r.time_ps() > limit) return std::nullopt;
    return r;
  } catch (const detail::TimeLimitPassed&) {
    return std::nullopt;
  }
}

}  // namespace vmc
