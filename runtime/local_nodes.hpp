// The nodes this process runs as threads or fibers with mailboxes, and the control of their
// runs. The local machine on either clock and a spread machine's block of nodes are built on
// it (runtime/mailbox_transport.hpp). Internal.
//
// Each node is a thread or a fiber made once (runtime/executor.hpp) and parked between runs.
// A run publishes the node body, releases every node, and the thread that called run becomes
// the controller (watch): it waits for the nodes to finish, and meanwhile looks for a deadlock
// every few milliseconds. A deadlock is every unfinished node blocked, with an activity stamp
// equal to the current machine activity: no message or arrival it could be waiting for has
// happened since it last looked (block_until).
#pragma once

#include <atomic>
#include <chrono>
#include <concurrentqueue/concurrentqueue.h>
#include <concurrentqueue/lightweightsemaphore.h>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/executor.hpp"
#include "runtime/machine_impl.hpp"
#include "runtime/node.hpp"
#include "runtime/run_errors.hpp"
#include "runtime/simulator.hpp"

namespace vmc::detail {

// What a network beside the nodes adds to the control of their runs (the real clock: its
// tokens, sleeps and transfer threads). Every hook may do nothing.
class NetworkHooks {
 public:
  virtual ~NetworkHooks() = default;
  // Node n's function is about to run; called on its thread.
  virtual void starting(NodeState&) {}
  // Node n's function has returned or thrown; called on its thread, before it counts as
  // finished.
  virtual void returned(NodeState&) {}
  // Whether something in flight may still release a blocked node (no deadlock then).
  virtual bool moving() { return false; }
  // The run is being ended: every wait of the network must see it now.
  virtual void aborting() {}
  // Every node has returned and the run did not fail: what is still in flight arrives (or,
  // if it never can, is left where the unreceived-message check finds it) before the check
  // looks. False when transfers still moved after the watchdog time without one ending:
  // they were ended (as by aborting), and the run fails.
  virtual bool settle() { return true; }
  // Before the nodes are reset after a run: nothing of the network works for it any more.
  virtual void quiesce() {}
  // After: nothing held from the run.
  virtual void reset() {}
};

// Where this process's nodes are and what their executor must allow.
struct NodePlacement {
  int lo = 0, hi = 0;           // the nodes [lo, hi) of the machine's p
  bool oversubscribed = false;  // more threads want the cores than there are: never spin
  int processes_here = 1;       // processes sharing this host's cores (fibers' workers)
  bool parallel_waits = false;  // every node must wait in parallel, for real (the real
                                // clock): threads, with timers as tight as the kernel offers
};

struct ErrorRecord {
  int node = -1;
  std::string what;
};

// The states of this process's nodes, side by side in one anonymous mapping: no allocation
// per node (a million aligned allocations took twice as long as the mapping's page faults),
// and a look over every node (a run's start, the controller's look for a deadlock, the reset)
// walks contiguous memory. An entry
// of LocalNodes::nodes only ends its node's life (NodeDestroy); the arena frees the memory.
class NodeArena {
 public:
  explicit NodeArena(std::size_t count);
  ~NodeArena();
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;
  void* slot(std::size_t i) const { return base_ + i * sizeof(NodeState); }

 private:
  char* base_ = nullptr;
  std::size_t bytes_ = 0;
};
struct NodeDestroy {
  void operator()(NodeState* n) const noexcept { n->~NodeState(); }
};
using NodePtr = std::unique_ptr<NodeState, NodeDestroy>;

struct LocalNodes {
  // Checks the engine, workers and stack size of m's configuration, makes the nodes
  // [where.lo, where.hi) and their executor.
  LocalNodes(MachineImpl& m, const NodePlacement& where);
  ~LocalNodes();
  LocalNodes(const LocalNodes&) = delete;
  LocalNodes& operator=(const LocalNodes&) = delete;

  MachineImpl& machine;
  const int p;
  // The nodes this process runs: [lo, hi) (all of them but on a spread machine, where the
  // others' entries of `nodes` are null) and, on process 0 of a spread machine after a run,
  // the other processes' nodes' logs (by node; the simulator reads them through log_of).
  const int lo, hi;
  NodeArena arena;  // before `nodes`: it outlives them
  std::vector<NodePtr> nodes;
  std::vector<NodeLog> remote_logs;
  // More threads want the cores than there are (spread: processes on this host): the
  // executors then sleep at once instead of spinning.
  const bool oversubscribed;
  Engine engine = Engine::threads;     // the one in use (never automatic)
  NetworkHooks* hooks = nullptr;       // the network beside the nodes, if any
  std::unique_ptr<Executor> executor;  // made last, destroyed first

  // One run at a time.
  const NodeBody* body = nullptr;
  std::atomic<int> running{0};
  std::atomic<std::uint64_t> activity{0};
  moodycamel::LightweightSemaphore controller{0, 0};
  std::mutex error_mutex;
  std::vector<ErrorRecord> errors;  // guarded by error_mutex
  std::string sim_deadlock;         // guarded by error_mutex
  std::vector<BlockedWait> sim_deadlock_waits;  // ... and what each node waited for then
  std::chrono::steady_clock::time_point run_start;
  bool woke_stale = false;  // controller only: the last look woke stale waiters

  // Virtual time: this run's simulation, made at the first query (or after the run), and
  // the node whose next operation it waits for (-1: none). Nodes waiting for an answer are
  // listed in `resolvers` so that the node it waits for can wake them when it records one.
  std::mutex sim_mutex;
  SimulationPtr sim;  // guarded by sim_mutex
  std::atomic<int> sim_waits_for{-1};
  // Lines of output marked in the nodes' logs (NodeLog::output_marks) that the pass has not
  // handed on yet: while 0, the pass does not look at any log's marks.
  std::atomic<std::uint64_t> output_marks{0};
  std::mutex resolvers_mutex;
  std::vector<int> resolvers;  // guarded by resolvers_mutex
  // What a fiber worker with no runnable node does before it spins or sleeps: the virtual
  // clock advances the simulation if no one else is (runtime/virtual_clock.cpp). Whether it
  // got anywhere (the worker then looks at its queue and calls it again). Empty: nothing.
  std::function<bool()> idle_work;
  // Failures on purpose (MachineConfig::failures): the node's time now, and what the clock
  // records when a node stops (the virtual clock logs it for the simulation). Empty: nothing.
  std::function<Picos(NodeState&)> node_time;
  std::function<void(NodeState&)> stopping;
  // ... and, only while machine.failing(), the members (world ranks) of each group the run
  // made, by id: the simulation's rules for a receive from any source and a constructor
  // (docs/model.md, "Failed nodes") look at whether a member has stopped. The world (id 0)
  // is every node and is not listed.
  std::mutex comms_mutex;
  std::unordered_map<std::uint32_t, std::vector<int>> comm_members;  // guarded by comms_mutex
  void note_members(const CommGroup& g);
  std::vector<int> members_of(std::uint32_t comm);
  // Every group the run made (split, create_group), by id, while some node holds it: a
  // deadlock report names the members of a comm that have not begun the collective call
  // others wait in (blocked_waits). Expired entries go as the table grows.
  std::unordered_map<std::uint32_t, std::weak_ptr<const CommGroup>> groups;  // comms_mutex
  std::size_t groups_kept = 0;  // the table's size after its last sweep of expired entries
  void note_group(const std::shared_ptr<CommGroup>& g);

  bool hosts(int r) const { return r >= lo && r < hi; }
  std::span<NodePtr> local() {
    return {nodes.data() + lo, static_cast<std::size_t>(hi - lo)};
  }
  std::span<const NodePtr> local() const {
    return {nodes.data() + lo, static_cast<std::size_t>(hi - lo)};
  }
  const NodeLog& log_of(int r) const { return hosts(r) ? nodes[r]->log : remote_logs[r]; }

  // --- a run -------------------------------------------------------------------------------
  // Releases every node to run `body` (which must outlive the run).
  void start(const NodeBody& body);
  // Runs the body on node `rank` and records how it ended (called by the executor on the
  // node's thread or fiber).
  void run_node(int rank);
  // The controller: waits until every node has returned; looks for a deadlock and for lack
  // of progress meanwhile. The run's failure, if it failed.
  std::optional<RunError> watch();
  // The run's failure, `found` or what the nodes recorded (a deadlock, a node's error).
  std::optional<RunError> settled_failure(const std::optional<RunError>& found);
  // How long nodes have to return after a run was ended before end_process_stuck: the
  // watchdog time, from 2 s to 30 s.
  double abort_grace_seconds() const;
  // Nodes that did not return after the run was ended are in their own code and cannot be
  // stopped: reports them (kind stuck) through stuck_handler() and ends the process.
  [[noreturn]] void end_process_stuck(const std::optional<RunError>& failure);
  // A failed run: the nodes are reset and `err` thrown.
  [[noreturn]] void fail(const RunError& err);
  // After a run: every node's state, the mailboxes, the executor and the network cleared.
  void reset();

  // --- failures ------------------------------------------------------------------------------
  void record_error(int node, std::string what);
  // The simulation found that the nodes wait for what can never happen: the run ends with
  // a deadlock report (kind deadlock) carrying `what`.
  void record_deadlock(std::string what);
  void abort_run();
  bool deadlocked();
  // Whether every unfinished node of this process is blocked, confirmed: suspected at
  // activity `a` on an earlier look (`suspect`, ~0 when none; updated here) and every blocked
  // node has looked again since. The controller's look for a deadlock, on one process or many.
  bool blocked_confirmed(std::uint64_t a, std::uint64_t& suspect);
  // What this process's unfinished nodes wait for; with `running_too`, a node not in a wait
  // at the moment is listed as running (the watchdog's report: what moves and what waits).
  std::vector<BlockedWait> blocked_waits(bool running_too = false);
  void name_absent_members(std::vector<BlockedWait>& waits);
  // Controller: wakes every unfinished node without counting it as activity, and whether
  // each has parked again since.
  void nudge_blocked_nodes();
  bool every_node_looked_again() const;

  // --- waits -----------------------------------------------------------------------------------
  // Signals that a node's wait may be over.
  void wake(NodeState& n) {
    activity.fetch_add(1, std::memory_order_seq_cst);
    executor->unpark(n);
  }
  // The pass can go on (the node it waited for logged, or returned): one node waiting for an
  // answer is woken to advance it. One, not all: only one can hold the pass at a time, and
  // waking every waiting node at every step made p nodes reading their clock cost p^2
  // wake-ups (MPI_Wtime on every rank). A waiting node that leaves, answered, hands the
  // pass on to the next (VirtualClock::drive_until).
  void wake_a_resolver();
  // Blocks node n until ready() is true; ready is re-evaluated after each wake-up
  // (deadlock-aware, abort-aware).
  template <class Ready>
  void block_until(NodeState& n, Ready ready, const WaitDescription& what);
  // Blocks node n until a message matching key arrives, and takes it; null when the source
  // has stopped (MachineConfig::failures) without sending one.
  Message* wait_for(NodeState& n, const MatchKey& key, const WaitDescription& what);
  // Failures (only while machine.failing()): whether key's source has stopped (n's mailbox
  // then holds all it sent); and, for an irecv not filled, the same, marking it completed
  // without a message (failed).
  bool source_stopped(NodeState& n, const MatchKey& key);
  bool request_source_stopped(NodeState& n, RequestState& r);
  // Node `self` stops: its time is noted, the clock records it, and the nodes that wait for
  // it look again.
  void stop_node(NodeState& self);
  // After every node returned: the messages no receive took, as the run's failure.
  std::optional<RunError> unreceived();
  // The same messages, in the order of this process's nodes (a spread machine's process 0
  // reports every process's together, docs/mpi.md).
  std::vector<Unreceived> left_in_mailboxes();
  // After every node returned, before unreceived(): the network's transfers in flight end
  // (NetworkHooks::settle); the run's failure if they did not within the watchdog time.
  std::optional<RunError> settle();
};

template <class Ready>
void LocalNodes::block_until(NodeState& n, Ready ready, const WaitDescription& what) {
  if (ready()) return;
  {
    std::lock_guard lock(n.wait_mutex);
    n.waiting = what;
  }
  for (;;) {
    if (machine.abort.load(std::memory_order_acquire)) throw RunAborted{};
    std::uint64_t stamp = activity.load(std::memory_order_seq_cst);
    if (ready()) break;
    n.blocked_stamp.store(stamp + 1, std::memory_order_seq_cst);
    n.parks.fetch_add(1, std::memory_order_seq_cst);
    executor->park(n, 100'000);  // threads: re-check abort every 100 ms
    n.blocked_stamp.store(0, std::memory_order_seq_cst);
    if (ready()) break;
  }
  // Out of the wait: a report made while the node runs does not name it (blocked_waits).
  std::lock_guard lock(n.wait_mutex);
  n.waiting = WaitDescription{};
}

}  // namespace vmc::detail
