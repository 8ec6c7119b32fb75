// The local machine on the virtual clock (virtual_clock.hpp).
//
// Calls move the data at once and append what they did to the node's log, each before it
// blocks, so that the discrete-event pass can run while the nodes do; the pass turns the logs
// into times after the run (simulator.cpp).
#include "runtime/virtual_clock.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vmc::detail {

namespace {

// What a deferred receive waits for, for a deadlock report.
WaitDescription deferred_wait(const Incoming& in) {
  const bool any = in.source == kAnySource;
  const bool pair = std::string(in.op) == "sendrecv";
  return WaitDescription{any ? (pair ? "sendrecv from any rank" : "recv from any rank") : in.op,
                         in.source, in.src, in.tag, in.group.id};
}

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

VirtualClock::SendRoute VirtualClock::route_past_failures(NodeState& self, const Outgoing& out) {
  const int k = machine_.failed_link_on_route(self.rank, out.dst);
  if (k < 0) return {};
  // The sender's time is the simulation's answer: only a send whose route crosses a failed
  // link asks for it.
  const Picos t =
      now(self, WaitDescription{"a send over a failed link", out.dest, out.dst, out.tag,
                                out.group.id});
  const std::vector<LinkFailure>& links = machine_.config.link_failures;
  if (t < to_picos(links[static_cast<std::size_t>(k)].at)) return {};
  // Down on its route: another route, where the routing allows one that avoids every link
  // down at t (under direct routing a message has no other).
  if (machine_.config.fail_routes == FailRoutes::around &&
      machine_.config.model.routing != Routing::direct) {
    // Found here to know that one exists; the pass finds it again from the log's index.
    const int down = machine_.down_index(t);
    std::vector<LinkId> route;
    if (machine_.route_around_down(self.rank, out.dst, down, route)) {
      if (self.rerouted.empty()) self.rerouted.assign(links.size(), 0);
      ++self.rerouted[static_cast<std::size_t>(k)];
      return {.around = down};
    }
  }
  self.lost.push_back({self.rank, out.dst, out.tag, out.group.id, t, k});
  return {.lost = k};
}

std::uint64_t VirtualClock::post(NodeState& self, const Outgoing& out, Message** lent,
                                 bool to_waiting_only, OpRecord& record, int* lost_link) {
  SendRoute route;
  if (machine_.links_failing() && out.dst != self.rank) [[unlikely]] {
    route = route_past_failures(self, out);
    if (lost_link != nullptr) *lost_link = route.lost;
  }
  const int lost = route.lost;
  Message* msg = new_message(self, out);
  const std::uint64_t index = msg->send_index;
  const bool data = machine_.config.data == Data::full;
  const bool here = nodes_.hosts(out.dst);
  if (lost >= 0) {
    msg->lost_link = lost;  // a marker: no bytes go
  } else if (!here) {
    // Its bytes go with it in send_elsewhere.
  } else if (lent != nullptr && out.bytes >= (out.lent ? kLendIsendBytes : kLendBytes) && data &&
             out.dst != self.rank && (!to_waiting_only ||
              nodes_.nodes[out.dst]->waits_for(out.group.id, self.rank, out.tag))) {
    lend(*msg, out.data);
    *lent = msg;
  } else if (out.bytes > 0 && data) {
    msg->payload = make_payload(out.bytes);
    std::memcpy(msg->payload.get(), out.data, out.bytes);
  }
  record.dst = out.dst;
  record.around = route.around;
  record.items = out.items;
  record.bytes = out.bytes;
  record.tag = out.tag;
  record.comm = out.group.id;
  record.synchronous = out.synchronous;
  record.lost = lost >= 0;
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

std::size_t VirtualClock::log_op(NodeState& self, const OpRecord& op,
                                 std::span<const std::uint32_t> requests, Then then) {
  bool wake = false;
  bool advance = false;
  bool far_ahead = false;
  std::size_t index = 0;
  if (op.kind != OpRecord::Kind::now) {  // a clock read is nothing in between (the pass's rule)
    self.failed_before = self.failed_last;
    self.failed_last = false;
    self.repeatable.clear();
  }
  {
    std::lock_guard lock(self.log_mutex);
    index = self.log.ops.size();
    self.log.ops.push_back(op);
    self.log.ops.back().done_below = static_cast<std::uint32_t>(self.first_open);
    if (!requests.empty()) {
      self.log.ops.back().list_begin = self.log.request_lists.size();
      self.log.ops.back().list_size = static_cast<std::uint32_t>(requests.size());
      self.log.request_lists.append(requests.begin(), requests.end());
    }
    // The simulation may be waiting for exactly this (see Simulator::fetch).
    if (nodes_.sim_waits_for.load(std::memory_order_acquire) == self.rank) {
      nodes_.sim_waits_for.store(-1, std::memory_order_release);
      wake = true;
    }
    if (++self.since_advance == stream_every_) {
      self.since_advance = 0;
      advance = simulates_during_run();
      // The pass has not reached most of what this node logged: it is behind the nodes.
      far_ahead = self.log.ops.size() - self.log.ops.base() > kFarAhead * stream_every_;
    }
  }
  if (wake && then == Then::goes_on) pass_goes_on();
  if (advance) {
    stream(self, far_ahead);
  } else if (wake && nodes_.output_marks.load(std::memory_order_relaxed) != 0) {
    stream(self, false);  // lines of output wait for the pass, which waited for this node
  }
  return index;
}

bool VirtualClock::mark_output(NodeState& self) {
  if (!machine_.config.on_output || !simulates_during_run()) return false;
  bool wake = false;
  {
    std::lock_guard lock(self.log_mutex);
    self.log.output_marks.push_back(self.log.ops.size());
    nodes_.output_marks.fetch_add(1, std::memory_order_release);
    // The pass may be waiting for this node's next step: the line is one (as in log_op).
    if (nodes_.sim_waits_for.load(std::memory_order_acquire) == self.rank) {
      nodes_.sim_waits_for.store(-1, std::memory_order_release);
      wake = true;
    }
  }
  if (wake) pass_goes_on();
  // The line goes out when the pass reaches it: the pass advances now (made now if the run
  // has none yet), so that a line a rank writes before a long computation of its own is not
  // held back by it.
  stream(self, false);
  return true;
}

void VirtualClock::pass_goes_on() {
  {
    // No one waits for an answer: the pass goes on when streamed (stream), as before. A node
    // that starts waiting after this look advances the pass itself before it sleeps.
    std::lock_guard lock(nodes_.resolvers_mutex);
    if (nodes_.resolvers.empty()) return;
  }
  if (simulates_during_run()) {
    std::unique_lock lock(nodes_.sim_mutex, std::try_to_lock);
    if (lock.owns_lock() && nodes_.sim != nullptr) {
      stream_simulation(*nodes_.sim);
      if (!simulation_failed(*nodes_.sim)) return;
    }
  }
  nodes_.wake_a_resolver();
}

std::uint32_t VirtualClock::stream_every() {
  const char* env = std::getenv("VMC_STREAM_EVERY");
  if (env == nullptr) return 64;
  return static_cast<std::uint32_t>(std::strtoul(env, nullptr, 10));
}

void VirtualClock::stream(NodeState& self, bool far_ahead) {
  // Whoever holds the simulation is advancing it already: a node waits for it only when the
  // pass is far behind it (so that the logs hold what is in flight, not what the nodes
  // could run ahead while one core simulates). The pass never waits for a node: it stops
  // at the first operation not logged yet.
  {
    std::unique_lock lock(nodes_.sim_mutex, std::defer_lock);
    if (far_ahead) {
      lock.lock();
    } else if (!lock.try_lock()) {
      return;
    }
    if (nodes_.sim == nullptr) nodes_.sim = start_simulation(nodes_, true);
    stream_simulation(*nodes_.sim);
  }
  // A node far ahead of the pass is usually one that never blocks (a broadcast's root: its
  // sends return at once), and what holds the pass back is the nodes it sends to, waiting
  // behind it on its worker: it lets them run before it goes on, so that its messages are
  // taken as they come instead of piling up in their mailboxes for the whole run.
  if (far_ahead) nodes_.executor->yield(self);
}

bool VirtualClock::advance_while_idle() {
  // The pass runs on the idle worker, beside the nodes the other workers run, instead of
  // inside one of the nodes (stream). Only a pass the run started (a short run keeps its
  // pass for after the run), and never waiting for it.
  if (!simulates_during_run()) return false;
  std::unique_lock lock(nodes_.sim_mutex, std::try_to_lock);
  if (!lock.owns_lock() || nodes_.sim == nullptr) return false;
  return stream_simulation(*nodes_.sim);
}

void VirtualClock::send(NodeState& self, const Outgoing& out) {
  // A receiver already waiting copies straight from the caller's buffer, once; the loan is
  // taken back before the send returns, so the caller may reuse its buffer.
  LoanGuard loan(*nodes_.executor, self);
  OpRecord op;
  op.kind = OpRecord::Kind::send;
  int lost = -1;
  const std::uint64_t index = post(self, out, &loan.message, true, op, &lost);
  const bool waits = told(self, out) && simulates_during_run();
  log_op(self, op, {}, waits ? Then::drives : Then::goes_on);
  loan.take_back();
  if (waits) {
    // It returns once its receive is posted, in virtual time: wait for the simulation to
    // say so, so that the node goes on in the order virtual time gives (a synchronous send
    // whose receive is never posted is then a deadlock found while the nodes wait).
    ++self.sync_open;
    int refused = -1;
    drive_until(self,
                [&] {
                  refused = sync_refused(self, index);
                  return refused >= 0 || sync_acked(self, index);
                },
                WaitDescription{out.op, -1, out.dst, out.tag, out.group.id});
    --self.sync_open;
    self.sync_lost_link = lost;  // Comm::send_raw reports it, or the failure
    self.sync_failed_node = refused;
  }
}

bool VirtualClock::sync_acked(NodeState& self, std::uint64_t index) {
  std::lock_guard lock(self.decisions_mutex);
  auto it = std::find(self.sync_acks.begin(), self.sync_acks.end(), index);
  if (it == self.sync_acks.end()) return false;
  self.sync_acks.erase(it);
  return true;
}

int VirtualClock::sync_refused(NodeState& self, std::uint64_t index) {
  std::lock_guard lock(self.decisions_mutex);
  auto it = std::find_if(self.sync_failures.begin(), self.sync_failures.end(),
                         [&](const auto& f) { return f.first == index; });
  if (it == self.sync_failures.end()) return -1;
  const int failed = it->second;
  self.sync_failures.erase(it);
  return failed;
}

Received VirtualClock::sendrecv(NodeState& self, const Outgoing& out, const Incoming& in) {
  // One operation with both directions, so the simulator starts them together. The send
  // buffer stays in place until the call returns: the partner may copy straight from it,
  // and the loan is taken back below, or on the way out of an error.
  LoanGuard loan(*nodes_.executor, self);
  OpRecord op = receive_op(OpRecord::Kind::sendrecv, in);
  op.report = defers(self, in);
  const std::uint64_t send_index = post(self, out, &loan.message, false, op);
  const std::size_t index = log_op(self, op, {}, op.report ? Then::drives : Then::goes_on);
  Received got = op.report
                     ? take_deferred(self, in, index,
                                     deferred_wait(in))
                     : receive(self, in);
  if (got.problem.empty()) loan.take_back();  // else the guard takes it back, as on an error
  if (got.problem.empty() && told(self, out) && simulates_during_run()) {
    // Under rendezvous with failures its send waits for the word too: its receiver may have
    // stopped before it posted the receive (Comm::sendrecv_raw reports it).
    int refused = -1;
    ++self.sync_open;
    drive_until(self,
                [&] {
                  refused = sync_refused(self, send_index);
                  return refused >= 0 || sync_acked(self, send_index);
                },
                WaitDescription{out.op, out.dest, out.dst, out.tag, out.group.id});
    --self.sync_open;
    self.sync_failed_node = refused;
  }
  return got;
}

Received VirtualClock::recv(NodeState& self, const Incoming& in) {
  if (!defers(self, in)) return MailboxTransport::recv(self, in);
  OpRecord op = receive_op(OpRecord::Kind::recv, in);
  op.report = true;
  const std::size_t index = log_op(self, op, {}, Then::drives);
  return take_deferred(self, in, index,
                       deferred_wait(in));
}

void VirtualClock::irecv(NodeState& self, std::uint32_t id, const Incoming& in) {
  if (!defers(self, in)) {
    MailboxTransport::irecv(self, id, in);
    return;
  }
  OpRecord op = receive_op(OpRecord::Kind::irecv, in);
  op.request = id;
  op.report = true;
  RequestState& r = self.requests[id];
  r.log_index = log_op(self, op);
  r.deferred = true;
  ++self.deferred_open;
}

bool VirtualClock::defers(NodeState& self, const Incoming& in) {
  // Choices come for deferred receives only: none open, none to apply (the common case).
  if (self.deferred_open > 0) apply_decisions(self);
  return wildcard(in) || self.deferred_open > 0;
}

void VirtualClock::record_match(NodeState& self, std::size_t log_index, int src, Tag tag) {
  std::lock_guard lock(self.log_mutex);
  if (!self.log.ops.holds(log_index)) return;  // every pass is past it (streaming)
  OpRecord& op = self.log.ops[log_index];
  op.recv_src = src;
  op.recv_tag = tag;
  op.recorded = true;
}

void VirtualClock::apply_decisions(NodeState& self) {
  std::vector<Decision> chosen;
  {
    std::lock_guard lock(self.decisions_mutex);
    if (self.decisions.empty()) return;
    chosen.swap(self.decisions);
  }
  self.drain();
  for (const Decision& d : chosen) {
    if (d.failed >= 0) {
      // No message: the receive fails (a failed node it needed has stopped). The replay
      // completes it when that node stops (kFailedTag matches no message).
      std::size_t log_index = self.blocking_log_index;
      if (d.request < 0) {
        self.blocking_failed = d.failed;
        self.blocking_failed_any = d.any;
      } else {
        RequestState& r = self.requests[static_cast<std::size_t>(d.request)];
        log_index = r.log_index;
        r.deferred = false;
        r.failed = d.failed;
        r.failed_any = d.any;
        r.filled = true;
      }
      --self.deferred_open;
      record_match(self, log_index, d.failed, kFailedTag);
      continue;
    }
    // The message is here: it entered the mailbox before its send was logged.
    Message* m = self.take(MatchKey{d.comm, d.src, d.tag});
    if (m == nullptr) {
      throw std::logic_error("vmc: node " + std::to_string(self.rank) +
                             ": the simulation chose a message from node " +
                             std::to_string(d.src) + " " + tag_text(d.tag) +
                             " that its mailbox does not hold");
    }
    std::size_t log_index = self.blocking_log_index;
    if (d.request < 0) {
      self.blocking_match = m;
    } else {
      RequestState& r = self.requests[static_cast<std::size_t>(d.request)];
      log_index = r.log_index;
      r.deferred = false;
      if (r.matched_only) {
        r.held = m;
      } else {
        fill_request(r, m);
      }
    }
    --self.deferred_open;
    record_match(self, log_index, d.src, d.tag);
  }
}

Received VirtualClock::take_deferred(NodeState& self, const Incoming& in, std::size_t log_index,
                                     const WaitDescription& what) {
  ++self.deferred_open;
  self.blocking_log_index = log_index;
  drive_until(
      self,
      [&] {
        apply_decisions(self);
        return self.blocking_match != nullptr || self.blocking_failed >= 0;
      },
      what);
  if (self.blocking_failed >= 0) {
    Received got;
    got.failed = std::exchange(self.blocking_failed, -1);
    got.problem = failed_problem(got.failed, std::exchange(self.blocking_failed_any, false)
                                                 ? Needed::any_receive
                                                 : Needed::receive);
    return got;
  }
  return take(std::exchange(self.blocking_match, nullptr), in);
}

bool VirtualClock::arrived(NodeState& self, RequestState& r) {
  if (r.send) {
    // A synchronous isend has arrived once its receive is posted (the simulation says).
    if (r.synchronous && !r.sync_done) {
      // ... or failed, its receiver having stopped first (Comm reports it at completion).
      const int refused = sync_refused(self, r.send_index);
      if (refused >= 0 || sync_acked(self, r.send_index)) {
        r.failed = refused;
        r.sync_done = true;
        --self.sync_open;
      }
    }
    return (!r.synchronous || r.sync_done) && sent(r);
  }
  if (!r.filled) {
    if (self.deferred_open > 0) apply_decisions(self);
    if (r.held != nullptr && !r.matched_only) fill_request(r, std::exchange(r.held, nullptr));
    if (!r.filled && !r.deferred) self.drain();
  }
  return r.filled || (machine_.failing() && nodes_.request_source_stopped(self, r));
}

void VirtualClock::completed(NodeState& self, RequestState& r) {
  // Its receiver has copied the bytes by now, or they are copied into the message here
  // (without waiting for the receiver: it may not want them for a while).
  if (r.lent != nullptr) {
    take_back(*nodes_.executor, self, std::exchange(r.lent, nullptr), false, false);
  }
  MailboxTransport::completed(self, r);
}

void VirtualClock::withdrawn(NodeState& self, RequestState& r) noexcept {
  if (r.lent != nullptr) take_back(*nodes_.executor, self, std::exchange(r.lent, nullptr), true);
}

void VirtualClock::block(NodeState& self, FunctionRef<bool()> ready,
                         const WaitDescription& what) {
  // A deferred receive's message, and the word that a synchronous send's receive is posted,
  // come from the simulation: advance it meanwhile.
  if (self.deferred_open == 0 && self.sync_open == 0) {
    MailboxTransport::block(self, ready, what);
  } else {
    drive_until(self, ready, what);
  }
}

void VirtualClock::isend(NodeState& self, std::uint32_t id, const Outgoing& out) {
  OpRecord op;
  op.kind = OpRecord::Kind::isend;
  int lost = -1;
  // SendMode::lent: the buffer stays until the request completes, so a receiver may copy
  // from it meanwhile; completed() or withdrawn() takes the loan back.
  Message* lent = nullptr;
  const std::uint64_t index = post(self, out, out.lent ? &lent : nullptr, false, op, &lost);
  self.requests[id].lent = lent;
  op.request = id;
  log_op(self, op, {}, Then::goes_on);
  if (told(self, out) && simulates_during_run()) {
    RequestState& r = self.requests[id];
    r.lost_link = lost;  // reported when it completes (Comm::finish_request)
    r.synchronous = true;
    r.send_index = index;
    ++self.sync_open;
  }
}

void VirtualClock::receiving(NodeState& self, const Incoming& in, OpRecord::Kind kind,
                             std::uint32_t request) {
  // Recorded before it blocks, so the simulation can go on meanwhile.
  OpRecord op = receive_op(kind, in);
  if (kind == OpRecord::Kind::irecv) op.request = request;
  const std::size_t index = log_op(self, op);
  if (kind == OpRecord::Kind::irecv) self.requests[request].log_index = index;
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
  log_op(self, op, ids, Then::drives);
  return static_cast<std::size_t>(resolve(self, what));
}

bool VirtualClock::test(NodeState& self, std::uint32_t id, const WaitDescription& what) {
  OpRecord op;
  op.kind = OpRecord::Kind::test;
  op.request = id;
  const std::span<const std::uint32_t> ids(&id, 1);
  if (asks_again(self, op, ids)) return answer_again(self, op, ids)[0] != 0;
  self.answered.store(false, std::memory_order_relaxed);
  log_op(self, op, {}, Then::drives);
  const std::int64_t done = resolve(self, what);
  if (done == 0) query_failed(self, op, ids, std::span<const std::int64_t>(&done, 1));
  return done != 0;
}

bool VirtualClock::asks_again(const NodeState& self, const OpRecord& op,
                              std::span<const std::uint32_t> ids) const {
  return !self.repeatable.empty() && self.repeatable_kind == op.kind &&
         self.repeatable_all == op.all && std::ranges::equal(ids, self.repeatable);
}

std::vector<std::int64_t> VirtualClock::answer_again(NodeState& self, OpRecord op,
                                                     std::span<const std::uint32_t> ids) {
  // Its answer goes into the log before the operation, for the replay (as resolve records
  // the pass's); the pass, which gives the same, publishes none (OpRecord::known).
  std::vector<std::int64_t> answer = std::move(self.repeatable_answer);
  {
    std::lock_guard lock(self.log_mutex);
    self.log.answers.append(answer.begin(), answer.end());
  }
  op.known = true;
  // The pass waits for it: it takes it here (or whoever holds it is told), and moves self on
  // to the next instant at which anything happens, as a second failed query in a row.
  log_op(self, op, op.kind == OpRecord::Kind::test_list ? ids : std::span<const std::uint32_t>{});
  query_failed(self, op, ids, answer);
  return answer;
}

void VirtualClock::query_failed(NodeState& self, const OpRecord& op,
                                std::span<const std::uint32_t> ids,
                                std::span<const std::int64_t> answer) {
  self.failed_last = true;
  // Only after the first failed query in a row does the pass wait for self's next operation
  // with nothing changed meanwhile; after a second it moves self on in time.
  if (self.failed_before || ids.empty()) return;
  self.repeatable.assign(ids.begin(), ids.end());
  self.repeatable_kind = op.kind;
  self.repeatable_all = op.all;
  self.repeatable_answer.assign(answer.begin(), answer.end());
}

Picos VirtualClock::now(NodeState& self, const WaitDescription& what) {
  // The node's time is the simulation's: a query, answered when the pass reaches it.
  OpRecord op;
  op.kind = OpRecord::Kind::now;
  self.answered.store(false, std::memory_order_relaxed);
  log_op(self, op, {}, Then::drives);
  return resolve(self, what);
}

void VirtualClock::drive_until(NodeState& self, FunctionRef<bool()> ready,
                               const WaitDescription& what) {
  LocalNodes& n = nodes_;
  {
    // Said before the first advance, which may find a deadlock and report every node's wait.
    std::lock_guard lock(self.wait_mutex);
    self.waiting = what;
  }
  {
    std::lock_guard lock(n.resolvers_mutex);
    n.resolvers.push_back(self.rank);
  }
  struct Leave {
    LocalNodes& n;
    int rank;
    ~Leave() {
      // If it was the one woken to advance the pass, the next waiting node takes it on.
      std::lock_guard lock(n.resolvers_mutex);
      n.resolvers.erase(std::find(n.resolvers.begin(), n.resolvers.end(), rank));
      if (!n.resolvers.empty()) n.wake(*n.nodes[n.resolvers.front()]);
    }
  } leave{n, self.rank};
  n.block_until(
      self,
      [&] {
        if (ready()) return true;
        if (machine_.abort.load(std::memory_order_acquire)) throw RunAborted{};
        try {
          std::lock_guard lock(n.sim_mutex);
          if (n.sim == nullptr) n.sim = start_simulation(n, simulates_during_run());
          advance_simulation(*n.sim);
        } catch (const ScheduleDeadlock& e) {
          n.record_deadlock(e.what());
          throw RunAborted{};
        } catch (const std::exception& e) {
          n.record_error(self.rank, e.what());
          n.abort_run();
          throw RunAborted{};
        }
        return ready();
      },
      what);
}

std::int64_t VirtualClock::resolve(NodeState& self, const WaitDescription& what, bool list) {
  drive_until(
      self, [&] { return self.answered.load(std::memory_order_acquire); }, what);
  self.answered.store(false, std::memory_order_relaxed);
  {
    std::lock_guard lock(self.log_mutex);
    if (list) {
      self.log.answers.append(self.answer_list.begin(), self.answer_list.end());
    } else {
      self.log.answers.push_back(self.answer);
    }
  }
  return self.answer;
}

std::vector<std::int64_t> VirtualClock::test_list(NodeState& self,
                                                  std::span<const std::uint32_t> ids, bool all,
                                                  const WaitDescription& what) {
  OpRecord op;
  op.kind = OpRecord::Kind::test_list;
  op.all = all;
  if (asks_again(self, op, ids)) return answer_again(self, op, ids);
  self.answered.store(false, std::memory_order_relaxed);
  log_op(self, op, ids, Then::drives);
  resolve(self, what, true);
  const auto ready = [](std::int64_t key) { return key >= 0; };
  const bool failed = all ? !std::ranges::all_of(self.answer_list, ready)
                          : !std::ranges::any_of(self.answer_list, ready);
  if (failed) query_failed(self, op, ids, self.answer_list);
  return self.answer_list;
}

Found VirtualClock::probe(NodeState& self, const Incoming& in, bool block,
                          const WaitDescription& what) {
  OpRecord op = receive_op(block ? OpRecord::Kind::probe : OpRecord::Kind::iprobe, in);
  self.answered.store(false, std::memory_order_relaxed);
  const std::size_t index = log_op(self, op, {}, Then::drives);
  if (const std::int64_t a = resolve(self, what); a <= 0) {
    // Nothing found; or (a negative answer) a failed node it needed has stopped, and nothing
    // will come: self.found names it.
    if (!block) query_failed(self, op, {}, {});
    return a == 0 ? Found{} : self.found;
  }
  // The replay waits for the same message: a receive from its source and tag would take it.
  record_match(self, index, self.found.src, self.found.tag);
  return self.found;
}

bool VirtualClock::match(NodeState& self, std::uint32_t id, const Incoming& in, bool block,
                         const WaitDescription& what) {
  OpRecord op = receive_op(block ? OpRecord::Kind::mprobe : OpRecord::Kind::improbe, in);
  op.request = id;
  op.report = true;
  RequestState& r = self.requests[id];
  r.deferred = true;
  ++self.deferred_open;
  self.answered.store(false, std::memory_order_relaxed);
  r.log_index = log_op(self, op, {}, Then::drives);
  if (block) {
    drive_until(
        self,
        [&] {
          apply_decisions(self);
          return r.held != nullptr || r.failed >= 0;
        },
        what);
    return r.failed < 0;  // or failed: Comm reports it
  }
  if (const std::int64_t a = resolve(self, what); a <= 0) {
    // Nothing to take: the simulation posted nothing (a negative answer: it failed, as a
    // failed node it needed has stopped).
    r.deferred = false;
    --self.deferred_open;
    if (a < 0) {
      r.failed = static_cast<int>(-2 - a);
      r.failed_any = in.src == kAnySource;
    }
    query_failed(self, op, {}, {});
    return false;
  }
  apply_decisions(self);  // its choice was published before the answer
  if (r.held == nullptr) throw std::logic_error("vmc: improbe found a message it did not take");
  return true;
}

bool VirtualClock::cancel(NodeState& self, std::uint32_t id, const WaitDescription& what) {
  RequestState& r = self.requests[id];
  OpRecord op;
  op.kind = OpRecord::Kind::cancel;
  op.request = id;
  self.answered.store(false, std::memory_order_relaxed);
  log_op(self, op, {}, Then::drives);
  if (resolve(self, what) == 0) return false;
  // Withdrawn in model time: withdraw it here too.
  apply_decisions(self);
  const MatchKey key{r.comm, r.peer_world, r.tag};
  if (r.deferred) {
    r.deferred = false;
    --self.deferred_open;
  } else if (!r.filled) {
    self.posted.remove(key, r, self.requests);
  } else {
    // Its message came here early (before the cancel in model time, its sender ran ahead):
    // it goes back to the mailbox, first of its source and tag, for the next receive.
    for (std::size_t k = id + 1; k < self.requests.size(); ++k) {
      const RequestState& later = self.requests[k];
      if (!later.send && later.comm == r.comm && later.peer_world == r.peer_world &&
          later.tag == r.tag) {
        throw UsageError("node " + std::to_string(self.rank) +
                         ": cancel of a receive whose message already arrived here while a "
                         "later receive from the same source with the same tag is posted: "
                         "vmc cannot withdraw it (complete the receive instead)");
      }
    }
    if (!r.error.empty()) {
      throw UsageError("node " + std::to_string(self.rank) +
                       ": cancel of a receive whose message did not fit its buffer: vmc "
                       "cannot withdraw it");
    }
    auto* m = new Message;
    m->comm = r.comm;
    m->src = r.matched_src;
    m->tag = r.matched_tag;
    m->items = r.matched_items;
    m->bytes = r.received;
    m->lost_link = std::exchange(r.lost_link, -1);
    if (machine_.config.data == Data::full && r.received > 0 && m->lost_link < 0) {
      m->payload = make_payload(r.received);
      std::memcpy(m->payload.get(), r.buffer, r.received);
    }
    self.unexpected.push_front(key, m);
  }
  r.cancelled = true;
  r.filled = true;
  r.received = 0;
  {
    std::lock_guard lock(self.log_mutex);
    // The replay beside the run learns it from the run's pass once it is past it.
    if (self.log.ops.holds(r.log_index)) self.log.ops[r.log_index].cancelled = true;
  }
  return true;
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

void VirtualClock::meet(NodeState& self, const CommGroup& g) {
  OpRecord op;
  op.kind = OpRecord::Kind::sync;
  op.recv_comm = g.id;
  op.sync_seq = self.group_sync_seq.next(g.id);
  op.list_size = static_cast<std::uint32_t>(g.world.size());
  {
    std::lock_guard lock(self.decisions_mutex);
    self.meeting = {g.id, op.sync_seq};  // the simulation's word on it comes after the log
    self.meeting_word = 0;
  }
  log_op(self, op);
}

int VirtualClock::wait_meeting(NodeState& self, FunctionRef<bool()> ready,
                               const WaitDescription& what) {
  // Without failures the meeting in the run is enough (every member comes, or it is a
  // deadlock); with them, a member that stopped never comes, and the simulation says so.
  if (!machine_.failing() || !simulates_during_run()) {
    return MailboxTransport::wait_meeting(self, ready, what);
  }
  int word = 0;
  drive_until(
      self,
      [&] {
        if (ready()) return true;
        std::lock_guard lock(self.decisions_mutex);
        word = self.meeting_word;
        return word < 0;
      },
      what);
  return word < 0 ? -2 - word : -1;
}

SplitResult VirtualClock::split(NodeState& self, CommGroup& g, int rank, std::uint64_t seq,
                                int color, int key) {
  meet(self, g);
  return MailboxTransport::split(self, g, rank, seq, color, key);
}

SplitResult VirtualClock::create_group(NodeState& self, CommGroup& g,
                                       std::span<const int> members, int index,
                                       std::uint64_t seq, std::int64_t tag) {
  // Nobody waits in the run here (the first member makes the group): the members meet on
  // the new group, whose id is theirs alone.
  SplitResult made = MailboxTransport::create_group(self, g, members, index, seq, tag);
  meet(self, *made.group);
  if (machine_.failing() && simulates_during_run()) {
    // A member may have stopped before it came: wait for the simulation's word.
    int word = 0;
    drive_until(
        self,
        [&] {
          std::lock_guard lock(self.decisions_mutex);
          word = self.meeting_word;
          return word != 0;
        },
        WaitDescription{"create_group", -1, -1, 0, made.group->id});
    if (word < 0) made.failed = -2 - word;
  }
  return made;
}

void VirtualClock::measure(Stats& stats, Trace& trace) {
  try {
    std::lock_guard lock(nodes_.sim_mutex);
    // Not started during the run (a short one): the pass after it, the replay only if
    // links mattered.
    if (nodes_.sim == nullptr) nodes_.sim = start_simulation(nodes_, false);
    finish_simulation(nodes_, *nodes_.sim, stats, trace);
  } catch (const TimeLimitPassed&) {
    nodes_.reset();  // the machine stays usable; Machine::run_within answers
    throw;
  } catch (const std::exception& e) {
    // A time that does not fit, or a rendezvous deadlock: the run ends with a report and
    // the machine stays usable.
    const bool deadlock = dynamic_cast<const ScheduleDeadlock*>(&e) != nullptr;
    nodes_.fail(RunError(deadlock ? RunError::Kind::deadlock : RunError::Kind::node_threw,
                         e.what(), -1, std::vector<BlockedWait>{}));
  }
  if (!machine_.config.trace) trace = Trace{};
}

void VirtualClock::stop(NodeState& self) {
  OpRecord op;
  op.kind = OpRecord::Kind::fail;
  log_op(self, op);
}

std::unique_ptr<Transport> make_virtual_clock(MachineImpl& m) {
  return std::make_unique<VirtualClock>(m, NodePlacement{.lo = 0, .hi = m.p});
}

}  // namespace vmc::detail
