// What the transports whose nodes are threads or fibers of this process share (the local
// machine on the virtual clock and on the real clock, and the spread machine): the nodes and
// their runs (LocalNodes), messages into the nodes' mailboxes, receives matched there in the
// order they were posted, waits that park the node, and groups split and collective calls
// compared through shared memory. A clock adds how a message is sent and timed, what a
// receive announces, and how the run's statistics are made. Internal.
#pragma once

#include "runtime/local_nodes.hpp"
#include "runtime/transport.hpp"

namespace vmc::detail {

class MailboxTransport : public Transport {
 public:
  MailboxTransport(MachineImpl& m, const NodePlacement& where);

  void run(CommGroup& world, const NodeBody& body, Stats& stats, Trace& trace) override;
  bool hosts(int r) const override { return nodes_.hosts(r); }
  bool everywhere(bool mine) override { return mine; }

  Received recv(NodeState& self, const Incoming& in) override;
  void irecv(NodeState& self, std::uint32_t id, const Incoming& in) override;
  bool arrived(NodeState& self, RequestState& r) override;
  void completed(NodeState& self, RequestState& r) override;
  void block(NodeState& self, FunctionRef<bool()> ready, const WaitDescription& what) override;
  void pause(NodeState& self, double seconds) override;
  SplitResult split(NodeState& self, CommGroup& g, int rank, std::uint64_t seq, int color,
                    int key) override;
  SplitResult create_group(NodeState& self, CommGroup& g, std::span<const int> members,
                           int index, std::uint64_t seq, std::int64_t tag) override;
  std::string compare_call(NodeState& self, CommGroup& g, int rank, std::uint64_t seq,
                           const CallSignature& mine, CompareCall compare) override;

 protected:
  // --- what a clock adds -------------------------------------------------------------------
  // A receive (recv, sendrecv; irecv with its request id) is posted by self, before it waits
  // for its message.
  virtual void receiving(NodeState& self, const Incoming& in, OpRecord::Kind kind,
                         std::uint32_t request) = 0;
  // Whether an isend's transfer has ended.
  virtual bool sent(const RequestState& r) const = 0;
  // After every node returned: the run's statistics and trace (or fail the run).
  virtual void measure(Stats& stats, Trace& trace) = 0;

  // --- helpers for the clocks ----------------------------------------------------------------
  // A message from self, numbered among its sends, without its bytes.
  static Message* new_message(NodeState& self, const Outgoing& out);
  // Into node dst's mailbox (a node of this process).
  void deliver(Message* msg, int dst) {
    NodeState& target = *nodes_.nodes[dst];
    target.incoming.enqueue(msg);
    nodes_.wake(target);
  }
  // Waits for the message `in` matches and copies it into the buffer.
  Received receive(NodeState& self, const Incoming& in);
  // Copies message m (taken from the mailbox) into `in`'s buffer, or says why it cannot; frees
  // it either way.
  static Received take(Message* m, const Incoming& in);
  // Failures (MachineConfig::failures): a receive from node src, which stopped without
  // sending its message; why, in words, for the call that needed it (a receive from src, a
  // receive from any source, a synchronous send to src, a constructor that src never
  // reached); and what the run's failures did, after the run.
  Received source_failed(int src) const;
  std::string failed_problem(int src, Needed call) const override;
  FailureReport failure_report() const;
  // A constructor's wait for the other members (split): until ready(), or the node that
  // never comes, when the clock knows one has stopped (the virtual clock); -1: ready.
  virtual int wait_meeting(NodeState& self, FunctionRef<bool()> ready,
                           const WaitDescription& what) {
    nodes_.block_until(self, ready, what);
    return -1;
  }
  // Member self of g waits in the run for the others to come to a collective call whose
  // members' calls differ (compare_call): the virtual clock logs a meeting of the group, so
  // that its pass goes on without this node's next operation (a member still to come may
  // ask it the time). The run fails once they have come; nothing of it is measured.
  virtual void awaits_members(NodeState&, const CommGroup&) {}

  MachineImpl& machine_;
  LocalNodes nodes_;

 private:
  // compare_call's slow path, once a member's call differs from the first member's: under
  // the group's lock, member `rank`'s call is noted; true when it was the last to come (the
  // report is made then). Outside the lock, the member waits for the others (unless it came
  // last), then throws the report or waits for the run's end (mailbox_transport.cpp).
  bool note_difference(CommGroup& g, CommGroup::SignatureCall& call, int rank,
                       const CallSignature& mine);
  [[noreturn]] void calls_differ(NodeState& self, CommGroup& g, int rank, std::uint64_t seq,
                                 DifferingCalls& d, bool completes);
};

}  // namespace vmc::detail
