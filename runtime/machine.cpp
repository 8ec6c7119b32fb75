// Machine: node threads, runs, fault handling and deadlock detection.
//
// Each node is a thread created once and parked on its `start` semaphore between runs.
// A run publishes the SPMD function, releases every node, and the calling thread becomes
// the controller: it waits for the nodes to finish, and meanwhile looks for a deadlock
// every few milliseconds. A deadlock is every unfinished node blocked, with an activity
// stamp equal to the current machine activity: no message or arrival it could be waiting
// for has happened since it last looked (see NodeState::block_until).
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <tuple>
#include <sstream>
#include <system_error>

#include "runtime/detail.hpp"


namespace vmc {

std::string BlockedWait::describe() const {
  std::ostringstream s;
  s << "node " << node << ": " << operation;
  if (peer >= 0) {
    s << " from rank " << peer;
    if (peer_world != peer) s << " (node " << peer_world << ")";
  } else if (peer_world >= 0) {
    s << " to node " << peer_world;  // a send waiting on the real network
  }
  if (operation != std::string("split") && operation != std::string("collective")) {
    s << " tag " << tag;
  }
  s << " on comm " << comm;
  return s.str();
}

namespace {

// The names of an enum's values, in the order of its values.
template <class E, std::size_t N>
using Names = std::array<std::pair<E, const char*>, N>;
constexpr Names<Engine, 3> kEngines{{{Engine::automatic, "auto"},
                                     {Engine::threads, "threads"},
                                     {Engine::fibers, "fibers"}}};
constexpr Names<Data, 2> kData{{{Data::full, "full"}, {Data::none, "none"}}};
constexpr Names<Transport, 3> kTransports{
    {{Transport::local, "local"}, {Transport::mpi, "mpi"}, {Transport::spread, "spread"}}};

template <class E, std::size_t N>
std::string name_of(E e, const Names<E, N>& names) {
  for (const auto& [value, name] : names) {
    if (value == e) return name;
  }
  return "?";
}

// The value named s; std::invalid_argument naming `what` and the names otherwise.
template <class E, std::size_t N>
E value_of(std::string_view s, const char* what, const Names<E, N>& names) {
  std::string expected;
  for (std::size_t k = 0; k < N; ++k) {
    if (s == names[k].second) return names[k].first;
    expected += (k == 0 ? "" : k + 1 == N ? " or " : ", ") + std::string(names[k].second);
  }
  throw std::invalid_argument("unknown " + std::string(what) + " \"" + std::string(s) +
                              "\": expected " + expected);
}

}  // namespace

std::string to_string(Engine e) { return name_of(e, kEngines); }
Engine parse_engine(std::string_view s) { return value_of(s, "engine", kEngines); }
std::string to_string(Data d) { return name_of(d, kData); }
Data parse_data(std::string_view s) { return value_of(s, "data mode", kData); }
std::string to_string(Transport t) { return name_of(t, kTransports); }
Transport parse_transport(std::string_view s) { return value_of(s, "transport", kTransports); }

int mpi_world_size() { return detail::mpi_processes(); }
int mpi_world_rank() { return detail::mpi_process_rank(); }

namespace detail {

constinit thread_local NodeState* current_node = nullptr;

std::string node_prefix(const NodeState& n, const CommGroup* g, int rank) {
  std::string s = "node " + std::to_string(n.rank);
  if (g != nullptr && g->id != 0) {
    s += " (rank " + std::to_string(rank) + " of comm " + std::to_string(g->id) + ")";
  }
  return s;
}

Picos NodeState::now_real() const {
  auto d = std::chrono::steady_clock::now() - run_start;
  double wall = std::chrono::duration<double>(d).count();
  const double model = std::max(0.0, wall / machine->config.time_scale);
  if (!(model <= 9.0e6)) {
    throw std::overflow_error("node " + std::to_string(rank) + ": " + std::to_string(wall) +
                              " wall seconds at time_scale " +
                              std::to_string(machine->config.time_scale) +
                              " are more modelled time than vmc's clock holds (9e6 s)");
  }
  return to_picos(model);
}

void NodeState::perturb() {
  if (machine->config.perturb_seed == 0) return;
  // splitmix64: small, fast and good enough to scatter pauses.
  std::uint64_t z = (perturb_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  if ((z & 3) == 0) return;                      // a quarter of the calls go straight on
  if ((z & 3) == 1 || machine->engine == Engine::fibers) {
    // A fiber's sleep would stall its whole worker: it lets the others run instead.
    machine->executor->yield(*this);
    return;
  }
  const double fraction = static_cast<double>(z >> 11) / 9007199254740992.0;  // [0, 1)
  std::this_thread::sleep_for(
      std::chrono::duration<double>(fraction * machine->config.perturb_max_seconds));
}

void release(Message* m) noexcept {
  if (m->owners.load(std::memory_order_acquire) == 1 ||
      m->owners.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete m;
  }
}

namespace {

// Waits while the other owner of a lent message copies its bytes: never longer than one
// memcpy, and the other owner is running (a fiber in a memcpy cannot be switched out), so
// it spins, and lets the OS run others now and then.
void await_loan(const Message& m, int state) noexcept {
  for (unsigned spins = 1; m.loan.load(std::memory_order_acquire) != state; ++spins) {
    if (spins % 64 == 0) std::this_thread::yield();
  }
}

}  // namespace

void copy_out(Message& m, void* to) noexcept {
  if (m.lent != nullptr) {
    int open = Message::kOpen;
    if (m.loan.compare_exchange_strong(open, Message::kReading, std::memory_order_acq_rel)) {
      std::memcpy(to, m.lent, m.bytes);
      m.loan.store(Message::kRead, std::memory_order_release);
      return;
    }
    await_loan(m, Message::kTaken);  // the lender is copying its bytes into a payload
  }
  if (m.payload != nullptr) std::memcpy(to, m.payload.get(), m.bytes);
}

void take_back(NodeState& sender, Message* m, bool unwinding) noexcept {
  // A receiver woken by this message is likely about to copy it: let the others run for
  // a while rather than copy the bytes twice, but no longer than a copy of them would take
  // (at 2 GB/s), since the receiver may not want the message yet.
  if (!unwinding && m->loan.load(std::memory_order_acquire) == Message::kOpen) {
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::nanoseconds(std::max<std::size_t>(m->bytes / 2, 20'000));
    do {
      sender.machine->executor->yield(sender);
    } while (m->loan.load(std::memory_order_acquire) == Message::kOpen &&
             std::chrono::steady_clock::now() < until);
  }
  int open = Message::kOpen;
  if (m->loan.compare_exchange_strong(open, Message::kTaking, std::memory_order_acq_rel)) {
    try {
      m->payload = make_payload(m->bytes);
      std::memcpy(m->payload.get(), m->lent, m->bytes);
    } catch (const std::bad_alloc&) {
      // Only while unwinding can this go unreported: the receiver then gets no bytes.
      if (!unwinding) std::terminate();
    }
    m->loan.store(Message::kTaken, std::memory_order_release);
  } else {
    await_loan(*m, Message::kRead);
  }
  release(m);
}

// Copies a message into the buffer of the irecv it matched (a message too large for it is
// noted, and reported when the request completes) and frees it.
void fill_request(RequestState& r, Message* m) {
  OwnedMessage owned(m);
  r.filled = true;
  r.received = m->bytes;
  if (m->bytes > r.capacity) {
    r.error = "message of " + std::to_string(m->bytes) + " bytes (" + std::to_string(m->items) +
              " items) does not fit the receive buffer of " + std::to_string(r.capacity) +
              " bytes";
  } else if (r.item_size == 0 || m->bytes % r.item_size != 0) {
    r.error = "message of " + std::to_string(m->bytes) + " bytes is not a whole number of " +
              std::to_string(r.item_size) + "-byte items";
  } else {
    copy_out(*m, r.buffer);
  }
}

std::size_t NodeState::drain() {
  Message* batch[32];
  std::size_t total = 0;
  for (;;) {
    std::size_t got = incoming.try_dequeue_bulk(batch, 32);
    for (std::size_t i = 0; i < got; ++i) {
      Message* m = batch[i];
      const MatchKey key{m->comm, m->src, m->tag};
      if (!posted.empty()) {
        // The oldest irecv posted for it takes it.
        auto it = posted.find(key);
        if (it != posted.end()) {
          fill_request(requests[it->second.front()], m);
          it->second.pop_front();
          if (it->second.empty()) posted.erase(it);
          continue;
        }
      }
      MessageFifo& fifo = unexpected[key];
      m->next = nullptr;
      if (fifo.tail != nullptr) fifo.tail->next = m;
      else fifo.head = m;
      fifo.tail = m;
    }
    total += got;
    if (got < 32) return total;
  }
}

void NodeState::log_op(const OpRecord& op, std::span<const std::uint32_t> requests) {
  bool wake = false;
  {
    std::lock_guard lock(log_mutex);
    log.ops.push_back(op);
    if (!requests.empty()) {
      log.ops.back().list_begin = static_cast<std::uint32_t>(log.request_lists.size());
      log.ops.back().list_size = static_cast<std::uint32_t>(requests.size());
      log.request_lists.insert(log.request_lists.end(), requests.begin(), requests.end());
    }
    // The simulation may be waiting for exactly this (see Simulator::fetch).
    if (machine->sim_waits_for.load(std::memory_order_acquire) == rank) {
      machine->sim_waits_for.store(-1, std::memory_order_release);
      wake = true;
    }
  }
  if (wake) machine->wake_resolvers();
}

Message* NodeState::take(const MatchKey& key) {
  auto it = unexpected.find(key);
  if (it == unexpected.end()) return nullptr;
  Message* m = it->second.head;
  it->second.head = m->next;
  if (it->second.head == nullptr) unexpected.erase(it);
  m->next = nullptr;
  return m;
}

Message* NodeState::wait_for(const MatchKey& key, const WaitDescription& what) {
  Message* m = take(key);
  if (m != nullptr) return m;
  block_until(
      [&] {
        drain();
        m = take(key);
        return m != nullptr;
      },
      what);
  return m;
}

void NodeState::discard_all() {
  drain();
  for (auto& [key, fifo] : unexpected) {
    for (Message* m = fifo.head; m != nullptr;) {
      Message* next = m->next;
      release(m);
      m = next;
    }
  }
  unexpected.clear();
}

MachineImpl::MachineImpl(MachineConfig cfg) : config(std::move(cfg)) {
  int processes = 0;
  if (config.transport == Transport::mpi) {
    if (config.clock == Clock::real_time) {
      throw UsageError("Machine: the MPI transport runs on the real network and its own clock "
                       "(MPI_Wtime); the real clock is the local transport's emulation of one");
    }
    if (config.data == Data::none) {
      throw UsageError("Machine: the MPI transport moves the data (timing-only runs, data "
                       "none, are the local transport's)");
    }
    processes = mpi_processes(config);  // throws when vmc was built without MPI
    if (config.topology == nullptr && config.nodes == 0) config.nodes = processes;
  }
  if (config.transport == Transport::spread) {
    if (config.clock == Clock::real_time) {
      throw UsageError("Machine: a machine spread over MPI processes runs the virtual clock only: "
                       "the real clock holds link and port tokens for real, and a token held in "
                       "one process cannot be held by a node of another without a round trip "
                       "between them, which would be the network's time, not the model's");
    }
    mpi_processes(config);  // throws when vmc was built without MPI
  }
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
  units = CostUnits(config.model);
  uses_links = config.model.routing != Routing::direct && topology->family() != "full";
  try {
    links = LinkTimes(config.model, *topology);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("Machine: ") + e.what());
  }
  if (config.transport == Transport::mpi) {
    if (p != processes) {
      throw UsageError("Machine: topology " + topology->spec() + " has " + std::to_string(p) +
                       " nodes, but the MPI transport runs one node per process and " +
                       (config.mpi_communicator ? std::string("its communicator")
                                                : std::string("MPI_COMM_WORLD")) +
                       " has " + std::to_string(processes) + " (start it with mpirun -np " +
                       std::to_string(p) + ")");
    }
    // This process's node only, as nodes[0] (local() is it): the others are the other
    // processes.
    auto n = std::make_unique<NodeState>();
    n->rank = mpi_process_rank(config);
    n->machine = this;
    nodes.push_back(std::move(n));
    hi = 1;
    mpi = make_mpi_network(*this);
    return;
  }
  engine = config.engine;
  if (engine == Engine::automatic) {
    // VMC_ENGINE=threads|fibers overrides the automatic choice (to run a test suite under
    // either engine); the real clock always gets threads.
    engine = config.clock == Clock::virtual_time ? Engine::fibers : Engine::threads;
    const char* env = std::getenv("VMC_ENGINE");
    if (env != nullptr && config.clock == Clock::virtual_time && *env != '\0') {
      engine = parse_engine(env);
      if (engine == Engine::automatic) engine = Engine::fibers;
    }
  }
  if (engine == Engine::fibers && config.clock == Clock::real_time) {
    throw UsageError("Machine: the fibers engine runs the virtual clock only (the real clock "
                     "needs every node to wait in parallel: use the threads engine)");
  }
  if (config.workers < 0 || config.workers > 4096) {
    throw UsageError("Machine: workers must be from 0 (one per core) to 4096 (got " +
                     std::to_string(config.workers) + ")");
  }
  if (config.stack_bytes != 0 && (config.stack_bytes < (64 << 10) ||
                                  config.stack_bytes > (std::size_t{1} << 30))) {
    throw UsageError("Machine: stack_bytes must be 0 (256 KiB) or from 64 KiB to 1 GiB (got " +
                     std::to_string(config.stack_bytes) + ")");
  }
  if (config.clock == Clock::real_time) real = make_real_network(*this);
  try {
    // This process's nodes: all of them, or its block of a spread machine (the others' entries
    // stay null).
    lo = 0;
    hi = p;
    if (config.transport == Transport::spread) spread = make_spread_network(*this);
    nodes.resize(p);
    for (int r = lo; r < hi; ++r) {
      nodes[r] = std::make_unique<NodeState>();
      nodes[r]->rank = r;
      nodes[r]->machine = this;
    }
    if (engine == Engine::fibers) {
      int workers = config.workers;
      if (workers == 0) {
        workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        if (spread != nullptr) workers = std::max(1, workers / spread_processes_here(*spread));
      }
      workers = std::max(1, std::min(workers, hi - lo));
      executor = make_fiber_executor(*this, workers,
                                     config.stack_bytes != 0 ? config.stack_bytes : 256 << 10);
    } else {
      executor = make_thread_executor(*this);
    }
    // The progress thread delivers to the nodes and wakes them through the executor.
    if (spread != nullptr) spread_start(*spread);
  } catch (...) {
    if (real != nullptr) destroy_real_network(real);
    real = nullptr;
    if (spread != nullptr) destroy_spread_network(spread);
    spread = nullptr;
    throw;
  }
}

MachineImpl::~MachineImpl() {
  executor.reset();
  for (auto& n : local()) n->discard_all();
  if (real != nullptr) destroy_real_network(real);
  if (mpi != nullptr) destroy_mpi_network(mpi);
  if (spread != nullptr) destroy_spread_network(spread);
}

std::string threw_report(int node, const std::string& what, std::size_t throwers) {
  std::string text = "node " + std::to_string(node) + " threw: " + what;
  if (throwers > 1) {
    text += " (and " + std::to_string(throwers - 1) + " other node";
    text += throwers > 2 ? "s threw too)" : " threw too)";
  }
  return text;
}

RunResult MachineImpl::run_mpi(const std::function<void(Node&)>& f) {
  NodeState& self = *nodes.front();
  ++runs;
  world->mpi = mpi_begin_run(*mpi);
  current_node = &self;
  try {
    Node node(Comm(&self, world, self.rank));
    f(node);
    check_requests_completed(self);
  } catch (const RunAborted&) {
    // Another process's node failed: its report comes with the end of the run.
  } catch (const std::exception& e) {
    mpi_notify_failure(*mpi, e.what());
  } catch (...) {
    mpi_notify_failure(*mpi, "an exception that is not a std::exception");
  }
  current_node = nullptr;
  MpiRunEnd end = mpi_end_run(*mpi);
  self.requests.clear();
  self.open_requests = 0;
  self.collective_seq.clear();
  self.split_seq.clear();
  world.reset();
  next_comm_id = 1;
  if (!end.origins.empty()) {
    throw RunError(RunError::Kind::node_threw,
                   threw_report(end.origins.front(), end.reports.front(), end.origins.size()),
                   end.origins.front(), {});
  }
  RunResult result;
  Stats& s = result.stats_;
  s.critical_startups = -1;
  s.node_time.resize(p);
  for (int r = 0; r < p; ++r) {
    s.node_time[r] = to_picos(end.node_seconds[r]);
    s.time = std::max(s.time, s.node_time[r]);
  }
  result.trace_.nodes = p;
  return result;
}

void MachineImpl::wake_resolvers() {
  std::lock_guard lock(resolvers_mutex);
  for (int r : resolvers) wake(*nodes[r]);
}

void MachineImpl::record_deadlock(std::string what) {
  {
    std::lock_guard lock(error_mutex);
    if (sim_deadlock.empty()) sim_deadlock = std::move(what);
  }
  abort_run();
}

void MachineImpl::record_error(int node, std::string what) {
  std::lock_guard lock(error_mutex);
  errors.push_back({node, std::move(what)});
}

void MachineImpl::abort_run() {
  abort.store(true, std::memory_order_seq_cst);
  activity.fetch_add(1, std::memory_order_seq_cst);
  for (auto& n : local()) executor->unpark(*n);
  if (real != nullptr) real_abort(real);
  controller.signal();
}

void MachineImpl::run_node(int rank) {
  NodeState& self = *nodes[rank];
  {
    Node node(Comm(&self, world, rank));
    try {
      (*fn)(node);
      check_requests_completed(self);
    } catch (const RunAborted&) {
      // Another node failed or the run deadlocked; the controller reports it.
    } catch (const std::exception& e) {
      record_error(rank, e.what());
      abort_run();
    } catch (...) {
      record_error(rank, "an exception that is not a std::exception");
      abort_run();
    }
    if (config.clock == Clock::real_time) {
      try {
        self.log.finish = self.now_real();
      } catch (const std::exception& e) {
        record_error(rank, e.what());
        abort_run();
      }
    }
    // Finishing releases no one, so it does not count as activity: nodes blocked on this
    // one keep their stamps and the deadlock check sees them at once. It is published under
    // the log's lock: a simulation waiting for this node's next operation learns there is
    // none (see Simulator::fetch).
    bool sim_waits = false;
    {
      std::lock_guard lock(self.log_mutex);
      self.finished.store(true, std::memory_order_seq_cst);
      sim_waits = sim_waits_for.load(std::memory_order_acquire) == rank;
    }
    if (sim_waits) wake_resolvers();
    if (running.fetch_sub(1, std::memory_order_acq_rel) == 1) controller.signal();
  }
}

bool MachineImpl::deadlocked(std::vector<BlockedWait>* report) {
  // Real clock: a transfer thread moving data will deliver it (and count as activity).
  if (real != nullptr && real_transfers_moving(real)) return false;
  std::uint64_t a = activity.load(std::memory_order_seq_cst);
  int blocked = 0;
  bool stale = false;
  for (auto& n : local()) {
    if (n->finished.load(std::memory_order_seq_cst)) continue;
    const std::uint64_t stamp = n->blocked_stamp.load(std::memory_order_seq_cst);
    if (stamp == 0) return false;  // running
    stale = stale || stamp != a + 1;
    ++blocked;
  }
  if (stale) {
    // Every unfinished node is blocked, but some looked before the latest activity (a
    // message to another node, a node finishing its function). Wake them to look again
    // now, not at their next bounded re-check 100 ms on: a node that skipped a collective
    // is then reported within a few controller looks. Not counted as activity.
    for (auto& n : local()) {
      if (n->finished.load(std::memory_order_seq_cst)) continue;
      const std::uint64_t stamp = n->blocked_stamp.load(std::memory_order_seq_cst);
      if (stamp != 0 && stamp != a + 1) executor->unpark(*n);
    }
    woke_stale = true;
    return false;
  }
  if (blocked == 0 || activity.load(std::memory_order_seq_cst) != a) return false;
  if (report != nullptr) *report = blocked_waits();
  return true;
}

bool MachineImpl::blocked_confirmed(std::uint64_t a, std::uint64_t& suspect) {
  if (!deadlocked(nullptr)) {
    suspect = ~0ull;
    return false;
  }
  // Confirm on a later look, with the same activity stamp, once every blocked node has
  // looked at what it waits for again since the suspicion (a nudge: a wake that is not
  // activity), so that no wake lost between nodes is taken for a deadlock.
  if (suspect == a && every_node_looked_again() && deadlocked(nullptr)) return true;
  if (suspect != a) nudge_blocked_nodes();
  suspect = a;
  return false;
}

std::vector<BlockedWait> MachineImpl::blocked_waits() {
  std::vector<BlockedWait> waits;
  for (auto& n : local()) {
    if (n->finished.load(std::memory_order_seq_cst)) continue;
    std::lock_guard lock(n->wait_mutex);
    const WaitDescription& w = n->waiting;
    waits.push_back({n->rank, w.operation, w.peer, w.peer_world, w.tag, w.comm});
  }
  return waits;
}

RunError deadlock_error(std::vector<BlockedWait> waits) {
  std::string text = "deadlock: every unfinished node is blocked and nothing in flight can "
                     "release it:";
  for (const auto& w : waits) text += "\n  " + w.describe();
  return RunError(RunError::Kind::deadlock, text, -1, std::move(waits));
}

RunError watchdog_error(double seconds) {
  return RunError(RunError::Kind::watchdog,
                  "no progress for " + std::to_string(seconds) + " s: the run was ended", -1,
                  std::vector<BlockedWait>{});
}

// Fibers only: a fiber parks until woken, while a node thread looks again by itself at
// least every 100 ms (and real-clock network waits every 50 ms).
void MachineImpl::nudge_blocked_nodes() {
  if (engine != Engine::fibers) return;
  for (auto& n : local()) {
    n->parks_at_nudge = n->parks.load(std::memory_order_seq_cst);
    if (!n->finished.load(std::memory_order_seq_cst)) executor->unpark(*n);
  }
}

bool MachineImpl::every_node_looked_again() const {
  if (engine != Engine::fibers) return true;
  for (const auto& n : local()) {
    if (n->finished.load(std::memory_order_seq_cst)) continue;
    if (n->parks.load(std::memory_order_seq_cst) == n->parks_at_nudge) return false;
  }
  return true;
}

std::uint32_t MachineImpl::allocate_comm_id() {
  std::lock_guard lock(comm_mutex);
  return next_comm_id++;
}

void MachineImpl::reset_after_run() {
  // Transfer threads may still be finishing isends of an aborted run: they refer to the
  // nodes' requests, which are cleared below.
  if (real != nullptr) real_quiesce(real);
  for (auto& n : local()) {
    // An aborted run can leave irecvs posted into buffers that went out of scope with the
    // node's stack: forget them first, so the messages still queued are freed, not copied.
    n->posted.clear();
    n->discard_all();
    n->requests.clear();
    n->open_requests = 0;
    n->answered.store(false);
    n->sends = 0;
    n->collective_seq.clear();
    n->split_seq.clear();
    n->log.clear();
    n->blocked_stamp.store(0);
  }
  executor->reset();
  while (controller.tryWait()) {
  }
  if (real != nullptr) real_reset(real);
  {
    std::lock_guard lock(sim_mutex);
    sim.reset();
  }
  sim_waits_for.store(-1);
  resolvers.clear();
  remote_logs.clear();
  errors.clear();
  sim_deadlock.clear();
  abort.store(false);
  world.reset();
  fn = nullptr;
  next_comm_id = 1;
}

void MachineImpl::fail_run(const RunError& err) {
  RunError copy = err;  // err may live in what the reset clears
  reset_after_run();
  throw copy;
}

RunResult MachineImpl::run(const std::function<void(Node&)>& f) {
  if (current_node != nullptr && current_node->machine == this) {
    // The caller is one of this machine's own nodes: its run cannot start before this
    // node's function returns.
    throw UsageError("node " + std::to_string(current_node->rank) +
                     ": Machine::run: called from inside a node function of the same "
                     "machine; a node cannot start a run of the machine it runs on");
  }
  world = std::make_shared<CommGroup>();
  world->id = 0;
  world->machine = this;
  world->world.resize(p);
  for (int r = 0; r < p; ++r) world->world[r] = r;
  world->whole = true;
  world->local_members = hi - lo;
  if (mpi != nullptr) return run_mpi(f);
  if (spread != nullptr) {
    try {
      spread_begin_run(*spread);  // every process's run starts together
    } catch (...) {
      world.reset();
      throw;
    }
  }
  fn = &f;
  run_start = std::chrono::steady_clock::now();
  running.store(hi - lo, std::memory_order_seq_cst);
  ++runs;
  for (auto& n : local()) {
    n->run_start = run_start;
    n->perturb_state = config.perturb_seed ^ (std::uint64_t(n->rank) * 0xD1B54A32D192ED03ull) ^
                       (runs * 0x8CB92BA72F3D8DD7ull);
    n->finished.store(false, std::memory_order_seq_cst);
  }
  if (spread != nullptr) {
    executor->start_run();
    RunResult result;
    spread_run(*spread, result.stats_, result.trace_);
    return result;
  }
  executor->start_run();

  // Controller: wait for every node; look for deadlock and lack of progress meanwhile.
  std::optional<RunError> failure;
  std::uint64_t suspect_activity = ~0ull;
  std::uint64_t last_activity = activity.load();
  auto last_progress = std::chrono::steady_clock::now();
  while (running.load(std::memory_order_acquire) > 0) {
    // Every 10 ms; 2 ms while a deadlock is suspected or stale waiters were just woken, so
    // a deadlock is reported about 15 ms after the last activity.
    controller.wait(suspect_activity != ~0ull || woke_stale ? 2'000 : 10'000);
    woke_stale = false;
    if (running.load(std::memory_order_acquire) == 0) break;
    if (abort.load()) continue;
    std::uint64_t a = activity.load();
    auto now = std::chrono::steady_clock::now();
    if (a != last_activity) {
      last_activity = a;
      last_progress = now;
    }
    if (blocked_confirmed(a, suspect_activity)) {
      failure.emplace(deadlock_error(blocked_waits()));
      abort_run();
      continue;
    }
    if (std::chrono::duration<double>(now - last_progress).count() > config.watchdog_seconds) {
      failure.emplace(watchdog_error(config.watchdog_seconds));
      abort_run();
    }
  }

  if (!sim_deadlock.empty() && !failure) {
    failure.emplace(RunError::Kind::deadlock, sim_deadlock, -1, std::vector<BlockedWait>{});
  }
  if (!errors.empty() && !failure) {
    // Report the first node (lowest rank among those that threw first is not knowable;
    // errors are kept in the order they were recorded).
    const ErrorRecord& e = errors.front();
    failure.emplace(RunError::Kind::node_threw, threw_report(e.node, e.what, errors.size()),
                    e.node, std::vector<BlockedWait>{});
  }
  if (failure) fail_run(*failure);

  RunResult result;
  if (config.clock == Clock::virtual_time) {
    try {
      std::lock_guard lock(sim_mutex);
      if (sim == nullptr) sim = start_simulation(*this);
      finish_simulation(*this, *sim, result.stats_, result.trace_);
    } catch (const std::exception& e) {
      // A time that does not fit, or a rendezvous deadlock: the run ends with a report and
      // the machine stays usable.
      const bool deadlock = dynamic_cast<const ScheduleDeadlock*>(&e) != nullptr;
      fail_run(RunError(deadlock ? RunError::Kind::deadlock : RunError::Kind::node_threw,
                        e.what(), -1, std::vector<BlockedWait>{}));
    }
    if (!config.trace) result.trace_ = Trace{};
  } else {
    Stats& s = result.stats_;
    Trace& t = result.trace_;
    t.nodes = p;
    s.critical_startups = -1;
    s.node_time.resize(p);
    if (uses_links) {
      s.link_busy.assign(topology->link_count(), 0);
      s.link_peak = real_link_peak(real);
    }
    for (int r = 0; r < p; ++r) {
      NodeLog& log = nodes[r]->log;
      s.node_time[r] = log.finish;
      s.time = std::max(s.time, log.finish);
      for (auto& m : log.messages) {
        s.messages++;
        s.items += m.items;
        s.bytes += m.bytes;
        s.token_wait += m.waited;
        s.contention_delay += m.contention_delay;
        s.max_message_delay = std::max(s.max_message_delay, m.contention_delay);
        for (LinkId l : m.links) s.link_busy[l] += m.end - m.start;
        if (config.trace) t.messages.push_back(std::move(m));
      }
      for (auto& c : log.combines) {
        if (c.kind == Work::combine) s.combined_items += c.items;
        if (c.kind == Work::rearrange) s.rearranged_items += c.items;
        if (config.trace) t.combines.push_back(c);
      }
    }
    std::sort(t.messages.begin(), t.messages.end(), [](const auto& a, const auto& b) {
      return std::tie(a.start, a.src, a.dst, a.tag) < std::tie(b.start, b.src, b.dst, b.tag);
    });
    std::sort(t.combines.begin(), t.combines.end(), [](const auto& a, const auto& b) {
      return std::tie(a.start, a.node) < std::tie(b.start, b.node);
    });
  }
  reset_after_run();
  return result;
}

}  // namespace detail

Machine::Machine(MachineConfig config)
    : impl_(std::make_unique<detail::MachineImpl>(std::move(config))) {}
Machine::~Machine() = default;
int Machine::size() const { return impl_->p; }
bool Machine::hosts(int node) const {
  if (impl_->mpi != nullptr) return node == impl_->nodes.front()->rank;
  return impl_->hosts(node);
}
bool Machine::everywhere(bool mine) {
  if (impl_->spread != nullptr) return detail::spread_everywhere(*impl_->spread, mine);
  if (impl_->mpi != nullptr) return detail::mpi_everywhere(*impl_->mpi, mine);
  return mine;
}
const MachineConfig& Machine::config() const { return impl_->config; }
const Topology& Machine::topology() const { return *impl_->topology; }
RunResult Machine::run(const std::function<void(Node&)>& fn) { return impl_->run(fn); }

}  // namespace vmc
