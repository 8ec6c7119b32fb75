// The transports whose nodes are threads or fibers of this process (mailbox_transport.hpp).
#include "runtime/mailbox_transport.hpp"

#include <algorithm>
#include <map>

namespace vmc::detail {

MailboxTransport::MailboxTransport(MachineImpl& m, const NodePlacement& where)
    : machine_(m), nodes_(m, where) {}

void MailboxTransport::run(CommGroup& world, const NodeBody& body, Stats& stats, Trace& trace) {
  world.local_members = nodes_.hi - nodes_.lo;
  nodes_.start(body);
  std::optional<RunError> failure = nodes_.watch();
  if (!failure) failure = nodes_.settle();
  if (!failure) failure = nodes_.unreceived();
  FailureReport failed = failure_report();
  if (failure) {
    if (failed.empty()) nodes_.fail(*failure);
    // What else went wrong, beside the failures: both are reported.
    nodes_.fail(RunError(failure->kind(),
                         std::string(failure->what()) + "\nnodes had failed:\n" + failed.text(),
                         failure->node(), failure->blocked(), std::move(failed)));
  }
  measure(stats, trace);
  nodes_.reset();
  stats.failures = failed;
  if (failed.unhandled()) {
    const int first = failed.stopped.front().node;
    std::string text = failed.headline() + ":\n" + failed.text();
    throw RunError(RunError::Kind::node_failed, std::move(text), first, {}, std::move(failed));
  }
}

Message* MailboxTransport::new_message(NodeState& self, const Outgoing& out) {
  auto* msg = new Message;
  msg->comm = out.group.id;
  msg->src = self.rank;
  msg->tag = out.tag;
  msg->items = out.items;
  msg->bytes = out.bytes;
  msg->send_index = self.sends++;
  return msg;
}

Received MailboxTransport::receive(NodeState& self, const Incoming& in) {
  Message* m = nodes_.wait_for(self, MatchKey{in.group.id, in.src, in.tag},
                               WaitDescription{in.op, in.source, in.src, in.tag, in.group.id});
  if (m == nullptr) return source_failed(in.src);
  return take(m, in);
}

Received MailboxTransport::source_failed(int src) const {
  Received got;
  got.failed = src;
  got.problem = failed_problem(src, Needed::receive);
  return got;
}

std::string MailboxTransport::failed_problem(int src, Needed call) const {
  const NodeState& f = *nodes_.nodes[src];
  std::string text = "node " + std::to_string(src) + " has failed (it stopped at " +
                     format_duration(to_seconds(f.stop_time));
  if (f.stop_cause >= 0) {
    text += ", ending on the error of a call that needed failed node " +
            std::to_string(f.stop_cause);
  } else if (f.stop_cause_link >= 0) {
    text += ", ending on the error of a receive whose message was lost on " +
            link_name(machine_.config.link_failures[static_cast<std::size_t>(f.stop_cause_link)]);
  }
  switch (call) {
    case Needed::receive: return text + ") and sent no message for this receive";
    case Needed::any_receive:
      return text + "; the first member of the comm to fail) and no message had matched this "
                    "receive by then";
    case Needed::send: return text + ") before a receive took this message";
    case Needed::constructor: return text + ") and never reached this call of its group";
  }
  return text + ")";
}

FailureReport MailboxTransport::failure_report() const {
  FailureReport report;
  report.drawn = machine_.drawn();
  if (!machine_.failing()) return report;
  for (const LinkFailure& f : machine_.config.link_failures) {
    report.links.push_back({f.a, f.b, to_picos(f.at), 0, 0});
  }
  report.reroutes = !report.links.empty() && machine_.config.fail_routes == FailRoutes::around &&
                    machine_.config.model.routing != Routing::direct;
  for (const auto& n : nodes_.local()) {
    for (const FailureReport::Lost& x : n->lost) {
      report.lost.push_back(x);
      ++report.links[static_cast<std::size_t>(x.link)].lost;
    }
    for (std::size_t k = 0; k < n->rerouted.size(); ++k) {
      report.links[k].rerouted += n->rerouted[k];
    }
    if (n->stopped.load(std::memory_order_acquire)) {
      report.stopped.push_back({n->rank, n->stop_time, n->stop_cause, n->stop_cause_link});
    }
    report.affected.insert(report.affected.end(), n->affected.begin(), n->affected.end());
  }
  return report;
}

Received MailboxTransport::take(Message* m, const Incoming& in) {
  OwnedMessage msg(m);
  Received got;
  got.src = msg->src;
  got.tag = msg->tag;
  got.items = msg->items;
  got.bytes = msg->bytes;
  if (msg->lost_link >= 0) {
    // A failed link lost it: the receive fails (Comm names the link).
    got.lost_link = msg->lost_link;
    got.bytes = got.items = 0;
    return got;
  }
  if (!receive_fits(msg->bytes, in.capacity, in.item_size)) [[unlikely]] {
    got.problem = receive_problem(msg->bytes, msg->items, in.capacity, in.item_size);
    got.truncated = msg->bytes > in.capacity;
    return got;
  }
  copy_out(*msg, in.data);
  return got;
}

Received MailboxTransport::recv(NodeState& self, const Incoming& in) {
  receiving(self, in, OpRecord::Kind::recv, 0);
  return receive(self, in);
}

void MailboxTransport::irecv(NodeState& self, std::uint32_t id, const Incoming& in) {
  receiving(self, in, OpRecord::Kind::irecv, id);
  // The oldest message that arrived for it, unless older irecvs still wait for theirs.
  const MatchKey key{in.group.id, in.src, in.tag};
  self.drain();
  if (!self.posted.contains(key)) {
    if (Message* msg = self.take(key)) {
      fill_request(self.requests[id], msg);
      return;
    }
  }
  self.posted.push_back(key, id, self.requests);
}

bool MailboxTransport::arrived(NodeState& self, RequestState& r) {
  if (r.send) return sent(r);
  if (!r.filled) self.drain();
  return r.filled || (machine_.failing() && nodes_.request_source_stopped(self, r));
}

void MailboxTransport::completed(NodeState&, RequestState& r) {
  if (r.failed >= 0) {
    r.error = failed_problem(r.failed, r.send          ? Needed::send
                                       : r.failed_any ? Needed::any_receive
                                                      : Needed::receive);
  }
}

void MailboxTransport::block(NodeState& self, FunctionRef<bool()> ready,
                             const WaitDescription& what) {
  nodes_.block_until(self, ready, what);
}

void MailboxTransport::pause(NodeState& self, double seconds) {
  nodes_.executor->pause(self, seconds);
}

SplitResult MailboxTransport::split(NodeState& self, CommGroup& g, int rank, std::uint64_t seq,
                                    int color, int key) {
  const int n = static_cast<int>(g.world.size());
  CommGroup::SplitCall* call = nullptr;
  bool last = false;
  {
    std::lock_guard lock(g.control_mutex);
    call = &g.splits[seq];
    if (call->color_key.empty()) {
      call->color_key.resize(n);
      call->arrived.assign(n, false);
    }
    call->color_key[rank] = {color, key};
    call->arrived[rank] = true;
    last = ++call->arrivals == n;
    if (last) {
      // Every member is here: form the groups, ranked by (key, old rank).
      call->result.assign(n, nullptr);
      call->new_rank.assign(n, -1);
      std::map<int, std::vector<int>> by_color;
      for (int r = 0; r < n; ++r) {
        if (call->color_key[r].first >= 0) by_color[call->color_key[r].first].push_back(r);
      }
      for (auto& [c, members] : by_color) {
        std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
          return call->color_key[a].second < call->color_key[b].second;
        });
        auto ng = std::make_shared<CommGroup>();
        ng->id = machine_.allocate_comm_id();
        ng->machine = &machine_;
        ng->local_members = static_cast<int>(members.size());
        for (int i = 0; i < static_cast<int>(members.size()); ++i) {
          int w = g.world[members[i]];
          ng->world.push_back(w);
          ng->rank_of[w] = i;
          call->result[members[i]] = ng;
          call->new_rank[members[i]] = i;
        }
        ng->describe_members();
        if (machine_.failing()) nodes_.note_members(*ng);
        nodes_.note_group(ng);
      }
      call->ready = true;
    }
  }
  if (last) {
    for (int r = 0; r < n; ++r) {
      if (r != rank) nodes_.wake(*nodes_.nodes[g.world[r]]);
    }
  } else {
    const int failed = wait_meeting(
        self,
        [&] {
          std::lock_guard lock(g.control_mutex);
          return call->ready;
        },
        WaitDescription{"split", -1, -1, 0, g.id});
    // A member stopped before it came: the call fails (its entry stays with the group).
    if (failed >= 0) return SplitResult{nullptr, -1, failed};
  }
  std::lock_guard lock(g.control_mutex);
  SplitResult result{call->result[rank], call->new_rank[rank]};
  if (++call->departures == n) g.splits.erase(seq);
  return result;
}

SplitResult MailboxTransport::create_group(NodeState&, CommGroup& g, std::span<const int> members,
                                          int index, std::uint64_t seq, std::int64_t tag) {
  const auto key = std::make_tuple(hash_integers(members), tag, seq);
  std::lock_guard lock(g.control_mutex);
  CommGroup::GroupCall& call = g.groups_made[key];
  if (call.group == nullptr) {
    // The first member here makes it; the others take it (nobody waits).
    auto ng = std::make_shared<CommGroup>();
    ng->id = machine_.allocate_comm_id();
    ng->machine = &machine_;
    ng->local_members = static_cast<int>(members.size());
    for (int i = 0; i < static_cast<int>(members.size()); ++i) {
      const int w = g.world[members[i]];
      ng->world.push_back(w);
      ng->rank_of[w] = i;
    }
    ng->describe_members();
    if (machine_.failing()) nodes_.note_members(*ng);
    nodes_.note_group(ng);
    call.group = std::move(ng);
  }
  SplitResult result{call.group, index};
  if (++call.departures == static_cast<int>(members.size())) g.groups_made.erase(key);
  return result;
}

std::string MailboxTransport::compare_call(NodeState& self, CommGroup& g, int rank,
                                           std::uint64_t seq, const CallSignature& mine,
                                           CompareCall) {
  // The first member to arrive leaves its call for the others to compare theirs with; the
  // last one to compare frees its place (CommGroup::signature_slots). A call that differs
  // from it takes the slow path (calls_differ).
  CommGroup::SignatureCall* call = nullptr;
  bool differs = false, completes = false;
  {
    std::lock_guard lock(g.control_mutex);
    if (g.signature_slots.empty()) g.signature_slots.resize(CommGroup::kSignatureSlots);
    CommGroup::SignatureCall& slot = g.signature_slots[seq % CommGroup::kSignatureSlots];
    if (slot.open && slot.seq == seq) {
      call = &slot;
    } else if (!g.more_signatures.empty()) {
      auto it = g.more_signatures.find(seq);
      if (it != g.more_signatures.end()) call = &it->second;
    }
    if (call == nullptr) {
      call = slot.open ? &g.more_signatures[seq] : &slot;
      call->seq = seq;
      call->open = true;
      call->seen = 0;
      call->sig.keep(mine);
      call->first_rank = rank;
    } else if (!call->sig.agrees_with(mine) || call->differ != nullptr) [[unlikely]] {
      differs = true;
      completes = note_difference(g, *call, rank, mine);
    }
    if (!differs && ++call->seen == g.local_members) {
      if (call == &slot) {
        slot.open = false;
      } else {
        g.more_signatures.erase(seq);
      }
    }
  }
  if (differs) [[unlikely]] calls_differ(self, g, rank, seq, *call->differ, completes);
  return {};
}

bool MailboxTransport::note_difference(CommGroup& g, CommGroup::SignatureCall& call, int rank,
                                       const CallSignature& mine) {
  // Under the group's lock. The call stays open from now on (its entry is not reused), so
  // that the members still waiting in it can read the report.
  if (call.differ == nullptr) call.differ = std::make_unique<DifferingCalls>();
  DifferingCalls& d = *call.differ;
  // Compared out of line: agrees_with stays inline on the path of calls that agree.
  if (!same_calls(call.sig.view(), mine)) {
    d.calls.emplace_back(rank, KeptSignature{});
    d.calls.back().second.keep(mine);
  }
  d.waiting.push_back(rank);
  if (++call.seen < g.local_members) return false;
  // Every member has come: the members that came before the first difference, and those since
  // whose call agrees, made the first member's call; the others are in d.calls.
  const int n = static_cast<int>(g.world.size());
  std::vector<int> group_of(static_cast<std::size_t>(n), 0);  // by rank; 0: the first's call
  std::vector<MemberCalls> groups{{{}, call.sig.view()}};
  for (const auto& [r, sig] : d.calls) {
    int k = 1;
    while (k < static_cast<int>(groups.size()) && !same_calls(groups[k].call, sig.view())) ++k;
    if (k == static_cast<int>(groups.size())) groups.push_back({{}, sig.view()});
    group_of[static_cast<std::size_t>(r)] = k;
  }
  for (int r = 0; r < n; ++r) {
    // On a spread machine only this process's members compare here.
    if (!nodes_.hosts(g.world[static_cast<std::size_t>(r)])) continue;
    groups[static_cast<std::size_t>(group_of[static_cast<std::size_t>(r)])].ranks.push_back(r);
  }
  std::erase_if(groups, [](const MemberCalls& m) { return m.ranks.empty(); });
  const std::string problem = calls_differ_report(call.seq, g.world, std::move(groups), d.blamed);
  d.operation = call.sig.operation;
  for (const auto& [r, sig] : d.calls) {
    if (r == d.blamed) d.operation = sig.operation;
  }
  d.report = member_name(g.world[static_cast<std::size_t>(d.blamed)], d.blamed, g.id) + ": " +
             d.operation + ": " + problem;
  d.complete = true;
  return true;
}

void MailboxTransport::calls_differ(NodeState& self, CommGroup& g, int rank, std::uint64_t seq,
                                    DifferingCalls& d, bool completes) {
  // Named as the collective call it is, so that a member that never comes (it waits for
  // something of a waiting member's) makes the deadlock report name it.
  const WaitDescription what{"collective", -1, -1, collective_tag(seq), g.id};
  if (completes) {
    for (int r : d.waiting) {
      if (r != rank) nodes_.wake(*nodes_.nodes[g.world[static_cast<std::size_t>(r)]]);
    }
  } else {
    awaits_members(self, g);
    nodes_.block_until(
        self,
        [&] {
          std::lock_guard lock(g.control_mutex);
          return d.complete;
        },
        what);
  }
  // Complete: what follows is read only. The blamed member fails; when it went on past the
  // call (it did not wait), the member that came last fails in its name. The others wait for
  // the run's end.
  const bool blamed_waits = std::find(d.waiting.begin(), d.waiting.end(), d.blamed) !=
                            d.waiting.end();
  if (rank == d.blamed || (completes && !blamed_waits)) {
    throw CallsDifferError(g.world[static_cast<std::size_t>(d.blamed)], d.operation, d.report);
  }
  nodes_.block_until(self, [] { return false; }, what);
  throw RunAborted{};  // not reached: the wait ends only when the run does
}

}  // namespace vmc::detail
