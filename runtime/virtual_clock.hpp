// The local machine on the virtual clock (MachineConfig::transport local, clock virtual): nodes
// as threads or fibers with mailboxes (MailboxTransport) that move their data at once and
// append what they did to their logs; the discrete-event pass over the logs (simulator.cpp)
// makes the times, after the run, or during it for a query whose answer is a time (wait_any,
// test). A large message may be lent instead of copied (loan.hpp). The spread machine is this
// transport with the nodes of other processes behind MPI (spread_transport.cpp). Internal.
#pragma once

#include "runtime/mailbox_transport.hpp"

namespace vmc::detail {

class VirtualClock : public MailboxTransport {
 public:
  VirtualClock(MachineImpl& m, const NodePlacement& where) : MailboxTransport(m, where) {
    nodes_.idle_work = [this] { return advance_while_idle(); };
    nodes_.node_time = [this](NodeState& self) {
      return now(self, WaitDescription{"stopping (a failure)"});
    };
    nodes_.stopping = [this](NodeState& self) { stop(self); };
  }

  const char* unsupported(Call) const override { return nullptr; }
  void send(NodeState& self, const Outgoing& out) override;
  Received recv(NodeState& self, const Incoming& in) override;
  Received sendrecv(NodeState& self, const Outgoing& out, const Incoming& in) override;
  void isend(NodeState& self, std::uint32_t id, const Outgoing& out) override;
  void irecv(NodeState& self, std::uint32_t id, const Incoming& in) override;
  bool arrived(NodeState& self, RequestState& r) override;
  void completed(NodeState& self, RequestState& r) override;
  void withdrawn(NodeState& self, RequestState& r) noexcept override;
  void block(NodeState& self, FunctionRef<bool()> ready, const WaitDescription& what) override;
  std::vector<std::int64_t> test_list(NodeState& self, std::span<const std::uint32_t> ids,
                                      bool all, const WaitDescription& what) override;
  Found probe(NodeState& self, const Incoming& in, bool block,
              const WaitDescription& what) override;
  bool match(NodeState& self, std::uint32_t id, const Incoming& in, bool block,
             const WaitDescription& what) override;
  bool cancel(NodeState& self, std::uint32_t id, const WaitDescription& what) override;
  void waits(NodeState& self, std::span<const std::uint32_t> ids) override;
  std::size_t wait_any(NodeState& self, std::span<const std::uint32_t> ids,
                       const WaitDescription& what) override;
  bool test(NodeState& self, std::uint32_t id, const WaitDescription& what) override;
  Picos now(NodeState& self, const WaitDescription& what) override;
  void charge(NodeState& self, Picos duration, std::uint64_t items, Work kind) override;
  // The constructors log a sync operation on the group they synchronise (meet).
  SplitResult split(NodeState& self, CommGroup& g, int rank, std::uint64_t seq, int color,
                    int key) override;
  SplitResult create_group(NodeState& self, CommGroup& g, std::span<const int> members,
                           int index, std::uint64_t seq, std::int64_t tag) override;

 protected:
  void receiving(NodeState& self, const Incoming& in, OpRecord::Kind kind,
                 std::uint32_t request) override;
  bool sent(const RequestState&) const override { return true; }
  void measure(Stats& stats, Trace& trace) override;

  // A message to node out.dst, which this process does not run (a spread machine): `msg`,
  // without its bytes yet, goes there. Unreachable on one process.
  virtual void send_elsewhere(Message* msg, const Outgoing& out);

  // Posts a message from self; returns its send index, and writes into `record` (its send
  // operation's record, for log_op to append) what the log keeps of it. `lent`: lend the
  // buffer when that pays and say here which message took it (stays null when the bytes were
  // copied); `to_waiting_only`: lend only to a receiver already blocked waiting for it;
  // `lost_link`: set to the failed link that lost it, or -1 (MachineConfig::link_failures).
  std::uint64_t post(NodeState& self, const Outgoing& out, Message** lent, bool to_waiting_only,
                     OpRecord& record, int* lost_link = nullptr);
  // How a message whose route may cross a failed link goes (MachineConfig::link_failures):
  // when self reaches the send at or after the time of a link on its route, around the links
  // down then (`around`, the index of MachineImpl::down_index) where the routing allows it
  // and fail_routes asks for it, else lost on that link (`lost`, its index); both -1: its own
  // route. A reroute and a loss are noted for the report.
  struct SendRoute {
    int lost = -1;
    int around = -1;
  };
  SendRoute route_past_failures(NodeState& self, const Outgoing& out);
  // A communicator constructor: self meets the other members of g, at no cost in virtual
  // time (OpRecord::Kind::sync), logged before self waits for them in the run (a node that
  // waits there logging nothing would hold back the answers of the others' queries).
  void meet(NodeState& self, const CommGroup& g);
  // Appends an operation to self's log, and lets the simulation go on when it was waiting
  // for this node's next operation: `Then::drives`, the caller advances it right after (it
  // waits for the pass's answer: drive_until), so no one else is woken; otherwise self
  // advances it here (pass_goes_on). Returns its place in the log.
  enum class Then { goes_on, drives };
  std::size_t log_op(NodeState& self, const OpRecord& op,
                     std::span<const std::uint32_t> requests = {}, Then then = Then::goes_on);
  // The pass waited for the operation self just logged, and self goes on with its program:
  // if nodes wait for answers, self advances the pass if no one holds it, instead of waking
  // every one of them to do it (each a kernel wake-up on the threads engine, p of them per
  // operation); if someone holds it (who may have looked before the operation was logged),
  // or the pass failed, the waiting nodes look again.
  void pass_goes_on();
  // A line of output at this point of self, on the local machine with MachineConfig::on_output:
  // marked in its log as an operation is (log_op), so the pass reaches it in virtual-time order.
  bool mark_output(NodeState& self) override;
  // Every stream_every_ operations a node offers to advance the simulation (if no one else
  // is): the pass consumes the logs as the run goes, so they hold what it has not reached.
  // VMC_STREAM_EVERY=N overrides it (N = 1: at every operation, to test the streaming
  // pass; 0: never, the pass after the run, to measure it).
  std::uint32_t stream_every_ = stream_every();
  static std::uint32_t stream_every();
  // A node whose log holds more than kFarAhead * stream_every_ operations the pass has not
  // reached waits for the simulation's lock and advances it (backpressure).
  static constexpr std::uint32_t kFarAhead = 4;
  void stream(NodeState& self, bool far_ahead);
  // A fiber worker with nothing to run advances the simulation if no one else holds it
  // (LocalNodes::idle_work); whether the pass took anything.
  bool advance_while_idle();
  // The answer of a query self just logged, from the simulation (recorded in the log for the
  // replay: one value, or with `list`, answer_list's values).
  std::int64_t resolve(NodeState& self, const WaitDescription& what, bool list = false);
  // Failed queries in a row (NodeState::failed_last): after a test, test_list, iprobe or
  // improbe of self failed, as the pass counts failures; a test or test_list (`ids` its
  // requests, `answer` what the pass answered) may then be asked again and answered here.
  void query_failed(NodeState& self, const OpRecord& op, std::span<const std::uint32_t> ids,
                    std::span<const std::int64_t> answer);
  // Whether `op` on `ids` asks again the question whose answer self knows
  // (NodeState::repeatable); then answer_again logs it as known and returns that answer.
  bool asks_again(const NodeState& self, const OpRecord& op,
                  std::span<const std::uint32_t> ids) const;
  std::vector<std::int64_t> answer_again(NodeState& self, OpRecord op,
                                         std::span<const std::uint32_t> ids);
  // Blocks self until ready(), advancing the simulation meanwhile (self may be waiting for
  // what only the simulation can say).
  void drive_until(NodeState& self, FunctionRef<bool()> ready, const WaitDescription& what);

  // --- receives whose message the simulation names ------------------------------------------
  // A receive from any source or of any tag cannot take a message by itself: which one comes
  // first is a matter of model time. It is deferred: its operation is logged with `report`,
  // and the simulation publishes its choice (NodeState::decisions). So is every receive self
  // posts while an earlier deferred one has not been matched here yet, so that receives take
  // messages in the order they were posted (MPI's rule). Whether `in` is deferred (after
  // applying the choices published so far).
  bool defers(NodeState& self, const Incoming& in);
  // Takes the messages the published choices name, in order, into their receives.
  void apply_decisions(NodeState& self);
  // A deferred blocking receive (logged at log_index): waits for its message.
  Received take_deferred(NodeState& self, const Incoming& in, std::size_t log_index,
                         const WaitDescription& what);
  // Whether the simulation has said that self's synchronous send `index` found its receive
  // posted (taking the word).
  bool sync_acked(NodeState& self, std::uint64_t index);
  // Whether out's sender waits for that word: a synchronous send; under rendezvous with
  // failures, every send to another node (its receiver may stop before it posts the receive;
  // docs/model.md, "Failed nodes").
  bool told(const NodeState& self, const Outgoing& out) const {
    return out.synchronous ||
           (machine_.failing() && machine_.config.model.protocol == Protocol::rendezvous &&
            out.dst != self.rank);
  }
  // ... or that it failed, its receiver having stopped before a receive took the message:
  // that node (taking the word); -1: no such word.
  int sync_refused(NodeState& self, std::uint64_t index);
  // A member waiting for the others at a collective call whose calls differ: a meeting of g.
  void awaits_members(NodeState& self, const CommGroup& g) override { meet(self, g); }
  // A split's wait for the other members: with failures, also for the simulation's word that
  // one of them stopped before it came (MailboxTransport::wait_meeting).
  int wait_meeting(NodeState& self, FunctionRef<bool()> ready,
                   const WaitDescription& what) override;
  // Whether the simulation runs while the nodes do (queries answered, synchronous sends
  // waited for): not on a spread machine, whose pass runs after the run.
  virtual bool simulates_during_run() const { return true; }
  // Self stops (MachineConfig::failures): the simulation learns it from its log
  // (OpRecord::Kind::fail), and completes the receives that wait for a message from it.
  void stop(NodeState& self);
  // Writes into self's log entry what its receive took or found (for the replay).
  void record_match(NodeState& self, std::size_t log_index, int src, Tag tag);
};

}  // namespace vmc::detail
