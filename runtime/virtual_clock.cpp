// The local machine on the virtual clock (virtual_clock.hpp).
//
// Calls move the data at once and append what they did to the node's log, each before it
// blocks, so that the discrete-event pass can run while the nodes do; the pass turns the logs
// into times after the run (simulator.cpp).
#include "runtime/virtual_clock.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace vmc::detail {

namespace {

// A receive's operation: what it matches.
OpRecord receive_op(OpRecord::Kind kind, const Incoming& in) {
  OpRecord op;
  op.kind = kind;
  op.recv_comm = in.group.id;
  op.recv_src = in.src;
  op.recv_tag = in.tag;
  return op;
}

}  // namespace

std::uint64_t VirtualClock::post(NodeState& self, const Outgoing& out, Message** lent,
                                 bool to_waiting_only) {
  Message* msg = new_message(self, out);
  const std::uint64_t index = msg->send_index;
  const bool data = machine_.config.data == Data::full;
  const bool here = nodes_.hosts(out.dst);
  if (!here) {
    // Its bytes go with it in send_elsewhere.
  } else if (lent != nullptr && out.bytes >= kLendBytes && data && out.dst != self.rank &&
             (!to_waiting_only ||
              nodes_.nodes[out.dst]->waits_for(out.group.id, self.rank, out.tag))) {
    lend(*msg, out.data);
    *lent = msg;
  } else if (out.bytes > 0 && data) {
    msg->payload = make_payload(out.bytes);
    std::memcpy(msg->payload.get(), out.data, out.bytes);
  }
  {
    std::lock_guard lock(self.log_mutex);
    self.log.sends.push_back({out.dst, out.items, out.bytes, out.tag, out.group.id});
  }
  if (here) {
    deliver(msg, out.dst);
  } else {
    send_elsewhere(msg, out);
  }
  return index;
}

void VirtualClock::send_elsewhere(Message* msg, const Outgoing& out) {
  release(msg);
  throw std::logic_error("vmc: a message to node " + std::to_string(out.dst) +
                         ", which no process runs");
}

void VirtualClock::log_op(NodeState& self, const OpRecord& op,
                          std::span<const std::uint32_t> requests) {
  bool wake = false;
  {
    std::lock_guard lock(self.log_mutex);
    self.log.ops.push_back(op);
    if (!requests.empty()) {
      self.log.ops.back().list_begin = static_cast<std::uint32_t>(self.log.request_lists.size());
      self.log.ops.back().list_size = static_cast<std::uint32_t>(requests.size());
      self.log.request_lists.insert(self.log.request_lists.end(), requests.begin(),
                                    requests.end());
    }
    // The simulation may be waiting for exactly this (see Simulator::fetch).
    if (nodes_.sim_waits_for.load(std::memory_order_acquire) == self.rank) {
      nodes_.sim_waits_for.store(-1, std::memory_order_release);
      wake = true;
    }
  }
  if (wake) nodes_.wake_resolvers();
}

void VirtualClock::send(NodeState& self, const Outgoing& out) {
  // A receiver already waiting copies straight from the caller's buffer, once; the loan is
  // taken back before the send returns, so the caller may reuse its buffer.
  LoanGuard loan(*nodes_.executor, self);
  OpRecord op;
  op.kind = OpRecord::Kind::send;
  op.send_index = post(self, out, &loan.message, true);
  log_op(self, op);
  loan.take_back();
}

Received VirtualClock::sendrecv(NodeState& self, const Outgoing& out, const Incoming& in) {
  // One operation with both directions, so the simulator starts them together. The send
  // buffer stays in place until the call returns: the partner may copy straight from it,
  // and the loan is taken back below, or on the way out of an error.
  LoanGuard loan(*nodes_.executor, self);
  OpRecord op = receive_op(OpRecord::Kind::sendrecv, in);
  op.send_index = post(self, out, &loan.message, false);
  log_op(self, op);
  Received got = receive(self, in);
  if (got.problem.empty()) loan.take_back();  // else the guard takes it back, as on an error
  return got;
}

void VirtualClock::isend(NodeState& self, std::uint32_t id, const Outgoing& out) {
  OpRecord op;
  op.kind = OpRecord::Kind::isend;
  op.send_index = post(self, out, nullptr, false);
  op.request = id;
  log_op(self, op);
}

void VirtualClock::receiving(NodeState& self, const Incoming& in, OpRecord::Kind kind,
                             std::uint32_t request) {
  // Recorded before it blocks, so the simulation can go on meanwhile.
  OpRecord op = receive_op(kind, in);
  if (kind == OpRecord::Kind::irecv) op.request = request;
  log_op(self, op);
}

void VirtualClock::waits(NodeState& self, std::span<const std::uint32_t> ids) {
  OpRecord op;
  op.kind = OpRecord::Kind::wait;
  log_op(self, op, ids);
}

std::size_t VirtualClock::wait_any(NodeState& self, std::span<const std::uint32_t> ids,
                                   const WaitDescription& what) {
  // Which completes first is a matter of model time: the simulation answers.
  OpRecord op;
  op.kind = OpRecord::Kind::wait_any;
  self.answered.store(false, std::memory_order_relaxed);
  log_op(self, op, ids);
  return static_cast<std::size_t>(resolve(self, what));
}

bool VirtualClock::test(NodeState& self, std::uint32_t id, const WaitDescription& what) {
  OpRecord op;
  op.kind = OpRecord::Kind::test;
  op.request = id;
  self.answered.store(false, std::memory_order_relaxed);
  log_op(self, op);
  return resolve(self, what) != 0;
}

Picos VirtualClock::now(NodeState& self, const WaitDescription& what) {
  // The node's time is the simulation's: a query, answered when the pass reaches it.
  OpRecord op;
  op.kind = OpRecord::Kind::now;
  self.answered.store(false, std::memory_order_relaxed);
  log_op(self, op);
  return resolve(self, what);
}

std::int64_t VirtualClock::resolve(NodeState& self, const WaitDescription& what) {
  LocalNodes& n = nodes_;
  {
    std::lock_guard lock(n.resolvers_mutex);
    n.resolvers.push_back(self.rank);
  }
  struct Leave {
    LocalNodes& n;
    int rank;
    ~Leave() {
      std::lock_guard lock(n.resolvers_mutex);
      n.resolvers.erase(std::find(n.resolvers.begin(), n.resolvers.end(), rank));
    }
  } leave{n, self.rank};
  n.block_until(
      self,
      [&] {
        if (self.answered.load(std::memory_order_acquire)) return true;
        if (machine_.abort.load(std::memory_order_acquire)) throw RunAborted{};
        try {
          std::lock_guard lock(n.sim_mutex);
          if (n.sim == nullptr) n.sim = start_simulation(n);
          advance_simulation(*n.sim);
        } catch (const ScheduleDeadlock& e) {
          n.record_deadlock(e.what());
          throw RunAborted{};
        } catch (const std::exception& e) {
          n.record_error(self.rank, e.what());
          n.abort_run();
          throw RunAborted{};
        }
        return self.answered.load(std::memory_order_acquire);
      },
      what);
  self.answered.store(false, std::memory_order_relaxed);
  {
    std::lock_guard lock(self.log_mutex);
    self.log.answers.push_back(self.answer);
  }
  return self.answer;
}

void VirtualClock::charge(NodeState& self, Picos duration, std::uint64_t items, Work kind) {
  if (duration == 0 && items == 0) return;
  OpRecord op;
  op.kind = OpRecord::Kind::compute;
  op.duration = duration;
  op.work_items = items;
  op.work = kind;
  log_op(self, op);
}

void VirtualClock::measure(Stats& stats, Trace& trace) {
  try {
    std::lock_guard lock(nodes_.sim_mutex);
    if (nodes_.sim == nullptr) nodes_.sim = start_simulation(nodes_);
    finish_simulation(nodes_, *nodes_.sim, stats, trace);
  } catch (const std::exception& e) {
    // A time that does not fit, or a rendezvous deadlock: the run ends with a report and
    // the machine stays usable.
    const bool deadlock = dynamic_cast<const ScheduleDeadlock*>(&e) != nullptr;
    nodes_.fail(RunError(deadlock ? RunError::Kind::deadlock : RunError::Kind::node_threw,
                         e.what(), -1, std::vector<BlockedWait>{}));
  }
  if (!machine_.config.trace) trace = Trace{};
}

std::unique_ptr<Transport> make_virtual_clock(MachineImpl& m) {
  return std::make_unique<VirtualClock>(m, NodePlacement{.lo = 0, .hi = m.p});
}

}  // namespace vmc::detail
