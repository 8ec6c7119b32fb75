// Comm: point-to-point calls, local work charges, split and collective call checks.
//
// Virtual time: calls move the data at once and append what they did to the node's log;
// the simulator turns the logs into times after the run (simulator.cpp). Real time: a send
// holds its ports and links for real and waits out its modelled duration (real_network.cpp).
#include <algorithm>
#include <cstring>

#include "runtime/detail.hpp"

namespace vmc {

using detail::Message;
using detail::MatchKey;
using detail::NodeState;
using detail::OpRecord;
using detail::WaitDescription;

namespace {

// The largest payload vmc accepts in one message: anything above is a bug in the caller.
constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 36;  // 64 GiB
constexpr Tag kCollectiveTagBase = Tag{1} << 40;
constexpr int kCollectiveTagBits = 20;

void check_abort(NodeState& n) {
  n.perturb();
  if (n.machine->abort.load(std::memory_order_acquire)) throw detail::RunAborted{};
}

}  // namespace

const detail::CommGroup& Comm::group(const char* call) const {
  if (group_ == nullptr) {
    throw UsageError(who() + ": " + call +
                     ": called on an invalid Comm (default-constructed, or the result of split "
                     "with a negative colour on a node that joined no group)");
  }
  return *group_;
}

int Comm::size() const { return static_cast<int>(group("size").world.size()); }
int Comm::world_rank(int r) const { return group("world_rank").world.at(r); }
std::uint32_t Comm::id() const { return group("id").id; }
const Model& Comm::model() const { return group("model").machine->config.model; }
const CostUnits& Comm::units() const { return group("units").machine->units; }
const Topology& Comm::topology() const { return *group("topology").machine->topology; }
std::string Comm::who() const {
  // An invalid Comm from split still knows its node; a default-constructed one is named by
  // the node thread that uses it, when it is one.
  const NodeState* node = node_ != nullptr ? node_ : detail::current_node;
  if (group_ == nullptr) {
    return node != nullptr ? "node " + std::to_string(node->rank) + " (invalid comm)"
                           : std::string("invalid comm");
  }
  return detail::node_prefix(*node_, group_.get(), rank_);
}

namespace {
// Collective calls the calling node is inside (nested calls count once each).
thread_local int collective_depth = 0;
}  // namespace

Comm::CollectiveScope::CollectiveScope(const Comm&) { ++collective_depth; }
Comm::CollectiveScope::~CollectiveScope() { --collective_depth; }

namespace {

[[noreturn]] void fail(const Comm& c, const std::string& call, const std::string& problem) {
  throw UsageError(c.who() + ": " + call + ": " + problem);
}

std::string describe_call(const char* op, const char* dir, int peer, Tag tag) {
  std::string s = std::string(op) + " " + dir + " rank " + std::to_string(peer);
  if (tag >= kCollectiveTagBase) {
    s += " (collective tag " + std::to_string((tag - kCollectiveTagBase) >> kCollectiveTagBits) +
         "." + std::to_string(tag & ((Tag{1} << kCollectiveTagBits) - 1)) + ")";
  } else {
    s += " tag " + std::to_string(tag);
  }
  return s;
}

void check_peer(const Comm& c, const char* op, const char* dir, int peer, Tag tag) {
  if (peer < 0 || peer >= c.size()) {
    fail(c, describe_call(op, dir, peer, tag),
         "rank out of range (comm has " + std::to_string(c.size()) + " ranks)");
  }
  if (tag < 0) fail(c, describe_call(op, dir, peer, tag), "tag is negative");
  // Tags above the user range belong to collective calls: a user message with one could
  // be taken by a collective (or take one of its messages).
  if (tag > kMaxUserTag && (collective_depth == 0 || tag < kCollectiveTagBase)) {
    fail(c, std::string(op) + " " + dir + " rank " + std::to_string(peer) + " tag " +
                std::to_string(tag),
         "tag is above the largest user tag " + std::to_string(kMaxUserTag) +
             " (tags above it are reserved for collective calls)");
  }
}

void check_send_size(const Comm& c, const std::string& call, std::size_t bytes,
                     std::size_t items) {
  if (bytes > kMaxMessageBytes) {
    fail(c, call, "message of " + std::to_string(bytes) + " bytes is larger than the " +
                      std::to_string(kMaxMessageBytes) + "-byte limit");
  }
  if ((bytes == 0) != (items == 0) || (items != 0 && bytes % items != 0)) {
    fail(c, call, std::to_string(bytes) + " bytes cannot hold " + std::to_string(items) +
                      " items of equal size");
  }
}

}  // namespace

namespace {

std::size_t deliver(const Comm& c, const char* op, int source, Tag tag, Message* msg, void* data,
                    std::size_t capacity, std::size_t item_size) {
  std::unique_ptr<Message> owned(msg);
  if (msg->bytes > capacity) {
    fail(c, describe_call(op, "from", source, tag),
         "message of " + std::to_string(msg->bytes) + " bytes (" + std::to_string(msg->items) +
             " items) does not fit the receive buffer of " + std::to_string(capacity) +
             " bytes");
  }
  if (item_size == 0 || msg->bytes % item_size != 0) {
    fail(c, describe_call(op, "from", source, tag),
         "message of " + std::to_string(msg->bytes) + " bytes is not a whole number of " +
             std::to_string(item_size) + "-byte items");
  }
  if (msg->bytes > 0) std::memcpy(data, msg->payload.get(), msg->bytes);
  return msg->bytes;
}

}  // namespace

std::uint64_t Comm::post(const void* data, std::size_t bytes, std::size_t items, int dest, Tag tag,
                         const char* op) const {
  group(op);
  check_peer(*this, op, "to", dest, tag);
  check_send_size(*this, describe_call(op, "to", dest, tag), bytes, items);
  check_abort(*node_);
  detail::MachineImpl& m = *node_->machine;
  const int dst = group_->world[dest];
  if (dst == node_->rank && !m.config.allow_self_messages) {
    fail(*this, describe_call(op, "to", dest, tag),
         "a node may not send to itself (copy locally, or set allow_self_messages)");
  }
  auto* msg = new Message;
  msg->comm = group_->id;
  msg->src = node_->rank;
  msg->tag = tag;
  msg->items = items;
  msg->bytes = bytes;
  msg->send_index = node_->sends++;
  if (bytes > 0) {
    msg->payload.reset(new std::byte[bytes]);
    std::memcpy(msg->payload.get(), data, bytes);
  }
  const std::uint64_t index = msg->send_index;
  if (m.config.clock == Clock::virtual_time || dst == node_->rank) {
    if (m.config.clock == Clock::virtual_time) {
      node_->log.sends.push_back({dst, items, bytes, tag, group_->id});
    }
    NodeState& target = *m.nodes[dst];
    target.incoming.enqueue(msg);
    m.wake(target);
  } else {
    detail::real_transfer(m, *node_, dst, msg);
  }
  return index;
}

Message* Comm::await(int source, Tag tag, const char* op, bool posted) const {
  group(op);
  check_peer(*this, op, "from", source, tag);
  check_abort(*node_);
  const int src = group_->world[source];
  if (src == node_->rank && !node_->machine->config.allow_self_messages) {
    fail(*this, describe_call(op, "from", source, tag),
         "a node may not receive from itself (set allow_self_messages)");
  }
  if (node_->machine->config.clock == Clock::real_time && !posted) {
    detail::real_post_receive(*node_->machine, *node_, group_->id, src, tag);
  }
  return node_->wait_for(MatchKey{group_->id, src, tag},
                         WaitDescription{op, source, src, tag, group_->id});
}

void Comm::send_raw(const void* data, std::size_t bytes, std::size_t items, int dest,
                    Tag tag) const {
  const std::uint64_t index = post(data, bytes, items, dest, tag, "send");
  if (node_->machine->config.clock == Clock::virtual_time) {
    OpRecord op;
    op.kind = OpRecord::Kind::send;
    op.send_index = index;
    node_->log.ops.push_back(op);
  }
}

std::size_t Comm::recv_raw(void* data, std::size_t capacity_bytes, std::size_t item_size,
                           int source, Tag tag) const {
  Message* msg = await(source, tag, "recv");
  if (node_->machine->config.clock == Clock::virtual_time) {
    OpRecord op;
    op.kind = OpRecord::Kind::recv;
    op.recv_src = msg->src;
    op.recv_index = msg->send_index;
    node_->log.ops.push_back(op);
  }
  return deliver(*this, "recv", source, tag, msg, data, capacity_bytes, item_size);
}

std::size_t Comm::sendrecv_raw(const void* out, std::size_t out_bytes, std::size_t out_items,
                               int dest, void* in, std::size_t in_capacity_bytes,
                               std::size_t in_item_size, int source, Tag tag) const {
  if (node_->machine->config.clock == Clock::real_time) {
    // The send holds its tokens for its duration; the partner's message arrives meanwhile.
    // The receive is posted first, so that under rendezvous the partner's send may start
    // while this node's own send waits for the partner's receive.
    check_peer(*this, "sendrecv", "from", source, tag);
    detail::real_post_receive(*node_->machine, *node_, group_->id, group_->world[source], tag);
    send_raw(out, out_bytes, out_items, dest, tag);
    Message* msg = await(source, tag, "sendrecv", true);
    return deliver(*this, "sendrecv", source, tag, msg, in, in_capacity_bytes, in_item_size);
  }
  // Virtual time: one op with both directions, so the simulator starts them together.
  OpRecord op;
  op.kind = OpRecord::Kind::sendrecv;
  op.send_index = post(out, out_bytes, out_items, dest, tag, "sendrecv");
  Message* msg = await(source, tag, "sendrecv");
  op.recv_src = msg->src;
  op.recv_index = msg->send_index;
  node_->log.ops.push_back(op);
  return deliver(*this, "sendrecv", source, tag, msg, in, in_capacity_bytes, in_item_size);
}

namespace {

void charge(NodeState& n, Picos duration, std::uint64_t items, Work kind) {
  check_abort(n);
  if (n.machine->config.clock == Clock::virtual_time) {
    if (duration == 0 && items == 0) return;
    OpRecord op;
    op.kind = OpRecord::Kind::compute;
    op.duration = duration;
    op.work_items = items;
    op.work = kind;
    n.log.ops.push_back(op);
  } else {
    detail::real_compute(*n.machine, n, duration, items, kind);
  }
}

}  // namespace

void Comm::charge_combine(std::size_t items) const {
  group("charge_combine");
  charge(*node_, node_->machine->units.combine(items), items, Work::combine);
}

void Comm::charge_rearrange(std::size_t items) const {
  group("charge_rearrange");
  charge(*node_, node_->machine->units.rearrange(items), items, Work::rearrange);
}

void Comm::charge_compute(double seconds) const {
  group("charge_compute");
  if (!(seconds >= 0) || seconds > 9.0e6) {
    fail(*this, "charge_compute", "duration " + std::to_string(seconds) +
                                      " s must be between 0 and 9e6 seconds");
  }
  charge(*node_, to_picos(seconds), 0, Work::compute);
}

namespace {

std::uint64_t next_seq(std::vector<std::uint64_t>& seqs, std::uint32_t id) {
  if (seqs.size() <= id) seqs.resize(id + 1, 0);
  return seqs[id]++;
}

}  // namespace

Comm Comm::split(int color, int key) const {
  group("split");
  check_abort(*node_);
  detail::CommGroup& g = *group_;
  detail::MachineImpl& m = *node_->machine;
  const std::uint64_t seq = next_seq(node_->split_seq, g.id);
  const int n = size();
  detail::CommGroup::SplitCall* call = nullptr;
  bool last = false;
  {
    std::lock_guard lock(g.control_mutex);
    call = &g.splits[seq];
    if (call->color_key.empty()) {
      call->color_key.resize(n);
      call->arrived.assign(n, false);
    }
    call->color_key[rank_] = {color, key};
    call->arrived[rank_] = true;
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
        auto ng = std::make_shared<detail::CommGroup>();
        ng->id = m.allocate_comm_id();
        ng->machine = &m;
        for (int i = 0; i < static_cast<int>(members.size()); ++i) {
          int w = g.world[members[i]];
          ng->world.push_back(w);
          ng->rank_of[w] = i;
          call->result[members[i]] = ng;
          call->new_rank[members[i]] = i;
        }
      }
      call->ready = true;
    }
  }
  if (last) {
    for (int r = 0; r < n; ++r) {
      if (r != rank_) m.wake(*m.nodes[g.world[r]]);
    }
  } else {
    node_->block_until(
        [&] {
          std::lock_guard lock(g.control_mutex);
          return call->ready;
        },
        WaitDescription{"split", -1, -1, 0, g.id});
  }
  std::lock_guard lock(g.control_mutex);
  Comm result;
  if (call->result[rank_] != nullptr) {
    result = Comm(node_, call->result[rank_], call->new_rank[rank_]);
  } else {
    result.node_ = node_;  // invalid, but its errors can name the node
  }
  if (++call->departures == n) g.splits.erase(seq);
  return result;
}

namespace {

std::string describe_signature(const CallSignature& s) {
  std::string t = s.operation;
  if (!s.op.empty()) t += " with op " + s.op;
  if (s.root >= 0) t += " root " + std::to_string(s.root);
  if (s.check_count) t += " count " + std::to_string(s.count);
  t += " item size " + std::to_string(s.item_size);
  return t;
}

// Why two members' calls of one collective disagree, or empty when they agree. `mine` is
// the calling member's; `first` came from rank `first_rank` (node `first_node`).
std::string compare_signatures(const CallSignature& mine, const CallSignature& first,
                               std::uint64_t seq, int my_rank, int my_node, int first_rank,
                               int first_node) {
  const std::string other =
      "rank " + std::to_string(first_rank) + " (node " + std::to_string(first_node) + ")";
  const std::string me =
      "rank " + std::to_string(my_rank) + " (node " + std::to_string(my_node) + ")";
  const bool same_call = first.operation == mine.operation && first.op == mine.op &&
                         first.root == mine.root && first.item_size == mine.item_size &&
                         first.check_count == mine.check_count &&
                         (!mine.check_count || first.count == mine.count);
  if (!same_call) {
    return "collective call " + std::to_string(seq) + " on this comm is " +
           describe_signature(mine) + ", but " + other + " called " + describe_signature(first);
  }
  if (first.layout != mine.layout) {
    return "collective call " + std::to_string(seq) + " (" + mine.operation +
           "): the counts differ from those of " + other +
           " (every member must pass the same counts)";
  }
  if (first.algorithm != mine.algorithm) {
    return "collective call " + std::to_string(seq) + " (" + mine.operation +
           "): the algorithms differ: " + me + " chose " +
           (mine.algorithm.empty() ? std::string("none") : mine.algorithm) + ", " + other +
           " chose " + (first.algorithm.empty() ? std::string("none") : first.algorithm) +
           " (give every member the same options)";
  }
  return "";
}

}  // namespace

Tag Comm::begin_collective(const CallSignature& sig) const {
  group(sig.operation.c_str());
  check_abort(*node_);
  detail::CommGroup& g = *group_;
  const std::uint64_t seq = next_seq(node_->collective_seq, g.id);
  std::string mismatch;
  {
    std::lock_guard lock(g.control_mutex);
    auto [it, inserted] = g.signatures.try_emplace(seq);
    auto& call = it->second;
    if (inserted) {
      call.sig = sig;
      call.first_rank = rank_;
    } else {
      mismatch = compare_signatures(sig, call.sig, seq, rank_, node_->rank, call.first_rank,
                                    g.world[call.first_rank]);
    }
    if (++call.seen == size()) g.signatures.erase(it);
  }
  if (!mismatch.empty()) fail(*this, sig.operation, mismatch);
  return kCollectiveTagBase + static_cast<Tag>(seq << kCollectiveTagBits);
}

}  // namespace vmc
