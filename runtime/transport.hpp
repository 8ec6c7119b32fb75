// The transport interface: how a machine's nodes run and how their messages travel. Comm and
// Machine call it and know no transport; the configuration (MachineConfig::transport, clock)
// chooses one when the machine is made (runtime/transports.cpp, the only place that names
// them). The transports:
//
//   virtual_clock.cpp     local, virtual clock: nodes as threads or fibers with mailboxes,
//                         times from the discrete-event pass over their logs (simulator.cpp)
//   real_clock.cpp        local, real clock: the same nodes, link and port tokens held for
//                         real and delays slept, the wall clock measured
//   spread_transport.cpp  the virtual clock's machine spread over MPI processes
//   mpi_transport.cpp     one node per MPI process, messages by MPI, MPI_Wtime
//   no_mpi.cpp            the last two in a vmc built without MPI: making one says so
// The first three share mailbox_transport.hpp (and local_nodes.hpp under it).
//
// Division of work. Comm checks every call's arguments (ranks, tags, sizes, buffers that
// overlap a transfer in flight, a node sending to itself), keeps the node's table of
// nonblocking requests (ids, completion, the check that an isend's buffer did not change), and
// words every error with the node, the comm and the call; it then hands the transfer to the
// transport. The transport moves the bytes, decides when each call returns, and runs and ends
// the runs. A transport reports a problem with what arrived as text (Received::problem,
// RequestState::error, refuses, unsupported); Comm adds who and which call.
//
// What a new transport implements: every pure virtual function below (the others have a
// default that fits most), and one `make` function that the table in runtime/transports.cpp
// lists under its MachineConfig::transport (and a `check` of the configuration, if it refuses
// some). Its file is the only one that changes, besides that row and its line in
// runtime/CMakeLists.txt; Comm and Machine stay as they are. Nodes that are threads or
// fibers of this process with mailboxes get most of it from MailboxTransport; a transport that
// answers queries in virtual time (wait_any, test, and one day receives from any source) does
// it inside its calls, as the virtual clock does (a query to the discrete-event pass), and a
// pass that consumes the logs while the run goes lives inside its run().
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "runtime/node.hpp"

namespace vmc::detail {

// A callable passed down to be called during the call it is passed to (no allocation, no
// ownership): what a wait re-evaluates, how two collective calls compare.
template <class Signature>
class FunctionRef;
template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F&& f)  // NOLINT: implicit, like a function pointer
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<Args>(args)...);
        }) {}
  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

// A message about to leave node `self`, as Comm checked it.
struct Outgoing {
  const CommGroup& group;
  int dest = 0;  // comm rank
  int dst = 0;   // world rank
  Tag tag = 0;
  const void* data = nullptr;
  std::size_t bytes = 0;
  std::size_t items = 0;  // what beta is charged for
  const char* op = "";    // the call, for what a blocked node waits for
  bool synchronous = false;  // its transfer starts only once its receive is posted
  bool lent = false;  // SendMode::lent: the buffer stays in place until the request completes
};

// A receive posted by node `self`, as Comm checked it (or a probe: no buffer).
struct Incoming {
  const CommGroup& group;
  int source = 0;  // comm rank, or kAnySource
  int src = 0;     // world rank, or kAnySource
  Tag tag = 0;     // or kAnyTag
  void* data = nullptr;
  std::size_t capacity = 0;  // bytes
  std::size_t item_size = 1;
  const char* op = "";
};

// What a receive got: its bytes, or why the message could not be taken (the message was
// consumed either way).
struct Received {
  std::size_t bytes = 0;  // the message's (also when it has a problem)
  std::string problem;
  bool truncated = false;  // the problem: it does not fit the buffer
  int src = -1;  // what it took: the sender's world rank, the tag, the sender's item count
  Tag tag = 0;
  std::size_t items = 0;
  int failed = -1;  // no message: the source (world rank) failed before it sent one
  int lost_link = -1;  // the message was lost on this failed link (MachineConfig::link_failures)
};

// Whether a receive names neither its source nor its tag exactly.
inline bool wildcard(const Incoming& in) { return in.src == kAnySource || in.tag == kAnyTag; }

// The new group a member of a split joins (null: it joined none) and its rank there.
// failed >= 0: the call failed, as that node (world rank) stopped before it reached it
// (docs/model.md, "Failed nodes").
struct SplitResult {
  std::shared_ptr<CommGroup> group;
  int rank = -1;
  int failed = -1;
};

// What a call that failed because node k had stopped needed of it (Transport::failed_problem;
// docs/model.md, "Failed nodes"): its message (a receive from k), the first failure among
// its comm's members (a receive or probe from any source), a receive to take its message (a
// synchronous send to k), or k's arrival (a communicator constructor).
enum class Needed { receive, any_receive, send, constructor };

// Calls a transport may not offer (unsupported()).
enum class Call { split, create_group, wait_any, test, wildcard, probe, cancel };

class Transport {
 public:
  virtual ~Transport() = default;

  // --- runs --------------------------------------------------------------------------------
  // Runs `body` on every node this process runs and returns when the run has ended: its
  // statistics and trace in `stats` and `trace`, or RunError (a node threw, a deadlock, no
  // progress) with the transport ready for the next run either way. `world` is the run's
  // group of every node (id 0), which the transport completes with what it keeps of it
  // (CommGroup::channels, local_members).
  virtual void run(CommGroup& world, const NodeBody& body, Stats& stats, Trace& trace) = 0;
  // Whether node r runs in this process (Machine::hosts).
  virtual bool hosts(int r) const = 0;
  // Whether `mine` holds in every process of the machine (Machine::everywhere).
  virtual bool everywhere(bool mine) = 0;

  // --- what it cannot do ------------------------------------------------------------------
  // Why it cannot carry the message (it is too large for it), or "".
  virtual std::string refuses(const NodeState& self, const Outgoing& out) const;
  // Why it does not offer the call, or null.
  virtual const char* unsupported(Call call) const;
  // Why a call failed that needed node `failed`, which has stopped, in words ("node 2 has
  // failed (it stopped at 1 ms) and ..."; Comm adds who and which call).
  virtual std::string failed_problem(int failed, Needed call) const;

  // --- messages ------------------------------------------------------------------------------
  // A blocking send: returns when the transfer has ended (the buffer may then be reused).
  virtual void send(NodeState& self, const Outgoing& out) = 0;
  // A blocking receive: returns when the message has arrived in the buffer.
  virtual Received recv(NodeState& self, const Incoming& in) = 0;
  // Both at once (docs/model.md, item 3); the receive's outcome.
  virtual Received sendrecv(NodeState& self, const Outgoing& out, const Incoming& in) = 0;
  // Nonblocking: the transfer of request `id` of self (Comm made self.requests[id] and fills
  // it in); arrived() says when it has completed.
  virtual void isend(NodeState& self, std::uint32_t id, const Outgoing& out) = 0;
  virtual void irecv(NodeState& self, std::uint32_t id, const Incoming& in) = 0;
  // Whether the request's transfer has completed by now (a receive's bytes are in its buffer,
  // its `received` and `error` filled in). Never blocks.
  virtual bool arrived(NodeState& self, RequestState& r) = 0;
  // The request has been completed by a wait or a test (before Comm's checks of it).
  virtual void completed(NodeState& self, RequestState& r);
  // An isend withdrawn before completion (Comm::withdraw): it no longer reads its buffer.
  virtual void withdrawn(NodeState&, RequestState&) noexcept {}

  // --- waits ---------------------------------------------------------------------------------
  // Wait for progress: blocks self until ready() holds, re-evaluating it as things happen.
  // Bounded: throws RunAborted when the run is being ended, and gives up (an error) when
  // nothing happens for the machine's watchdog time. `what` is reported if self never wakes.
  virtual void block(NodeState& self, FunctionRef<bool()> ready, const WaitDescription& what) = 0;
  // A wait or wait_all for the requests `ids` begins (Comm then completes each in order).
  virtual void waits(NodeState& self, std::span<const std::uint32_t> ids);
  // wait_any: the index in ids of the request to complete, blocking until one can be (by
  // default the first that has arrived).
  virtual std::size_t wait_any(NodeState& self, std::span<const std::uint32_t> ids,
                               const WaitDescription& what);
  // test: whether request id may be completed now (by default: arrived()); `what` is reported
  // if self blocks for the answer and never wakes.
  virtual bool test(NodeState& self, std::uint32_t id, const WaitDescription& what);
  // test_list: for each request of ids, -1 when it may not be completed now, else a key
  // that orders completions (the earliest first). `all`: the caller needs every one (a
  // node whose queries keep failing moves on in model time; what failing means depends on
  // it). By default arrived() of each (key 0).
  virtual std::vector<std::int64_t> test_list(NodeState& self, std::span<const std::uint32_t> ids,
                                              bool all, const WaitDescription& what);
  // probe: the message a receive `in` (no buffer) would take now, without taking it; with
  // `block`, waits for one. match: the same, and binds it to request id (an irecv without a
  // buffer yet, RequestState::matched_only), whose `held` then holds it; whether it bound one.
  // cancel: withdraws receive request id if no message has matched it; whether it did.
  // Offered where unsupported() does not refuse Call::probe and Call::cancel.
  virtual Found probe(NodeState& self, const Incoming& in, bool block, const WaitDescription& what);
  virtual bool match(NodeState& self, std::uint32_t id, const Incoming& in, bool block,
                     const WaitDescription& what);
  virtual bool cancel(NodeState& self, std::uint32_t id, const WaitDescription& what);
  // now: self's time since the run began (by default the wall time since the run began,
  // divided by the machine's time_scale); `what` as for test.
  virtual Picos now(NodeState& self, const WaitDescription& what);
  // A line of output at this point of self (mark_output, machine.hpp): whether the pass will
  // hand it to MachineConfig::on_output. By default no.
  virtual bool mark_output(NodeState&) { return false; }

  // --- local work ----------------------------------------------------------------------------
  // Charges `duration` of local work (`items` items of `kind`) to self's time.
  virtual void charge(NodeState& self, Picos duration, std::uint64_t items, Work kind) = 0;
  // Schedule perturbation: self pauses for about `seconds` (0: lets others run).
  virtual void pause(NodeState& self, double seconds) = 0;

  // --- groups ----------------------------------------------------------------------------------
  // The seq-th split of group g, by member `rank` (self) with (color, key): members of equal
  // colour form a group ranked by (key, old rank); a negative colour joins none.
  virtual SplitResult split(NodeState& self, CommGroup& g, int rank, std::uint64_t seq,
                            int color, int key) = 0;
  // The seq-th create_group of group g with these members (comm ranks of g, in the new
  // group's order) and tag, by members[index] (self): the new group, made by the first
  // member to arrive and taken by the others.
  virtual SplitResult create_group(NodeState& self, CommGroup& g, std::span<const int> members,
                                   int index, std::uint64_t seq, std::int64_t tag);
  // Collective call `seq` of group g begins on member `rank` (self) with signature `mine`:
  // compare(first, first_rank) with the call of the member it is compared with, and return
  // what compare returned ("" when they agree, or when there is nothing to compare; a
  // transport that keeps the first call as a KeptSignature may find that they agree with
  // KeptSignature::agrees_with and skip compare). The transports of threads and fibers do
  // not return a difference: they wait for every local member's call and throw the report of
  // them all, CallsDifferError, the same whatever order the members came in
  // (MailboxTransport::compare_call).
  using CompareCall = FunctionRef<std::string(const CallSignature& first, int first_rank)>;
  virtual std::string compare_call(NodeState& self, CommGroup& g, int rank, std::uint64_t seq,
                                   const CallSignature& mine, CompareCall compare) = 0;
};

// Why two members' calls of one collective disagree, or empty when they agree: `mine` is the
// call of rank my_rank (node my_node), `first` that of rank first_rank (node first_node), the
// seq-th collective call of their comm (comm.cpp; Comm's compare, and the spread machine's
// between processes).
std::string compare_signatures(const CallSignature& mine, const CallSignature& first,
                               std::uint64_t seq, int my_rank, int my_node, int first_rank,
                               int first_node);

// Whether two members' calls agree in everything compare_signatures compares (as
// KeptSignature::agrees_with, out of line: for the slow path of calls that differ).
bool same_calls(const CallSignature& a, const CallSignature& b);

// "node 3", or "node 3 (rank 1 of comm 2)" off the world (comm 0): how an error names a
// member of a comm.
std::string member_name(int node, int rank, std::uint32_t comm);

// One call that members of a comm made, and those members (comm ranks, ascending).
struct MemberCalls {
  std::vector<int> ranks;
  CallSignature call;
};
// Why the members' calls of the seq-th collective call of a comm (members `world`, comm rank
// -> node) differ, given each group of members that made one call: the same text for the
// same calls, whatever the order they came in. `blamed` is set to the rank it blames: the
// lowest rank outside the call most members made (a tie: the group holding the lowest rank).
// comm.cpp; the mailbox transports' compare_call.
std::string calls_differ_report(std::uint64_t seq, std::span<const int> world,
                                std::vector<MemberCalls> groups, int& blamed);

}  // namespace vmc::detail
