// Runtime internals shared by machine.cpp, comm.cpp, simulator.cpp and real_network.cpp.
// Not part of the public interface.
#pragma once

#include <atomic>
#include <chrono>
#include <concurrentqueue/concurrentqueue.h>
#include <concurrentqueue/lightweightsemaphore.h>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <tbb/scalable_allocator.h>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/executor.hpp"
#include "runtime/link_rates.hpp"
#include "runtime/machine.hpp"

namespace vmc::detail {

struct MachineImpl;

// Payloads and messages come from oneTBB's scalable allocator: it keeps freed memory per
// thread and for large blocks, so steady-state messages reuse memory already touched
// instead of faulting fresh pages in (about 12 us per 4 KiB page on the machines vmc is
// tested on, against 26 GB/s for memory in use).
// Under the sanitizers, which cannot see into oneTBB's allocator (a block it hands from one
// thread to another would read as a data race, a use after free would go unseen), plain
// malloc and free.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline void* message_malloc(std::size_t n) { return std::malloc(n); }
inline void message_free(void* p) noexcept { std::free(p); }
template <class T>
using PoolAllocator = std::allocator<T>;
#else
inline void* message_malloc(std::size_t n) { return scalable_malloc(n); }
inline void message_free(void* p) noexcept { scalable_free(p); }
template <class T>
using PoolAllocator = tbb::scalable_allocator<T>;
#endif
struct PayloadFree {
  void operator()(std::byte* p) const noexcept { message_free(p); }
};
using Payload = std::unique_ptr<std::byte[], PayloadFree>;
inline Payload make_payload(std::size_t bytes) {
  auto* p = static_cast<std::byte*>(message_malloc(bytes));
  if (p == nullptr) throw std::bad_alloc();
  return Payload(p);
}

// A message in flight or waiting in a mailbox.
struct Message {
  static void* operator new(std::size_t n) {
    void* p = message_malloc(n);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void operator delete(void* p) noexcept { message_free(p); }

  std::uint32_t comm = 0;
  int src = 0;                      // world rank
  Tag tag = 0;
  std::uint64_t items = 0;
  std::uint64_t send_index = 0;     // position among the sender's sends in this run
  std::size_t bytes = 0;
  Payload payload;
  Message* next = nullptr;          // the mailbox's FIFO of messages with one match key

  // A lent message carries its bytes by reference: on the virtual clock a sendrecv lends
  // its send buffer, and so does a send to a receiver already blocked waiting for it; the
  // receiver copies straight from it, one copy instead of two (the sender into a payload,
  // the receiver out of it). The sender takes the loan back before its call returns
  // (take_back); if the receiver has not begun to copy by then, the sender copies the bytes
  // into a payload of the message's own. The sender and the receiver each own a lent
  // message; whoever lets go last frees it (release).
  enum Loan : int { kNotLent, kOpen, kReading, kRead, kTaking, kTaken };
  const std::byte* lent = nullptr;
  std::atomic<int> loan{kNotLent};
  std::atomic<int> owners{1};
};

// Lets go of a message: frees it when no one else owns it.
void release(Message* m) noexcept;
struct MessageRelease {
  void operator()(Message* m) const noexcept { release(m); }
};
using OwnedMessage = std::unique_ptr<Message, MessageRelease>;
// The receiver's side: copies the message's bytes to `to` (from the lender's buffer while
// the loan is open, else from the payload).
void copy_out(Message& m, void* to) noexcept;
// The sender's side of a lent message: waits for a receiver that is copying, or copies
// the bytes into a payload, then lets go of the message. `unwinding`: called while an
// exception leaves the sendrecv.
void take_back(NodeState& sender, Message* m, bool unwinding) noexcept;

// Messages that arrived with one match key, oldest first (an intrusive list: no
// allocation per message on the receive path).
struct MessageFifo {
  Message* head = nullptr;
  Message* tail = nullptr;
};

struct MatchKey {
  std::uint32_t comm;
  int src;
  Tag tag;
  bool operator==(const MatchKey&) const = default;
};
struct MatchKeyHash {
  std::size_t operator()(const MatchKey& k) const noexcept {
    std::uint64_t h = (std::uint64_t(k.comm) << 32) ^ std::uint64_t(std::uint32_t(k.src));
    h ^= std::uint64_t(k.tag) * 0x9E3779B97F4A7C15ull;
    return std::size_t(h ^ (h >> 29));
  }
};

// Virtual time: what each node did, in order, for the simulator. Every call appends its
// operation before it blocks, so the simulator can run while the nodes do (simulator.cpp).
struct SendRecord {
  int dst = 0;
  std::uint64_t items = 0;
  std::uint64_t bytes = 0;
  Tag tag = 0;
  std::uint32_t comm = 0;
};
struct OpRecord {
  enum class Kind : std::uint8_t {
    send, recv, sendrecv, compute,  // blocking
    isend, irecv,                   // post a request
    wait,                           // wait for every request of a list
    wait_any, test,                 // queries: their answers come from the simulator
  };
  Kind kind = Kind::compute;
  std::uint64_t send_index = 0;  // send, sendrecv, isend: index into this node's sends
  // recv, sendrecv, irecv: what the receive matches (the k-th receive a node posts for
  // (comm, source, tag) takes the k-th message the source sent it with that comm and tag)
  std::uint32_t recv_comm = 0;
  int recv_src = -1;             // world rank
  Tag recv_tag = 0;
  std::uint32_t request = 0;     // isend, irecv: the request posted; test: the one tested
  std::uint32_t list_begin = 0;  // wait, wait_any: requests[list_begin, +list_size) of
  std::uint32_t list_size = 0;   //   NodeLog::request_lists
  Picos duration = 0;            // compute
  std::uint64_t work_items = 0;  // compute: items combined or rearranged
  Work work = Work::compute;     // compute: which kind of local work
};
struct NodeLog {
  std::vector<OpRecord> ops;
  std::vector<SendRecord> sends;
  std::vector<std::uint32_t> request_lists;
  // The answers the node got to its queries (wait_any, test), in order: the contention-
  // free replay (simulator.cpp) follows them.
  std::vector<std::int64_t> answers;
  // Real time only: what happened, measured.
  std::vector<MessageEvent> messages;
  std::vector<CombineEvent> combines;
  Picos finish = 0;
  void clear() {
    ops.clear();
    sends.clear();
    request_lists.clear();
    answers.clear();
    messages.clear();
    combines.clear();
    finish = 0;
  }
};

// A nonblocking transfer as its node sees it (Request is a handle to one). Kept in a
// deque so its address stays put while the node posts more: real-clock transfer threads
// write `done` and `event` of isends in flight.
struct RequestState {
  bool send = false;
  bool retired = false;            // completed by wait, wait_any or test (handles are null)
  int mpi = -1;                    // the MPI transport: the transfer's handle (mpi_test)
  std::uint32_t comm = 0;
  int peer = 0;                    // comm rank
  int peer_world = 0;
  Tag tag = 0;
  // irecv: where the message goes; filled once it has been copied there.
  void* buffer = nullptr;
  std::size_t capacity = 0;
  std::size_t item_size = 1;
  bool filled = false;
  std::size_t received = 0;        // bytes
  std::string error;               // irecv: the message did not fit (reported at completion)
  // isend: the caller's buffer and a hash of it at posting, checked at completion.
  const void* send_buffer = nullptr;
  std::size_t send_bytes = 0;
  std::uint64_t send_hash = 0;
  // Real clock isend: the transfer thread sets done when the message has been delivered.
  std::atomic<bool> done{false};
  MessageEvent event;
};

// Thrown by the simulator when the logs cannot be scheduled: rendezvous sends whose
// receives are never posted.
struct ScheduleDeadlock : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown inside a node when the run is being ended (another node threw, a deadlock).
// Not a std::exception, so user code catching std::exception does not swallow it.
struct RunAborted {};

struct MpiChannels;  // mpi_network.cpp

// Shared state of one group of nodes. Created by the machine (world) or by split.
struct CommGroup {
  std::uint32_t id = 0;
  std::vector<int> world;             // comm rank -> world rank
  std::unordered_map<int, int> rank_of;  // world rank -> comm rank
  MachineImpl* machine = nullptr;
  std::shared_ptr<MpiChannels> mpi;   // the MPI transport's communicators
  // Whether the group is the whole machine, rank r on node r; else a hash of `world`
  // (selection's key for the group, computed once).
  bool whole = false;
  std::uint64_t world_hash = 0;
  // Members that run in this process (all but on a spread machine): the collective call
  // signatures are compared among them.
  int local_members = 0;
  void describe_members();  // sets whole and world_hash from world

  // Control plane: splits and collective signatures, agreed through shared memory.
  struct SplitCall {
    std::vector<std::pair<int, int>> color_key;  // per comm rank
    std::vector<bool> arrived;
    int arrivals = 0;
    int departures = 0;
    bool ready = false;
    std::vector<std::shared_ptr<CommGroup>> result;  // per comm rank (null: no group)
    std::vector<int> new_rank;
  };
  struct SignatureCall {
    CallSignature sig;
    int first_rank = 0;
    int seen = 0;
  };
  std::mutex control_mutex;
  std::map<std::uint64_t, SplitCall> splits;
  std::map<std::uint64_t, SignatureCall> signatures;
};

// What a blocked node waits for, for the deadlock report.
struct WaitDescription {
  const char* operation = "";
  int peer = -1;
  int peer_world = -1;
  Tag tag = 0;
  std::uint32_t comm = 0;
};

struct alignas(64) NodeState {
  int rank = 0;  // world rank
  MachineImpl* machine = nullptr;

  // Mailbox: any thread enqueues, only the owner dequeues.
  moodycamel::ConcurrentQueue<Message*> incoming;
  std::unordered_map<MatchKey, MessageFifo, MatchKeyHash> unexpected;
  // Threads engine: where a blocked node sleeps. The executor spins before it sleeps, and
  // only while the awake nodes do not outnumber the cores (executor_threads.cpp), so the
  // semaphore itself does not spin. Unused by the fibers engine.
  moodycamel::LightweightSemaphore wake{0, 0};
  moodycamel::LightweightSemaphore start{0, 64};

  // Deadlock detection: 0 when running, activity stamp + 1 while blocked.
  std::atomic<std::uint64_t> blocked_stamp{0};
  std::atomic<std::uint64_t> parks{0};  // times this node parked in this machine's life
  std::uint64_t parks_at_nudge = 0;     // controller only: `parks` at its last nudge
  std::atomic<bool> finished{true};
  std::mutex wait_mutex;
  WaitDescription waiting;  // guarded by wait_mutex

  std::uint64_t sends = 0;  // sends made in this run
  // Nonblocking requests of this run (ids are indices), and the irecvs waiting for their
  // message per match key, oldest first (a message that arrives goes to the oldest).
  std::deque<RequestState> requests;
  std::unordered_map<MatchKey, std::deque<std::uint32_t>, MatchKeyHash> posted;
  std::size_t open_requests = 0;  // posted, not yet retired
  // Virtual time: the log is appended under log_mutex, since the simulator may read it
  // while the node runs. A query's answer (wait_any, test) is published here.
  std::mutex log_mutex;
  std::atomic<bool> answered{false};
  std::int64_t answer = 0;  // written by the simulator before `answered`
  std::vector<std::uint64_t> collective_seq;  // per comm id: collective calls made
  std::vector<std::uint64_t> split_seq;       // per comm id: splits made
  std::chrono::steady_clock::time_point run_start;
  NodeLog log;
  std::uint64_t perturb_state = 0;  // splitmix64 state of the schedule perturbation

  // Schedule perturbation: a random pause before a runtime call (no-op when off).
  void perturb();

  // Takes everything in `incoming`: a message for which an irecv is posted is copied into
  // its buffer, the others go to `unexpected`. Returns how many it took.
  std::size_t drain();
  // Appends an operation to the log (virtual time) and lets the simulator know when it
  // was waiting for this node's next operation.
  void log_op(const OpRecord& op, std::span<const std::uint32_t> requests = {});
  // Finds and removes the first message matching key; nullptr if none has arrived.
  Message* take(const MatchKey& key);
  // Blocks until a message matching key arrives (deadlock-aware, abort-aware).
  Message* wait_for(const MatchKey& key, const WaitDescription& what);
  // Whether this node is blocked waiting for a message of (comm, world source, tag): a
  // hint, as it may wake at any moment.
  bool waits_for(std::uint32_t comm, int src, Tag tag);
  // Blocks until ready() is true; ready is re-evaluated after each wake-up.
  template <class Ready>
  void block_until(Ready ready, const WaitDescription& what);
  void discard_all();
  Picos now_real() const;
};

struct ErrorRecord {
  int node = -1;
  std::string what;
};

// Virtual time: the discrete-event pass over the nodes' logs (simulator.cpp). It may be
// advanced during the run (by nodes waiting for a query's answer, holding
// MachineImpl::sim_mutex) and is completed after it.
struct Simulation;
struct SimulationDeleter {
  void operator()(Simulation* s) const;
};
using SimulationPtr = std::unique_ptr<Simulation, SimulationDeleter>;
SimulationPtr start_simulation(MachineImpl& m);
// Advances as far as the logs allow; returns the node whose next operation it waits for,
// or -1 when the pass is complete. Throws ScheduleDeadlock when nodes wait for what can
// never happen, std::overflow_error when a time does not fit.
int advance_simulation(Simulation& s);
// After the run: completes the pass (and the contention-free replay when links mattered)
// and hands over its statistics and trace.
void finish_simulation(MachineImpl& m, Simulation& s, Stats& stats, Trace& trace);

struct MachineImpl {
  MachineConfig config;
  std::shared_ptr<const Topology> topology;
  CostUnits units;
  int p = 0;
  // Whether messages hold links: not under direct routing, and not on a fully connected
  // network, where every pair has links of its own that no other message can want (the
  // times are the same; full:P just has P(P-1) links to keep no state for).
  bool uses_links = false;
  // Per-class link rates (Model::link_rates) resolved on the topology.
  LinkTimes links;
  std::vector<std::unique_ptr<NodeState>> nodes;
  std::unique_ptr<Executor> executor;  // made last, destroyed first
  Engine engine = Engine::threads;     // the one in use (never automatic)

  // One run at a time.
  const std::function<void(Node&)>* fn = nullptr;
  std::shared_ptr<CommGroup> world;
  std::atomic<int> running{0};
  std::atomic<bool> abort{false};
  std::atomic<std::uint64_t> activity{0};
  moodycamel::LightweightSemaphore controller{0, 0};
  std::mutex error_mutex;
  std::vector<ErrorRecord> errors;  // guarded by error_mutex
  std::mutex comm_mutex;
  std::uint32_t next_comm_id = 1;   // guarded by comm_mutex
  std::chrono::steady_clock::time_point run_start;
  std::uint64_t runs = 0;              // runs started on this machine
  bool woke_stale = false;             // controller only: the last look woke stale waiters

  struct RealNetwork* real = nullptr;  // real time only
  struct MpiNetwork* mpi = nullptr;    // the MPI transport only
  struct SpreadNetwork* spread = nullptr;  // spread over MPI processes only

  // The nodes this process runs: [lo, hi) (all of them but on a spread machine, where the
  // others' entries of `nodes` are null) and, on process 0 of a spread machine after a run,
  // the other processes' nodes' logs (by node; the simulator reads them through log_of).
  int lo = 0, hi = 0;
  std::vector<NodeLog> remote_logs;
  bool hosts(int r) const { return r >= lo && r < hi; }
  std::span<std::unique_ptr<NodeState>> local() {
    return {nodes.data() + lo, static_cast<std::size_t>(hi - lo)};
  }
  std::span<const std::unique_ptr<NodeState>> local() const {
    return {nodes.data() + lo, static_cast<std::size_t>(hi - lo)};
  }
  const NodeLog& log_of(int r) const { return hosts(r) ? nodes[r]->log : remote_logs[r]; }
  // More threads want the cores than there are (spread: processes on this host): the
  // executors then sleep at once instead of spinning.
  bool oversubscribed = false;

  // Virtual time: this run's simulation, made at the first query (or after the run), and
  // the node whose next operation it waits for (-1: none). Nodes waiting for an answer are
  // listed in `resolvers` so that the node it waits for can wake them when it records one.
  std::mutex sim_mutex;
  SimulationPtr sim;                   // guarded by sim_mutex
  std::atomic<int> sim_waits_for{-1};
  std::mutex resolvers_mutex;
  std::vector<int> resolvers;          // guarded by resolvers_mutex
  void wake_resolvers();

  explicit MachineImpl(MachineConfig cfg);
  ~MachineImpl();
  // Runs the current function on node `rank` and records how it ended (called by the
  // executor on the node's thread or fiber).
  void run_node(int rank);
  RunResult run(const std::function<void(Node&)>& fn);
  // The MPI transport's run (`world` made by run).
  RunResult run_mpi(const std::function<void(Node&)>& fn);
  // A failed run: the machine is reset and `err` thrown.
  [[noreturn]] void fail_run(const RunError& err);
  void record_error(int node, std::string what);
  // The simulation found that the nodes wait for what can never happen: the run ends with
  // a deadlock report (kind deadlock) carrying `what`.
  void record_deadlock(std::string what);
  std::string sim_deadlock;  // guarded by error_mutex
  void abort_run();
  bool deadlocked(std::vector<BlockedWait>* report);
  // Whether every unfinished node of this process is blocked, confirmed: suspected at activity
  // `a` on an earlier look (`suspect`, ~0 when none; updated here) and every blocked node has
  // looked again since. The controller's look for a deadlock, on one process or many.
  bool blocked_confirmed(std::uint64_t a, std::uint64_t& suspect);
  // What this process's unfinished nodes wait for.
  std::vector<BlockedWait> blocked_waits();
  // Controller: wakes every unfinished node without counting it as activity, and whether
  // each has parked again since.
  void nudge_blocked_nodes();
  bool every_node_looked_again() const;
  void reset_after_run();
  std::uint32_t allocate_comm_id();
  // Signals that a node's wait may be over.
  void wake(NodeState& n) {
    activity.fetch_add(1, std::memory_order_seq_cst);
    executor->unpark(n);
  }
};

inline bool NodeState::waits_for(std::uint32_t comm, int src, Tag tag) {
  if (blocked_stamp.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(wait_mutex);
  return waiting.comm == comm && waiting.peer_world == src && waiting.tag == tag;
}

template <class Ready>
void NodeState::block_until(Ready ready, const WaitDescription& what) {
  if (ready()) return;
  {
    std::lock_guard lock(wait_mutex);
    waiting = what;
  }
  for (;;) {
    if (machine->abort.load(std::memory_order_acquire)) throw RunAborted{};
    std::uint64_t stamp = machine->activity.load(std::memory_order_seq_cst);
    if (ready()) break;
    blocked_stamp.store(stamp + 1, std::memory_order_seq_cst);
    parks.fetch_add(1, std::memory_order_seq_cst);
    machine->executor->park(*this, 100'000);  // threads: re-check abort every 100 ms
    blocked_stamp.store(0, std::memory_order_seq_cst);
    if (ready()) break;
  }
}

// The node whose thread is calling, or null outside node threads (machine.cpp). constinit:
// initialised without code, so no other file calls a guard for it on each access. (GCC 12
// under -fsanitize=undefined tests the address of a guarded access against null with the
// flags of the guard's check instead: every fiber's first store after a switch was reported
// as a store to a null pointer.)
extern constinit thread_local NodeState* current_node;

// Copies a message into the buffer of the irecv it matched and frees it (machine.cpp).
void fill_request(RequestState& r, Message* m);
// At the end of a node's function: a UsageError when requests were never completed.
void check_requests_completed(NodeState& n);

// A failed run's errors: the node that threw first and what it threw, and how many others
// did; every unfinished node blocked with what it waits for; no progress for `seconds`.
std::string threw_report(int node, const std::string& what, std::size_t throwers);
RunError deadlock_error(std::vector<BlockedWait> waits);
RunError watchdog_error(double seconds);

// Builds the error text "node 3 (rank 1 of comm 2): <what>".
std::string node_prefix(const NodeState& n, const CommGroup* g, int rank);



// The MPI transport (mpi_network.cpp; MachineConfig::transport): one node per process of
// MPI_COMM_WORLD, messages by MPI. Built with VMC_HAVE_MPI; without it making the network
// throws UsageError saying so (mpi_network_none.cpp).
struct MpiNetwork;
struct MpiChannels;  // a group's communicators: its users' messages, its collective calls'
// MPI_COMM_WORLD's size and this process's rank in it (starting MPI when the program has not),
// and those of the communicator a machine runs on (MachineConfig::mpi_communicator).
int mpi_processes();
int mpi_process_rank();
int mpi_processes(const MachineConfig& c);
int mpi_process_rank(const MachineConfig& c);
MpiNetwork* make_mpi_network(MachineImpl& m);
void destroy_mpi_network(MpiNetwork* net) noexcept;
// A run: its world's channels, after every process arrived (its time starts then).
std::shared_ptr<MpiChannels> mpi_begin_run(MpiNetwork& net);
// Blocks until ready(), which is re-evaluated as MPI makes progress. Throws RunAborted when
// another process's notice says the run failed, UsageError when nothing happened within the
// machine's watchdog time.
void mpi_block(MpiNetwork& net, const std::function<bool()>& ready, const WaitDescription& what);
// Nonblocking transfers of bytes to or from a rank of the group (its rank in the group's
// communicators too: a split ranks its members as MPI_Comm_split does); a handle for
// mpi_test. `collective`: on the group's channel for collective calls.
int mpi_post_send(MpiNetwork& net, const MpiChannels& ch, bool collective, int tag,
                  const void* data, std::size_t bytes, int dest);
int mpi_post_recv(MpiNetwork& net, const MpiChannels& ch, bool collective, int tag, void* data,
                  std::size_t capacity, int source);
struct MpiDone {
  bool done = false;
  std::size_t bytes = 0;   // received
  bool truncated = false;  // the message was larger than the receive buffer
};
// Whether the transfer completed (its handle is then released).
MpiDone mpi_test(MpiNetwork& net, int handle);
// Every member of the group gets rank 0's `mine` (collective call signatures).
std::string mpi_agree(MpiNetwork& net, const MpiChannels& ch, const std::string& mine,
                      const WaitDescription& what);
// Split: the new group's channels (null for a negative colour), and its members' world ranks
// by new rank.
std::shared_ptr<MpiChannels> mpi_split(MpiNetwork& net, const MpiChannels& parent, int color,
                                       int key, int world_rank, std::vector<int>& members,
                                       const WaitDescription& what);
// This process's node failed on its own: every other process is told, with its report.
void mpi_notify_failure(MpiNetwork& net, const std::string& report);
// After the node's function: what every process agrees on.
struct MpiRunEnd {
  std::vector<double> node_seconds;  // by node: its function's wall time
  std::vector<int> origins;          // nodes that failed on their own, in rank order
  std::vector<std::string> reports;  // ... and their reports
};
MpiRunEnd mpi_end_run(MpiNetwork& net);

// Real time: link-ownership tokens held for real (real_network.cpp).
struct RealNetwork;
RealNetwork* make_real_network(const MachineImpl& m);
void destroy_real_network(RealNetwork* net);
// Sends msg from node `src` to `dst` holding the ports and links it needs for real, waits
// the modelled time scaled, and delivers; records the event in the sender's log.
// `out`: where the event goes (an isend's request); null: the sender's log.
void real_transfer(MachineImpl& m, NodeState& src, int dst, Message* msg,
                   MessageEvent* out = nullptr);
// An isend: the same transfer run by a transfer thread beside the node, which then sets
// req.event and req.done and wakes the node.
void real_isend(MachineImpl& m, NodeState& src, int dst, Message* msg, RequestState& req);
// Whether some transfer is moving data (holding its tokens through its modelled time):
// nodes waiting for it are not deadlocked.
bool real_transfers_moving(RealNetwork* net);
// Waits until no transfer thread works for this run (after an abort, before a reset).
void real_quiesce(RealNetwork* net);
void real_compute(MachineImpl& m, NodeState& node, Picos duration, std::uint64_t items,
                  Work kind);
// Rendezvous: the receiver has posted a receive for (comm, world source, tag).
void real_post_receive(MachineImpl& m, NodeState& receiver, std::uint32_t comm, int src,
                       Tag tag);
// Wakes every real wait (token waits, sleeps) so that it sees the run is aborted.
void real_abort(RealNetwork* net);
// Per link: most messages that held it at once in this run.
std::vector<int> real_link_peak(RealNetwork* net);
// Between runs: no tokens held (an aborted run may have left some), no receives posted.
void real_reset(RealNetwork* net);

// A machine spread over MPI processes (spread_network.cpp; MachineConfig::transport =
// spread). Built with VMC_HAVE_MPI; without it making the network throws UsageError.
struct SpreadNetwork;
// Makes the network and sets m.lo and m.hi (this process's block) and m.oversubscribed.
SpreadNetwork* make_spread_network(MachineImpl& m);
// Starts its progress thread, which delivers arrived messages to m's nodes and wakes them
// through m's executor: call it once both exist, so that the thread's start orders every
// write that made them before its first read of them.
void spread_start(SpreadNetwork& net);
void destroy_spread_network(SpreadNetwork* net) noexcept;
// MPI processes on this host (that share its cores).
int spread_processes_here(const SpreadNetwork& net);
// Every process starts the run together (a bounded wait).
void spread_begin_run(SpreadNetwork& net);
// Sends msg to node msg_dst of another process: its payload, when it has one, was made with
// room for spread_trailer_bytes() after its bytes. Takes msg (it is released once queued).
void spread_send(SpreadNetwork& net, Message* msg, int dst);
std::size_t spread_trailer_bytes();
// Whether `mine` holds in every process (an MPI reduction).
bool spread_everywhere(SpreadNetwork& net, bool mine);
bool mpi_everywhere(MpiNetwork& net, bool mine);
// The controller's side of a run, from the release of this process's nodes to its end: the
// run's statistics (and, on process 0, its trace), or RunError, the machine reset either way.
void spread_run(SpreadNetwork& net, Stats& stats, Trace& trace);

}  // namespace vmc::detail
