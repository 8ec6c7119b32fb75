// Machine: p virtual nodes, each a thread with a mailbox, and the network model that
// charges their messages. Threads are created once and reused: run(fn) runs an SPMD
// function on every node and can be called many times.
//
//   vmc::Machine m({.topology = vmc::parse_topology("hypercube:64"),
//                   .model = {.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6}});
//   auto r = m.run([&](vmc::Node& node) { ... node.world().send(...) ... });
//   r.time(); r.stats(); r.trace().write_chrome_json("run.json");
//
// A run that fails (a node threw, a deadlock, no progress) throws RunError naming the node
// and what it waited for; every node is released and the machine is ready for the next run.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/comm.hpp"
#include "runtime/errors.hpp"
#include "runtime/failures.hpp"
#include "runtime/model.hpp"
#include "runtime/trace.hpp"
#include "topology/topology.hpp"

namespace vmc {

namespace detail {
struct MachineImpl;
// Testing: machines made from now on fail to create the thread of node `node` as if the
// system refused it (-1: never), to test that failure without making 32,000 threads.
void refuse_thread_creation_at(int node);
}  // namespace detail

// How node functions are executed (runtime/executor.hpp):
//   threads    every node an OS thread (about 32,000 per process); needed by the real clock;
//   fibers     every node a user-level thread with a small stack, several per worker
//              thread: cheap hand-offs and machines of any size; virtual clock only;
//   automatic  fibers on the virtual clock, threads on the real one (the environment
//              variable VMC_ENGINE=threads or fibers chooses for the virtual clock).
// Results, virtual times, statistics and traces are the same under both, bit for bit.
enum class Engine { automatic, threads, fibers };
std::string to_string(Engine e);
Engine parse_engine(std::string_view s);  // throws std::invalid_argument

// What messages carry:
//   full  the data: every send copies its buffer, every receive gets it (the default);
//   none  timing only: no payload is copied or allocated, receive buffers are left as they
//         are, and collectives skip their local copies and combines (charging their time
//         all the same). Virtual times, statistics and traces are those of the full run, bit
//         for bit; results are not. For machines too large to hold their data.
enum class Data { full, none };
std::string to_string(Data d);
Data parse_data(std::string_view s);  // throws std::invalid_argument

// Where the nodes run and how their messages travel:
//   local  every node a thread or fiber of this process, messages through shared memory,
//          timed by the machine model on the virtual or the real clock (the default);
//   mpi    every node a process of MPI_COMM_WORLD or of the communicator given (one node
//          per process; start the program with mpirun -np P), messages by MPI's
//          point-to-point on the network the processes run on, timed by MPI_Wtime: vmc's algorithms as real MPI collectives. A run's time
//          is the longest node's wall time; the model's costs are used only to choose
//          algorithms. Needs vmc built with MPI (runtime/mpi_transport.cpp says what changes).
//   spread the emulated machine spread over the processes of MPI_COMM_WORLD or of the
//          communicator given (mpirun -np K): each process runs a contiguous block of the p
//          nodes as threads or fibers with mailboxes, and a message to a node of another process travels by MPI. Virtual
//          clock only; the virtual times, statistics and traces are those of the same
//          program on one process, bit for bit (runtime/spread_transport.cpp says how). Every
//          process makes the same Machine and calls run with the same function; each runs
//          its own nodes' calls of it, and every process gets the same RunResult (the trace
//          on process 0 only) or the same RunError. Needs vmc built with MPI.
enum class Transport { local, mpi, spread };
std::string to_string(Transport t);
Transport parse_transport(std::string_view s);  // throws std::invalid_argument
// MPI_COMM_WORLD's size and this process's rank in it, starting MPI when the program has not
// (and finishing it at exit). Throw UsageError when vmc was built without MPI.
int mpi_world_size();
int mpi_world_rank();

struct MachineConfig {
  // The interconnect. When null, `nodes` must be set and the topology is full:nodes.
  std::shared_ptr<const Topology> topology;
  int nodes = 0;
  // The defaults reproduce 000's assumptions: single-port exchange, wormhole, exclusive
  // (costs are zero until set).
  Model model{};
  Clock clock = Clock::virtual_time;
  // Real time: wall seconds per modelled second (0.01 runs a 1 s model in 10 ms). From 1e-6
  // to 1e3: outside, the clocks' arithmetic would not fit (UsageError).
  double time_scale = 1.0;
  // Record per-message and per-combine events (virtual time always has them internally).
  bool trace = true;
  // Virtual clock: whether a run where links held anyone up also measures how much of its
  // time that cost (Stats::contention_critical_delay and free_time): a second pass over the
  // same logs with links that hold no one up. Off, both stay 0 and the run is simulated once
  // (selection's private runs want only the time and the work: collectives/selection/
  // simulation.cpp); no other statistic changes.
  bool contention_share = true;
  // Virtual clock: whether the pass counts Stats::max_link_waiters, the most requests waiting
  // at once for one link, for which it reads every held link of each waiting request's route
  // at every instant it arbitrates. Off, it stays 0, and a request is looked at only up to the
  // first held link of its route, which is enough to know it waits (selection's private runs:
  // on ring:64 an allreduce's candidates spent a fifth of their pass counting); no other
  // statistic, and no time, changes.
  bool count_link_waiters = true;
  // Whether a node may send to itself (a local copy, free in time). Off: an error.
  bool allow_self_messages = false;
  // A run in which no node makes progress for this long is ended with a report.
  double watchdog_seconds = 300.0;
  // Called once in a run, by the thread that watches it, when no node has made progress for
  // stall_note_seconds (if that is less than watchdog_seconds): what each unfinished node is
  // in, as the watchdog's report gives it. For a front door that tells its user why nothing
  // happens before the watchdog ends the run (vmc mpirun). Empty: nothing is called.
  std::function<void(const std::vector<BlockedWait>&)> on_stall;
  // Virtual clock, the local machine: output in virtual time. A node that writes a line calls
  // mark_output (below) instead of writing it; the run's discrete-event pass, which takes
  // every node's operations in virtual-time order (ties in the same order on every run),
  // calls on_output(node, lines) when it reaches that point of the node: the lines its node
  // marked there, in order. So a front door writes the nodes' output in the same order on
  // every run (vmc mpirun: docs/mpi.md, "The ranks' output"). Empty: mark_output says no.
  std::function<void(int node, std::size_t lines)> on_output;
  double stall_note_seconds = 30.0;
  // Virtual clock: how many polls in a row (failed tests or probes while nothing else can
  // happen, or reads of the clock with nothing in between) make the run a deadlock, since the
  // time they wait for never comes.
  std::uint64_t poll_limit = 10'000'000;
  // Schedule perturbation (testing): when not 0, every node thread pauses for a random
  // short time (up to perturb_max_seconds, or a yield) before each runtime call, drawn
  // from a generator seeded with (perturb_seed, rank, run). Replaying a seed replays the
  // choices; virtual times are unaffected by construction.
  std::uint64_t perturb_seed = 0;
  double perturb_max_seconds = 50e-6;
  Engine engine = Engine::automatic;
  Data data = Data::full;
  Transport transport = Transport::local;
  // The MPI transport and spread machines: the processes that run the machine, as the Fortran
  // handle of an MPI communicator (MPI_Comm_c2f; vmc::on_communicator in runtime/mpi.hpp sets
  // it from an MPI_Comm); none: MPI_COMM_WORLD.
  std::optional<int> mpi_communicator;
  // Whether the members' calls of a collective are compared (Comm::begin_collective): free
  // on the local transport; over MPI one broadcast per call, which a timing run may leave out.
  bool check_calls = true;
  // Fibers: worker threads (0: one per core the process may use, at most one per node, and
  // one for a machine of one or two nodes) and bytes of stack per node (0: 256 KiB; at
  // least 64 KiB).
  int workers = 0;
  std::size_t stack_bytes = 0;
  // Nodes that fail on purpose (runtime/failures.hpp; docs/model.md, "Failed nodes"): each
  // stops at its first runtime call at or after its time, and a call of another node that
  // needs it throws NodeFailedError. The local transport on the virtual clock only.
  std::vector<NodeFailure> failures;
  // Nodes that fail at random, drawn from a seed when the machine is made (failures.hpp;
  // docs/model.md, "Random failures"), leaving out the nodes of `failures`: Machine::failures()
  // lists them, and the failure report of a run names the draw.
  std::optional<RandomFailures> random_failures;
  // Links that fail on purpose (runtime/failures.hpp; docs/model.md, "Failed links"): each
  // joins two neighbours of the topology and goes down at its time; a message whose sender
  // reaches the send at or after it and whose route crosses it takes another route that
  // avoids the links down then (fail_routes), or is lost, and the receive that takes a lost
  // one throws LinkFailedError. The local transport on the virtual clock, eager only.
  std::vector<LinkFailure> link_failures;
  // Whether such a message routes around the links down (the default) or is lost.
  FailRoutes fail_routes = FailRoutes::around;
};

// A node as the SPMD function sees it.
class Node {
 public:
  int rank() const { return world_.rank(); }
  int size() const { return world_.size(); }
  const Comm& world() const { return world_; }
  void charge_combine(std::size_t items) const { world_.charge_combine(items); }
  void charge_rearrange(std::size_t items) const { world_.charge_rearrange(items); }
  void charge_compute(double seconds) const { world_.charge_compute(seconds); }

 private:
  friend struct detail::MachineImpl;
  explicit Node(Comm world) : world_(std::move(world)) {}
  Comm world_;
};

// The node whose function the calling code runs in (under either engine: a fiber that moves
// between nodes sees its own), or null outside every node function.
Node* this_node();

// The stack the calling node runs on (its lowest address and size; {nullptr, 0} outside every
// node function), and whether `address` lies below it, within what a frame or a recursion that
// overflowed it would touch (64 MiB): for a crash handler, async-signal-safe. Every thread
// that runs nodes has its own stack for signal handlers (sigaltstack), so a handler installed
// with SA_ONSTACK runs after a node's stack overflowed.
struct StackRange {
  const char* low = nullptr;
  std::size_t size = 0;
};
StackRange this_node_stack() noexcept;
bool below_node_stack(const void* address) noexcept;

// The calling node has a line of output to write here (MachineConfig::on_output): whether the
// run's pass will hand it back, in virtual-time order, through on_output; false (outside a
// node, on the real clock, without on_output) means write it now.
bool mark_output();

// While alive, a deadlock report names `call` as what the calling node is in (a front door's
// own words for its call: "MPI_Recv(source 1, tag 5, MPI_COMM_WORLD)"), beside the runtime's
// wait. Nested contexts: the outermost is kept. Does nothing outside a node function.
class CallContext {
 public:
  explicit CallContext(std::string call);
  // The same, its text made only if a report asks for it: describe(arg), on the thread that
  // makes the report while this node is inside the call (so arg and what it points to must
  // not change during the call). For a call made often: nothing is built per call.
  using Describe = std::string (*)(const void* arg);
  CallContext(Describe describe, const void* arg);
  ~CallContext();
  CallContext(const CallContext&) = delete;
  CallContext& operator=(const CallContext&) = delete;

 private:
  bool set_ = false;
};

class RunResult {
 public:
  double time() const { return to_seconds(stats_.time); }  // max over nodes, seconds
  Picos time_ps() const { return stats_.time; }
  double node_time(int node) const { return to_seconds(stats_.node_time.at(node)); }
  const Stats& stats() const { return stats_; }
  // The nodes that failed (MachineConfig::failures) and the calls that needed them; empty
  // when none failed. A run in which every node handled the errors returns normally.
  const FailureReport& failures() const { return stats_.failures; }
  const Trace& trace() const { return trace_; }

 private:
  friend struct detail::MachineImpl;
  Stats stats_;
  Trace trace_;
};

class Machine {
 public:
  // Throws UsageError on a bad configuration, and when the system refuses a node's thread
  // (about 32,000 threads per process on Linux defaults).
  explicit Machine(MachineConfig config);
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  int size() const;
  const MachineConfig& config() const;
  // The nodes that fail in this machine's runs: MachineConfig::failures, then what
  // MachineConfig::random_failures drew, in order of time (as --fail node: items replay them:
  // describe_failures).
  const std::vector<NodeFailure>& failures() const;
  // Whether node r runs in this process: every node on the local transport; under spread,
  // the nodes of this process's block (the others are other processes').
  bool hosts(int node) const;
  // Whether `mine` holds in every process of the machine (spread: an MPI reduction among
  // them, called by every process; elsewhere `mine`). For checks of what each process saw
  // of its own nodes.
  bool everywhere(bool mine);
  const Topology& topology() const;

  // Runs fn on every node and waits for all of them. Throws RunError on a fault, and
  // UsageError when called from inside a node function of this machine.
  RunResult run(const std::function<void(Node&)>& fn);
  // The same run, for a caller that needs its result only if its time is at most `limit`
  // (automatic selection: a candidate slower than a time known cannot win). On the virtual
  // clock of one process the discrete-event pass stops at the first instant after `limit`
  // that it reaches after the nodes end (every node's clock then ends later: the run's time
  // exceeds `limit`), and the answer is empty, as it is for a run that ended past it;
  // otherwise what run returns. The machine stays usable either way.
  std::optional<RunResult> run_within(Picos limit, const std::function<void(Node&)>& fn);

 private:
  std::unique_ptr<detail::MachineImpl> impl_;
};

}  // namespace vmc
