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
  VirtualClock(MachineImpl& m, const NodePlacement& where) : MailboxTransport(m, where) {}

  void send(NodeState& self, const Outgoing& out) override;
  Received sendrecv(NodeState& self, const Outgoing& out, const Incoming& in) override;
  void isend(NodeState& self, std::uint32_t id, const Outgoing& out) override;
  void waits(NodeState& self, std::span<const std::uint32_t> ids) override;
  std::size_t wait_any(NodeState& self, std::span<const std::uint32_t> ids,
                       const WaitDescription& what) override;
  bool test(NodeState& self, std::uint32_t id, const WaitDescription& what) override;
  Picos now(NodeState& self, const WaitDescription& what) override;
  void charge(NodeState& self, Picos duration, std::uint64_t items, Work kind) override;

 protected:
  void receiving(NodeState& self, const Incoming& in, OpRecord::Kind kind,
                 std::uint32_t request) override;
  bool sent(const RequestState&) const override { return true; }
  void measure(Stats& stats, Trace& trace) override;

  // A message to node out.dst, which this process does not run (a spread machine): `msg`,
  // without its bytes yet, goes there. Unreachable on one process.
  virtual void send_elsewhere(Message* msg, const Outgoing& out);

  // Posts a message from self and records it; returns its send index. `lent`: lend the
  // buffer when that pays and say here which message took it (stays null when the bytes were
  // copied); `to_waiting_only`: lend only to a receiver already blocked waiting for it.
  std::uint64_t post(NodeState& self, const Outgoing& out, Message** lent, bool to_waiting_only);
  // Appends an operation to self's log, and lets the simulation know when it was waiting for
  // this node's next operation.
  void log_op(NodeState& self, const OpRecord& op, std::span<const std::uint32_t> requests = {});
  // The answer of a query self just logged, from the simulation.
  std::int64_t resolve(NodeState& self, const WaitDescription& what);
};

}  // namespace vmc::detail
