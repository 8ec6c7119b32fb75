// The nodes of this process and the control of their runs (local_nodes.hpp).
#include "runtime/local_nodes.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <new>
#include <thread>

#include "runtime/run_errors.hpp"
#include "runtime/tags.hpp"

namespace vmc::detail {

NodeArena::NodeArena(std::size_t count) {
  // Small pages: asking for huge ones (MADV_HUGEPAGE) made a million nodes faster to run but
  // five times slower to make, the kernel compacting memory to find them.
  bytes_ = std::max<std::size_t>(1, count * sizeof(NodeState));
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<char*>(p);
}

NodeArena::~NodeArena() { munmap(base_, bytes_); }

namespace {

// The workers of a fibers machine whose configuration says 0 (automatic): one per core this
// process has, but a single one for a machine of one or two nodes. Two nodes hand off at
// every step of every call; on one worker a hand-off is a context switch (tens of
// nanoseconds), on two it crosses threads and, on a loaded host, waits for the other worker
// to be scheduled (bench_collectives: allreduce/fibers/2/8B). Larger machines keep a worker
// per core so their nodes' copies and reductions run in parallel.
// VMC_WORKERS=N overrides the automatic count, to measure again.
int automatic_workers(int local_nodes, int processes_here) {
  const char* env = std::getenv("VMC_WORKERS");
  if (env != nullptr && *env != '\0') return std::max(1, std::atoi(env));
  if (local_nodes <= 2) return 1;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / processes_here);
}

}  // namespace

LocalNodes::LocalNodes(MachineImpl& m, const NodePlacement& where)
    : machine(m), p(m.p), lo(where.lo), hi(where.hi), arena(static_cast<std::size_t>(hi - lo)),
      oversubscribed(where.oversubscribed) {
  const MachineConfig& config = m.config;
  engine = config.engine;
  if (engine == Engine::automatic) {
    // VMC_ENGINE=threads|fibers overrides the automatic choice (to run a test suite under
    // either engine); the real clock always gets threads.
    engine = where.parallel_waits ? Engine::threads : Engine::fibers;
    const char* env = std::getenv("VMC_ENGINE");
    if (env != nullptr && !where.parallel_waits && *env != '\0') {
      engine = parse_engine(env);
      if (engine == Engine::automatic) engine = Engine::fibers;
    }
  }
  if (engine == Engine::fibers && where.parallel_waits) {
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
  nodes.resize(p);
  for (int r = lo; r < hi; ++r) {
    nodes[r] = NodePtr(new (arena.slot(static_cast<std::size_t>(r - lo))) NodeState);
    nodes[r]->rank = r;
    nodes[r]->machine = &m;
  }
  if (engine == Engine::fibers) {
    int workers = config.workers;
    if (workers == 0) workers = automatic_workers(hi - lo, where.processes_here);
    workers = std::max(1, std::min(workers, hi - lo));
    executor = make_fiber_executor(*this, workers,
                                   config.stack_bytes != 0 ? config.stack_bytes : 256 << 10);
  } else {
    executor = make_thread_executor(*this, where.parallel_waits);
  }
}

LocalNodes::~LocalNodes() {
  executor.reset();
  for (auto& n : local()) n->discard_all();
}

void LocalNodes::start(const NodeBody& run_body) {
  body = &run_body;
  run_start = std::chrono::steady_clock::now();
  running.store(hi - lo, std::memory_order_seq_cst);
  for (auto& n : local()) {
    n->run_start = run_start;
    n->perturb_state = machine.config.perturb_seed ^
                       (std::uint64_t(n->rank) * 0xD1B54A32D192ED03ull) ^
                       (machine.runs * 0x8CB92BA72F3D8DD7ull);
    n->finished.store(false, std::memory_order_seq_cst);
  }
  for (const NodeFailure& f : machine.failures()) {
    if (hosts(f.node)) nodes[f.node]->fail_at = to_picos(f.at);
  }
  executor->start_run();
}

void LocalNodes::run_node(int rank) {
  NodeState& self = *nodes[rank];
  bool stop = false;
  try {
    if (hooks != nullptr) hooks->starting(self);
    (*body)(self);
  } catch (const RunAborted&) {
    // Another node failed or the run deadlocked; the controller reports it.
  } catch (const NodeStopped&) {
    stop = true;  // its failure's time came (MachineConfig::failures)
  } catch (const NodeFailedError& e) {
    // A call needed a failed node and the function did not handle the error: this node
    // stops too, and the calls that need it fail in turn.
    stop = true;
    self.stop_cause = e.failed_node();
  } catch (const LinkFailedError& e) {
    // A receive took a message a failed link lost, unhandled: as above.
    stop = true;
    const std::vector<LinkFailure>& links = machine.config.link_failures;
    for (std::size_t k = 0; k < links.size(); ++k) {
      if (links[k].a == e.link_a() && links[k].b == e.link_b()) {
        self.stop_cause_link = static_cast<int>(k);
      }
    }
  } catch (const CallsDifferError& e) {
    // The failure of the member it blames, which may be another (it went on past the call).
    record_error(e.node(), e.what());
    abort_run();
  } catch (const std::exception& e) {
    record_error(rank, e.what());
    abort_run();
  } catch (...) {
    record_error(rank, "an exception that is not a std::exception");
    abort_run();
  }
  if (stop) stop_node(self);
  if (hooks != nullptr) hooks->returned(self);
  // Irecvs still posted were let go of (Comm::free; a node that returns with other requests
  // open fails): they take their messages from now on without writing to their buffers, which
  // may have gone with the node's stack. Only this thread and, once every node has returned,
  // the controller drain this mailbox.
  self.posted.for_each([&](std::uint32_t id) { self.requests[id].abandoned = true; },
                       self.requests);
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
  if (sim_waits) wake_a_resolver();
  if (running.fetch_sub(1, std::memory_order_acq_rel) == 1) controller.signal();
}

void LocalNodes::stop_node(NodeState& self) {
  try {
    if ((self.stop_cause >= 0 || self.stop_cause_link >= 0) && node_time) {
      self.stop_time = node_time(self);
    }
    // Before the transport logs the stop: a node the simulation tells that its receive from
    // this one has failed finds it stopped.
    self.stopped.store(true, std::memory_order_release);
    if (stopping) stopping(self);
  } catch (const RunAborted&) {
    self.stopped.store(true, std::memory_order_release);  // the run is ending anyway
  }
  // Nodes waiting for a message from this one look again: none will come.
  for (auto& n : local()) {
    if (n.get() != &self && !n->finished.load(std::memory_order_acquire)) wake(*n);
  }
}

std::optional<RunError> LocalNodes::watch() {
  std::optional<RunError> failure;
  std::uint64_t suspect_activity = ~0ull;
  std::uint64_t last_activity = activity.load();
  auto last_progress = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> aborted_at;
  bool stall_noted = false;  // MachineConfig::on_stall was called
  // A look reads every node of this process (a few ms for 65,536 nodes): the controller
  // waits at least ten times as long as its last look took, so that it takes no more than
  // about a tenth of a core from the nodes, however many there are.
  long look_us = 0;
  watched_runs.fetch_add(1);
  struct Unwatch {
    ~Unwatch() { watched_runs.fetch_sub(1); }
  } unwatch;
  while (running.load(std::memory_order_acquire) > 0) {
    // Every 10 ms; 2 ms while a deadlock is suspected or stale waiters were just woken, so
    // a deadlock is reported about 15 ms after the last activity (on a machine of a few
    // thousand nodes; later on larger ones, by the pacing above).
    const long wait_us = suspect_activity != ~0ull || woke_stale ? 2'000 : 10'000;
    controller.wait(std::max(wait_us, 10 * look_us));
    woke_stale = false;
    if (running.load(std::memory_order_acquire) == 0) break;
    auto now = std::chrono::steady_clock::now();
    if (machine.abort.load()) {
      // Ended: every node in a vmc call returns at once. One in its own code returns at its
      // next call; one that never makes it cannot be stopped, and the process must end.
      if (!aborted_at) aborted_at = now;
      if (std::chrono::duration<double>(now - *aborted_at).count() > abort_grace_seconds()) {
        end_process_stuck(settled_failure(failure));
      }
      continue;
    }
    if (const int signal = interrupt_requested(); signal != 0) {
      failure.emplace(interrupted_error(signal, blocked_waits(true)));
      abort_run();
      continue;
    }
    std::uint64_t a = activity.load();
    if (a != last_activity) {
      // Something happened since the last look: no deadlock yet, and no node to read.
      last_activity = a;
      last_progress = now;
      suspect_activity = ~0ull;
      continue;
    }
    const bool confirmed = blocked_confirmed(a, suspect_activity);
    look_us = static_cast<long>(std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::steady_clock::now() - now)
                                    .count());
    if (confirmed) {
      failure.emplace(deadlock_error(blocked_waits()));
      abort_run();
      continue;
    }
    const double stalled = std::chrono::duration<double>(now - last_progress).count();
    const MachineConfig& c = machine.config;
    if (!stall_noted && c.on_stall && c.stall_note_seconds < c.watchdog_seconds &&
        stalled > c.stall_note_seconds) {
      stall_noted = true;
      c.on_stall(blocked_waits(true));
    }
    if (stalled > c.watchdog_seconds) {
      failure.emplace(watchdog_error(machine.config.watchdog_seconds, blocked_waits(true)));
      abort_run();
    }
  }

  return settled_failure(failure);
}

std::optional<RunError> LocalNodes::settled_failure(const std::optional<RunError>& found) {
  if (found) return found;
  if (!sim_deadlock.empty()) {
    return RunError(RunError::Kind::deadlock, sim_deadlock, -1, sim_deadlock_waits);
  }
  std::lock_guard lock(error_mutex);
  if (!errors.empty()) {
    // Report the first node (lowest rank among those that threw first is not knowable;
    // errors are kept in the order they were recorded).
    const ErrorRecord& e = errors.front();
    return RunError(RunError::Kind::node_threw, threw_report(e.node, e.what, errors.size()),
                    e.node, std::vector<BlockedWait>{});
  }
  return std::nullopt;
}

double LocalNodes::abort_grace_seconds() const {
  // Interrupted: someone waits at the terminal, and a second signal ends the process anyway.
  if (interrupt_requested() != 0) return 2.0;
  return std::clamp(machine.config.watchdog_seconds, 2.0, 30.0);
}

void LocalNodes::end_process_stuck(const std::optional<RunError>& failure) {
  std::vector<int> own_code, behind;
  for (const auto& n : local()) {
    if (n->finished.load(std::memory_order_seq_cst)) continue;
    const bool runs = n->blocked_stamp.load(std::memory_order_seq_cst) == 0 &&
                      executor->running_now(*n);
    (runs ? own_code : behind).push_back(n->rank);
  }
  std::string text = failure ? failure->what() : std::string("the run was ended");
  const std::vector<int> behind_all = behind;
  if (own_code.empty()) {  // none running: they wait in vmc and were not woken
    text += "\n" + nodes_text(behind) + " did not return within " +
            seconds_text(abort_grace_seconds()) + " of the run's end, in a wait of vmc";
    behind.clear();
  } else {
    text += "\n" + nodes_text(own_code) + " did not return within " +
            seconds_text(abort_grace_seconds()) +
            " of the run's end: in the program's own code (a loop that makes no vmc call), "
            "which vmc cannot interrupt";
  }
  if (!behind.empty()) {
    text += "; " + nodes_text(behind) + " waited behind " +
            (own_code.size() == 1 ? "it" : "them") + " (a fiber worker runs one node at a time)";
  }
  text += ": the process ends";
  RunError stuck(RunError::Kind::stuck, std::move(text), own_code.empty() ? -1 : own_code.front(),
                 blocked_waits(true));
  stuck.set_stuck({failure ? std::make_shared<const RunError>(*failure) : nullptr, own_code,
                   behind_all, abort_grace_seconds()});
  stuck_handler()(stuck);
  std::_Exit(1);  // a handler that returned: nothing else is safe with those nodes running
}

void LocalNodes::fail(const RunError& err) {
  RunError copy = err;  // err may live in what the reset clears
  reset();
  throw copy;
}

void LocalNodes::reset() {
  // The network may still be finishing transfers of an aborted run: they refer to the
  // nodes' requests, which are cleared below.
  if (hooks != nullptr) hooks->quiesce();
  for (auto& n : local()) {
    // An aborted run can leave irecvs posted into buffers that went out of scope with the
    // node's stack: forget them first, so the messages still queued are freed, not copied.
    n->posted.clear();
    n->discard_all();
    n->clear_run();
  }
  executor->reset();
  while (controller.tryWait()) {
  }
  if (hooks != nullptr) hooks->reset();
  {
    std::lock_guard lock(sim_mutex);
    sim.reset();
  }
  sim_waits_for.store(-1);
  resolvers.clear();
  remote_logs.clear();
  errors.clear();
  sim_deadlock.clear();
  sim_deadlock_waits.clear();
  {
    std::lock_guard lock(comms_mutex);
    comm_members.clear();
  }
  machine.abort.store(false);
  body = nullptr;
}

void LocalNodes::note_members(const CommGroup& g) {
  std::lock_guard lock(comms_mutex);
  comm_members[g.id] = g.world;
}

std::vector<int> LocalNodes::members_of(std::uint32_t comm) {
  if (comm == 0) {
    std::vector<int> all(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) all[static_cast<std::size_t>(r)] = r;
    return all;
  }
  std::lock_guard lock(comms_mutex);
  auto it = comm_members.find(comm);
  return it == comm_members.end() ? std::vector<int>{} : it->second;
}

void LocalNodes::note_group(const std::shared_ptr<CommGroup>& g) {
  std::lock_guard lock(comms_mutex);
  groups[g->id] = g;
  if (groups.size() > 2 * groups_kept + 64) {
    std::erase_if(groups, [](const auto& e) { return e.second.expired(); });
    groups_kept = groups.size();
  }
}

void LocalNodes::wake_a_resolver() {
  std::lock_guard lock(resolvers_mutex);
  if (!resolvers.empty()) wake(*nodes[resolvers.front()]);
}

void LocalNodes::record_deadlock(std::string what) {
  {
    std::lock_guard lock(error_mutex);
    if (sim_deadlock.empty()) {
      // What every node was in when the pass found that none can go on (each is waiting, for
      // the pass or for a message): the calls a front door named, too.
      sim_deadlock_waits = blocked_waits();
      sim_deadlock = std::move(what);
      bool named = false;
      for (const BlockedWait& w : sim_deadlock_waits) named = named || !w.context.empty();
      if (named) {
        sim_deadlock += "\nthe nodes were in:";
        for (const BlockedWait& w : sim_deadlock_waits) sim_deadlock += "\n  " + w.describe();
      }
      sim_deadlock += absent_members_text(sim_deadlock_waits);
    }
  }
  abort_run();
}

void LocalNodes::record_error(int node, std::string what) {
  std::lock_guard lock(error_mutex);
  errors.push_back({node, std::move(what)});
}

void LocalNodes::abort_run() {
  machine.abort.store(true, std::memory_order_seq_cst);
  activity.fetch_add(1, std::memory_order_seq_cst);
  for (auto& n : local()) executor->unpark(*n);
  if (hooks != nullptr) hooks->aborting();
  controller.signal();
}

bool LocalNodes::deadlocked() {
  // A transfer moving data (real clock) will deliver it, and count as activity.
  if (hooks != nullptr && hooks->moving()) return false;
  std::uint64_t a = activity.load(std::memory_order_seq_cst);
  int blocked = 0;
  bool stale = false;
  // From the last node down: the nodes a fiber worker has not started yet are the last ones,
  // and one of them ends the look at once.
  const auto mine = local();
  for (auto it = mine.rbegin(); it != mine.rend(); ++it) {
    const auto& n = *it;
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
  return blocked > 0 && activity.load(std::memory_order_seq_cst) == a;
}

bool LocalNodes::blocked_confirmed(std::uint64_t a, std::uint64_t& suspect) {
  if (!deadlocked()) {
    suspect = ~0ull;
    return false;
  }
  // Confirm on a later look, with the same activity stamp, once every blocked node has
  // looked at what it waits for again since the suspicion (a nudge: a wake that is not
  // activity), so that no wake lost between nodes is taken for a deadlock.
  if (suspect == a && every_node_looked_again() && deadlocked()) return true;
  if (suspect != a) nudge_blocked_nodes();
  suspect = a;
  return false;
}

std::vector<BlockedWait> LocalNodes::blocked_waits(bool running_too) {
  std::vector<BlockedWait> waits;
  for (auto& n : local()) {
    if (n->finished.load(std::memory_order_seq_cst)) continue;
    // Outside every wait: running, or (fibers) waiting for its worker to come back to it.
    const auto running = [&] { return executor->running_now(*n) ? kRunningNode : kQueuedNode; };
    if (running_too && n->blocked_stamp.load(std::memory_order_seq_cst) == 0) {
      std::lock_guard lock(n->wait_mutex);  // the node may be leaving a call (CallContext)
      waits.push_back({n->rank, running(), -1, -1, 0, 0, n->context_text()});
      continue;
    }
    if (n->stopped.load(std::memory_order_acquire)) {
      waits.push_back({n->rank, kStoppingNode, -1, -1, 0, 0, ""});
      continue;
    }
    std::lock_guard lock(n->wait_mutex);
    const WaitDescription& w = n->waiting;
    if (*w.operation == '\0' && n->blocked_stamp.load(std::memory_order_seq_cst) == 0) {
      // In none of vmc's waits in this run (a report made while other nodes run: a node that
      // reads its clock without end): running the program's own code.
      waits.push_back({n->rank, running(), -1, -1, 0, 0, n->context_text()});
      continue;
    }
    BlockedWait& b = waits.emplace_back(
        BlockedWait{n->rank, w.operation, w.peer, w.peer_world, w.tag, w.comm, n->context_text()});
    if (n->waiting_other.found) {
      b.other = true;
      b.other_world = n->waiting_other.src;
      b.other_tag = n->waiting_other.tag;
      b.other_bytes = n->waiting_other.bytes;
    }
  }
  name_absent_members(waits);
  return waits;
}

// Nodes wait inside collective call c of a comm for a step of its algorithm, and the partner
// a wait names is often as stuck as they are: the cause is a member that never began call c
// (it skipped the call, or waits elsewhere). Each such wait gets the members of the comm that
// have not begun it: a member has begun call c when it has numbered more than c collective
// calls on the comm (NodeState::collective_seq).
void LocalNodes::name_absent_members(std::vector<BlockedWait>& waits) {
  const auto in_a_call = [](const BlockedWait& w) {
    return w.operation != kRunningNode && w.operation != kQueuedNode &&
           w.tag >= detail::kCollectiveTagBase;
  };
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<int>> absent;  // (comm, call)
  for (const BlockedWait& w : waits) {
    if (in_a_call(w)) absent.try_emplace({w.comm, detail::call_of(w.tag)});
  }
  for (auto& [key, list] : absent) {
    const auto [comm, call] = key;
    std::vector<int> members;
    if (comm == 0) {
      members = members_of(0);
    } else {
      std::lock_guard lock(comms_mutex);
      auto it = groups.find(comm);
      const auto g = it == groups.end() ? nullptr : it->second.lock();
      if (g != nullptr) members = g->world;
    }
    bool known = !members.empty();
    for (int m : members) {
      if (!known) break;
      if (!hosts(m)) {
        known = false;  // another process's node (a spread machine): not known here
        break;
      }
      NodeState& n = *nodes[m];
      std::uint64_t begun = 0;
      if (n.finished.load(std::memory_order_seq_cst)) {
        begun = n.collective_seq.count(comm);
      } else if (n.stopped.load(std::memory_order_acquire)) {
        known = false;  // a failed node, stopping
      } else {
        // A node in a wait wrote its counts before it took wait_mutex to say so, and takes it
        // again to leave the wait; one in no wait may be changing them.
        std::lock_guard lock(n.wait_mutex);
        if (*n.waiting.operation == '\0') {
          known = false;
        } else {
          begun = n.collective_seq.count(comm);
        }
      }
      if (!known) break;
      if (begun <= call) list.push_back(m);
    }
    if (!known) list.clear();
  }
  // Per comm, the earliest call that members have not begun is the cause; a later one's
  // waiters are behind it (and under vmc mpirun an MPI call may make two of vmc's: the
  // members waiting in the first have not begun the second).
  std::map<std::uint32_t, std::uint64_t> earliest;
  for (const auto& [key, list] : absent) {
    if (!list.empty()) earliest.try_emplace(key.first, key.second);  // keys in order
  }
  for (auto& [key, list] : absent) {
    const auto it = earliest.find(key.first);
    if (it != earliest.end() && key.second != it->second) list.clear();
  }
  for (BlockedWait& w : waits) {
    if (in_a_call(w)) w.not_begun = absent[{w.comm, detail::call_of(w.tag)}];
  }
}

// Fibers only: a fiber parks until woken, while a node thread looks again by itself at
// least every 100 ms (and the real clock's network waits every 50 ms).
void LocalNodes::nudge_blocked_nodes() {
  if (engine != Engine::fibers) return;
  for (auto& n : local()) {
    n->parks_at_nudge = n->parks.load(std::memory_order_seq_cst);
    if (!n->finished.load(std::memory_order_seq_cst)) executor->unpark(*n);
  }
}

bool LocalNodes::every_node_looked_again() const {
  if (engine != Engine::fibers) return true;
  for (const auto& n : local()) {
    if (n->finished.load(std::memory_order_seq_cst)) continue;
    if (n->parks.load(std::memory_order_seq_cst) == n->parks_at_nudge) return false;
  }
  return true;
}

namespace {

// A receive that waits for `key`: notes a message from the same source (from any, for a
// receive from any source) on the same comm under another tag, for a deadlock report that
// then names it. A mailbox of many messages is not searched (the note is a hint).
void note_other_tag(NodeState& n, const MatchKey& key) {
  if (n.unexpected.empty() || n.unexpected.size() > 64) return;
  Found other;
  n.unexpected.for_each([&](const MatchKey& k, const MessageFifo& fifo) {
    if (other.found || k.comm != key.comm || k.tag == key.tag) return;
    if (k.src != key.src && key.src != kAnySource) return;
    other = Found{true, k.src, k.tag, fifo.head->bytes, fifo.head->items};
  });
  if (!other.found) return;
  std::lock_guard lock(n.wait_mutex);
  n.waiting_other = other;
}

}  // namespace

bool LocalNodes::source_stopped(NodeState& n, const MatchKey& key) {
  if (key.src < 0 || !nodes[key.src]->stopped.load(std::memory_order_acquire)) return false;
  // What it sent before it stopped is in the mailbox now.
  n.drain();
  return true;
}

bool LocalNodes::request_source_stopped(NodeState& n, RequestState& r) {
  if (r.send || r.filled || r.deferred) return false;
  const MatchKey key{r.comm, r.peer_world, r.tag};
  if (!source_stopped(n, key) || r.filled) return false;
  n.posted.remove(key, r, n.requests);
  r.failed = r.peer_world;
  r.filled = true;
  return true;
}

Message* LocalNodes::wait_for(NodeState& n, const MatchKey& key, const WaitDescription& what) {
  Message* m = n.take(key);
  if (m != nullptr) return m;
  // The mailbox is searched for a message under another tag once when the wait begins and
  // again only after new messages came in, until one is noted: a noted message stays in the
  // mailbox, as nothing but this wait takes from it. A wake that brought nothing (a nudge, a
  // bounded re-check, a stale waiter woken by the controller) searches nothing.
  bool unseen = true;
  block_until(
      n,
      [&] {
        unseen = n.drain() > 0 || unseen;
        m = n.take(key);
        if (m == nullptr && unseen && !n.waiting_other.found) note_other_tag(n, key);
        unseen = false;
        return m != nullptr || (machine.failing() && source_stopped(n, key));
      },
      what);
  if (m == nullptr) m = n.take(key);  // the source stopped: null when it sent none
  if (n.waiting_other.found) {  // the node's own field: only it writes it
    std::lock_guard lock(n.wait_mutex);
    n.waiting_other = Found{};
  }
  return m;
}

std::optional<RunError> LocalNodes::settle() {
  if (hooks == nullptr || hooks->settle()) return std::nullopt;
  const double seconds = machine.config.watchdog_seconds;
  return RunError(RunError::Kind::watchdog,
                  "watchdog: every node returned, but transfers of isends were still in flight "
                  "and none ended for " + seconds_text(seconds) + "; they were ended",
                  -1, {});
}

std::vector<Unreceived> LocalNodes::left_in_mailboxes() {
  std::vector<Unreceived> left;
  for (auto& n : local()) {
    n->drain();
    // A failed node's messages are lost with it (MachineConfig::failures).
    if (n->stopped.load(std::memory_order_acquire)) continue;
    n->unexpected.for_each([&](const MatchKey&, const MessageFifo& fifo) {
      for (const Message* m = fifo.head; m != nullptr; m = m->next) {
        left.push_back({n->rank, m->src, m->tag, m->comm, m->bytes});
      }
    });
  }
  return left;
}

std::optional<RunError> LocalNodes::unreceived() {
  std::vector<Unreceived> left = left_in_mailboxes();
  if (left.empty()) return std::nullopt;
  return unreceived_error(std::move(left));
}

}  // namespace vmc::detail
