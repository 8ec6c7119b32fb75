// Comm: point-to-point calls, local work charges, split and collective call checks.
//
// Virtual time: calls move the data at once and append what they did to the node's log;
// the simulator turns the logs into times after the run (simulator.cpp). Real time: a send
// holds its ports and links for real and waits out its modelled duration (real_network.cpp).
#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "runtime/detail.hpp"

namespace vmc {

using detail::Message;
using detail::MatchKey;
using detail::NodeState;
using detail::OpRecord;
using detail::WaitDescription;

namespace {

// From this size on, a sendrecv lends its send buffer instead of copying it, and so does a
// send to a receiver already waiting for it (see Message::lent): below it, a copy costs less
// than the loan's hand-back.
constexpr std::size_t kLendBytes = 32 * 1024;

// A loan in flight: taken back when the call returns (take_back), or on the way out of an
// error.
struct LoanGuard {
  NodeState& node;
  Message* message = nullptr;
  ~LoanGuard() {
    if (message != nullptr) detail::take_back(node, message, true);
  }
  void take_back() {
    if (message != nullptr) detail::take_back(node, std::exchange(message, nullptr), false);
  }
};

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
std::span<const int> Comm::members() const { return group("members").world; }
bool Comm::whole_machine() const { return group("whole_machine").whole; }
std::uint64_t Comm::members_hash() const { return group("members_hash").world_hash; }

namespace detail {
void CommGroup::describe_members() {
  const int p = static_cast<int>(world.size());
  whole = p == machine->p;
  for (int r = 0; whole && r < p; ++r) whole = world[r] == r;
  world_hash = whole ? 0 : hash_members(world);
}
}  // namespace detail
std::uint32_t Comm::id() const { return group("id").id; }
const Model& Comm::model() const { return group("model").machine->config.model; }
const CostUnits& Comm::units() const { return group("units").machine->units; }
const Topology& Comm::topology() const { return *group("topology").machine->topology; }
bool Comm::moves_data() const { return group("moves_data").machine->config.data == Data::full; }
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

// `op`, `dest` and `tag` name the call in the error (built only then: this runs on every
// send).
void check_send_size(const Comm& c, const char* op, int dest, Tag tag, std::size_t bytes,
                     std::size_t items) {
  if (bytes > kMaxMessageBytes) {
    fail(c, describe_call(op, "to", dest, tag),
         "message of " + std::to_string(bytes) + " bytes is larger than the " +
             std::to_string(kMaxMessageBytes) + "-byte limit");
  }
  if ((bytes == 0) != (items == 0) || (items != 0 && bytes % items != 0)) {
    fail(c, describe_call(op, "to", dest, tag),
         std::to_string(bytes) + " bytes cannot hold " + std::to_string(items) +
             " items of equal size");
  }
}

}  // namespace

// --- the MPI transport (MachineConfig::transport; runtime/mpi_network.cpp) ----------------

namespace {

// Whether calls record their operations for the simulator: on the virtual clock of the local
// transport.
bool logs(const NodeState& n) {
  return n.machine->config.clock == Clock::virtual_time && n.machine->mpi == nullptr;
}

// A Comm tag on MPI: the user's channel with the tag itself, or the collective channel with
// the offset within the call's tag space (mpi_network.cpp says why that is safe).
struct MpiTag {
  bool collective = false;
  int tag = 0;
};
MpiTag mpi_tag(Tag tag) {
  if (tag >= kCollectiveTagBase) {
    return {true, static_cast<int>(tag & ((Tag{1} << kCollectiveTagBits) - 1))};
  }
  return {false, static_cast<int>(tag)};
}

// A message that arrived over MPI into a receive buffer: what is wrong with it, or "".
std::string mpi_received_problem(const detail::MpiDone& d, std::size_t capacity,
                                 std::size_t item_size) {
  if (d.truncated) {
    return "the message is larger than the receive buffer of " + std::to_string(capacity) +
           " bytes";
  }
  if (item_size == 0 || d.bytes % item_size != 0) {
    return "message of " + std::to_string(d.bytes) + " bytes is not a whole number of " +
           std::to_string(item_size) + "-byte items";
  }
  return "";
}

// Blocks until the transfers of `handles` have completed; returns what each received.
std::vector<detail::MpiDone> mpi_complete(detail::MpiNetwork& net, std::vector<int> handles,
                                          const WaitDescription& what) {
  std::vector<detail::MpiDone> done(handles.size());
  detail::mpi_block(
      net,
      [&] {
        bool all = true;
        for (std::size_t k = 0; k < handles.size(); ++k) {
          if (handles[k] < 0) continue;
          done[k] = detail::mpi_test(net, handles[k]);
          if (done[k].done) {
            handles[k] = -1;
          } else {
            all = false;
          }
        }
        return all;
      },
      what);
  return done;
}

}  // namespace

namespace {

std::size_t deliver(const Comm& c, const char* op, int source, Tag tag, Message* msg, void* data,
                    std::size_t capacity, std::size_t item_size) {
  detail::OwnedMessage owned(msg);
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
  detail::copy_out(*msg, data);
  return msg->bytes;
}

}  // namespace

std::uint64_t Comm::post(const void* data, std::size_t bytes, std::size_t items, int dest, Tag tag,
                         const char* op, detail::RequestState* request,
                         Message** lent, bool lend_to_waiting_only) const {
  group(op);
  check_peer(*this, op, "to", dest, tag);
  check_send_size(*this, op, dest, tag, bytes, items);
  check_abort(*node_);
  detail::MachineImpl& m = *node_->machine;
  const int dst = group_->world[dest];
  if (dst == node_->rank && !m.config.allow_self_messages) {
    fail(*this, describe_call(op, "to", dest, tag),
         "a node may not send to itself (copy locally, or set allow_self_messages)");
  }
  // A spread machine: a node of another process gets the message by MPI (one MPI message,
  // its bytes and then what it needs to be matched: spread_network.cpp).
  const bool remote = m.spread != nullptr && !m.hosts(dst);
  if (remote && bytes > static_cast<std::size_t>(std::numeric_limits<int>::max()) -
                            detail::spread_trailer_bytes()) {
    fail(*this, describe_call(op, "to", dest, tag),
         "message of " + std::to_string(bytes) + " bytes: between the processes of a spread "
         "machine a message carries at most " +
             std::to_string(std::numeric_limits<int>::max() - detail::spread_trailer_bytes()) +
             " bytes (one MPI message)");
  }
  auto* msg = new Message;
  msg->comm = group_->id;
  msg->src = node_->rank;
  msg->tag = tag;
  msg->items = items;
  msg->bytes = bytes;
  msg->send_index = node_->sends++;
  if (remote) {
    // Its bytes (none on a timing-only machine) with room after them for the trailer.
    const std::size_t carried = m.config.data == Data::full ? bytes : 0;
    msg->payload = detail::make_payload(carried + detail::spread_trailer_bytes());
    if (carried > 0) std::memcpy(msg->payload.get(), data, carried);
  } else if (lent != nullptr && bytes >= kLendBytes && m.config.data == Data::full &&
      m.config.clock == Clock::virtual_time && dst != node_->rank &&
      (!lend_to_waiting_only ||
       m.nodes[dst]->waits_for(group_->id, node_->rank, tag))) {
    msg->lent = static_cast<const std::byte*>(data);
    msg->loan.store(Message::kOpen, std::memory_order_relaxed);
    msg->owners.store(2, std::memory_order_relaxed);
    *lent = msg;
  } else if (bytes > 0 && m.config.data == Data::full) {
    msg->payload = detail::make_payload(bytes);
    std::memcpy(msg->payload.get(), data, bytes);
  }
  const std::uint64_t index = msg->send_index;
  if (m.config.clock == Clock::virtual_time || dst == node_->rank) {
    if (m.config.clock == Clock::virtual_time) {
      std::lock_guard lock(node_->log_mutex);
      node_->log.sends.push_back({dst, items, bytes, tag, group_->id});
    }
    if (remote) {
      detail::spread_send(*m.spread, msg, dst);
    } else {
      NodeState& target = *m.nodes[dst];
      target.incoming.enqueue(msg);
      m.wake(target);
    }
  } else if (request != nullptr) {
    detail::real_isend(m, *node_, dst, msg, *request);
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
  if (detail::MpiNetwork* net = mpi_checked_send(bytes, items, dest, tag, "send")) {
    const MpiTag t = mpi_tag(tag);
    const int h = detail::mpi_post_send(*net, *group_->mpi, t.collective, t.tag, data, bytes, dest);
    mpi_complete(*net, {h}, WaitDescription{"send", -1, group_->world[dest], tag, group_->id});
    return;
  }
  // A receiver already waiting copies straight from `data`, once (item 1 of issue 13); the
  // loan is taken back before the send returns, so the caller may reuse its buffer.
  LoanGuard loan{*node_};
  const std::uint64_t index =
      post(data, bytes, items, dest, tag, "send", nullptr, &loan.message, true);
  if (node_->machine->config.clock == Clock::virtual_time) {
    OpRecord op;
    op.kind = OpRecord::Kind::send;
    op.send_index = index;
    node_->log_op(op);
  }
  loan.take_back();
}

namespace {

// A receive's operation: what it matches.
OpRecord receive_op(OpRecord::Kind kind, std::uint32_t comm, int src_world, Tag tag) {
  OpRecord op;
  op.kind = kind;
  op.recv_comm = comm;
  op.recv_src = src_world;
  op.recv_tag = tag;
  return op;
}

}  // namespace

std::size_t Comm::recv_raw(void* data, std::size_t capacity_bytes, std::size_t item_size,
                           int source, Tag tag) const {
  group("recv");
  check_peer(*this, "recv", "from", source, tag);
  check_receive_buffer(data, capacity_bytes, "recv", source, tag);
  if (detail::MpiNetwork* net = mpi_checked_recv(source, tag, "recv")) {
    const MpiTag t = mpi_tag(tag);
    const int h = detail::mpi_post_recv(*net, *group_->mpi, t.collective, t.tag, data,
                                        capacity_bytes, source);
    const detail::MpiDone d = mpi_complete(
        *net, {h}, WaitDescription{"recv", source, group_->world[source], tag, group_->id})[0];
    const std::string problem = mpi_received_problem(d, capacity_bytes, item_size);
    if (!problem.empty()) fail(*this, describe_call("recv", "from", source, tag), problem);
    return d.bytes;
  }
  if (node_->machine->config.clock == Clock::virtual_time) {
    // Recorded before it blocks, so the simulation can go on meanwhile.
    node_->log_op(receive_op(OpRecord::Kind::recv, group_->id, group_->world[source], tag));
  }
  Message* msg = await(source, tag, "recv");
  return deliver(*this, "recv", source, tag, msg, data, capacity_bytes, item_size);
}

std::size_t Comm::sendrecv_raw(const void* out, std::size_t out_bytes, std::size_t out_items,
                               int dest, void* in, std::size_t in_capacity_bytes,
                               std::size_t in_item_size, int source, Tag tag) const {
  if (node_->machine->mpi != nullptr) {
    group("sendrecv");
    check_peer(*this, "sendrecv", "from", source, tag);
    check_receive_buffer(in, in_capacity_bytes, "sendrecv", source, tag);
    detail::MpiNetwork* net = mpi_checked_send(out_bytes, out_items, dest, tag, "sendrecv");
    mpi_checked_recv(source, tag, "sendrecv");
    const MpiTag t = mpi_tag(tag);
    const int r = detail::mpi_post_recv(*net, *group_->mpi, t.collective, t.tag, in,
                                        in_capacity_bytes, source);
    const int h =
        detail::mpi_post_send(*net, *group_->mpi, t.collective, t.tag, out, out_bytes, dest);
    const detail::MpiDone d = mpi_complete(
        *net, {r, h}, WaitDescription{"sendrecv", source, group_->world[source], tag, group_->id})[0];
    const std::string problem = mpi_received_problem(d, in_capacity_bytes, in_item_size);
    if (!problem.empty()) fail(*this, describe_call("sendrecv", "from", source, tag), problem);
    return d.bytes;
  }
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
  check_peer(*this, "sendrecv", "from", source, tag);
  check_receive_buffer(in, in_capacity_bytes, "sendrecv", source, tag);
  // The send buffer stays in place until the call returns: the partner may copy straight
  // from it, and the loan is taken back below, or on the way out of an error.
  LoanGuard loan{*node_};
  const std::uint64_t index =
      post(out, out_bytes, out_items, dest, tag, "sendrecv", nullptr, &loan.message);
  OpRecord op =
      receive_op(OpRecord::Kind::sendrecv, group_->id, group_->world[source], tag);
  op.send_index = index;
  node_->log_op(op);
  Message* msg = await(source, tag, "sendrecv");
  const std::size_t got =
      deliver(*this, "sendrecv", source, tag, msg, in, in_capacity_bytes, in_item_size);
  loan.take_back();
  return got;
}

// --- nonblocking point to point ---------------------------------------------------------

namespace {

// A hash of a buffer, to tell whether an isend's buffer changed while it was in flight.
std::uint64_t hash_bytes(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ bytes;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h ^ (h >> 29);
}

bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

std::string describe_request(const detail::RequestState& r) {
  return describe_call(r.send ? "isend" : "irecv", r.send ? "to" : "from", r.peer, r.tag);
}

}  // namespace

void Comm::check_receive_buffer(const void* data, std::size_t bytes, const char* op, int source,
                                Tag tag) const {
  if (node_->open_requests == 0) return;
  const std::string call = describe_call(op, "from", source, tag);
  for (const detail::RequestState& r : node_->requests) {
    if (r.retired) continue;
    if (!r.send && overlap(data, bytes, r.buffer, r.capacity)) {
      fail(*this, call, "its buffer overlaps that of " + describe_request(r) +
                            ", still in flight (wait for it first)");
    }
    if (r.send && overlap(data, bytes, r.send_buffer, r.send_bytes)) {
      fail(*this, call, "its buffer overlaps that of " + describe_request(r) +
                            ", still in flight: receiving into it would change what is sent");
    }
  }
}

Request Comm::isend_raw(const void* data, std::size_t bytes, std::size_t items, int dest,
                        Tag tag) const {
  group("isend");
  check_peer(*this, "isend", "to", dest, tag);
  detail::MpiNetwork* net = mpi_checked_send(bytes, items, dest, tag, "isend");
  for (const detail::RequestState& r : node_->requests) {
    if (!r.retired && !r.send && overlap(data, bytes, r.buffer, r.capacity)) {
      fail(*this, describe_call("isend", "to", dest, tag),
           "its buffer overlaps that of " + describe_request(r) +
               ", still in flight (wait for it first)");
    }
  }
  const auto id = static_cast<std::uint32_t>(node_->requests.size());
  detail::RequestState& r = node_->requests.emplace_back();
  r.send = true;
  r.comm = group_->id;
  r.peer = dest;
  r.peer_world = group_->world[dest];
  r.tag = tag;
  r.send_buffer = data;
  r.send_bytes = bytes;
  if (moves_data()) r.send_hash = hash_bytes(data, bytes);
  if (net != nullptr) {
    const MpiTag t = mpi_tag(tag);
    r.mpi = detail::mpi_post_send(*net, *group_->mpi, t.collective, t.tag, data, bytes, dest);
    ++node_->open_requests;
    return Request(node_, id, node_->machine->runs);
  }
  ++node_->open_requests;
  const bool virtual_time = node_->machine->config.clock == Clock::virtual_time;
  const std::uint64_t index =
      post(data, bytes, items, dest, tag, "isend", virtual_time ? nullptr : &r);
  if (virtual_time) {
    OpRecord op;
    op.kind = OpRecord::Kind::isend;
    op.send_index = index;
    op.request = id;
    node_->log_op(op);
  }
  return Request(node_, id, node_->machine->runs);
}

Request Comm::irecv_raw(void* data, std::size_t capacity_bytes, std::size_t item_size,
                        int source, Tag tag) const {
  group("irecv");
  check_peer(*this, "irecv", "from", source, tag);
  check_abort(*node_);
  detail::MachineImpl& m = *node_->machine;
  const int src = group_->world[source];
  if (src == node_->rank && !m.config.allow_self_messages) {
    fail(*this, describe_call("irecv", "from", source, tag),
         "a node may not receive from itself (set allow_self_messages)");
  }
  check_receive_buffer(data, capacity_bytes, "irecv", source, tag);
  const auto id = static_cast<std::uint32_t>(node_->requests.size());
  detail::RequestState& r = node_->requests.emplace_back();
  r.comm = group_->id;
  r.peer = source;
  r.peer_world = src;
  r.tag = tag;
  r.buffer = data;
  r.capacity = capacity_bytes;
  r.item_size = item_size;
  ++node_->open_requests;
  if (detail::MpiNetwork* net = m.mpi) {
    const MpiTag t = mpi_tag(tag);
    r.mpi = detail::mpi_post_recv(*net, *group_->mpi, t.collective, t.tag, data, capacity_bytes,
                                  source);
    return Request(node_, id, m.runs);
  }
  if (m.config.clock == Clock::virtual_time) {
    OpRecord op = receive_op(OpRecord::Kind::irecv, group_->id, src, tag);
    op.request = id;
    node_->log_op(op);
  } else {
    detail::real_post_receive(m, *node_, group_->id, src, tag);
  }
  // The oldest message that arrived for it, unless older irecvs still wait for theirs.
  const MatchKey key{group_->id, src, tag};
  node_->drain();
  if (node_->posted.find(key) == node_->posted.end()) {
    if (Message* msg = node_->take(key)) {
      detail::fill_request(r, msg);
      return Request(node_, id, m.runs);
    }
  }
  node_->posted[key].push_back(id);
  return Request(node_, id, m.runs);
}

detail::RequestState& Comm::request_state(const Request& req, const char* call) const {
  group(call);
  if (req.null()) {
    fail(*this, call,
         "the request is null (never posted, or already completed by wait, wait_any or test)");
  }
  if (req.node_ != node_) {
    fail(*this, call, "the request was posted by node " + std::to_string(req.node_->rank) +
                          "; only its node may complete it");
  }
  if (req.run_ != node_->machine->runs || req.id_ >= node_->requests.size()) {
    fail(*this, call, "the request belongs to an earlier run of the machine");
  }
  detail::RequestState& r = node_->requests[req.id_];
  if (r.retired) {
    fail(*this, call, describe_request(r) +
                          " was already completed (by wait, wait_any or test through another "
                          "copy of its handle): a request is completed once");
  }
  return r;
}

bool Comm::request_ready(detail::RequestState& r) const {
  if (detail::MpiNetwork* net = node_->machine->mpi) {
    if (r.mpi >= 0) {
      const detail::MpiDone d = detail::mpi_test(*net, r.mpi);
      if (!d.done) return false;
      r.mpi = -1;
      if (!r.send) {
        r.received = d.bytes;
        r.error = mpi_received_problem(d, r.capacity, r.item_size);
      }
    }
    return true;
  }
  if (r.send) {
    return node_->machine->config.clock == Clock::virtual_time ||
           r.done.load(std::memory_order_acquire);
  }
  if (!r.filled) node_->drain();
  return r.filled;
}

std::size_t Comm::finish_request(detail::RequestState& r) const {
  if (detail::MpiNetwork* net = node_->machine->mpi; net != nullptr && !request_ready(r)) {
    detail::mpi_block(*net, [&] { return request_ready(r); },
                      WaitDescription{r.send ? "wait for isend" : "wait for irecv",
                                      r.send ? -1 : r.peer, r.peer_world, r.tag, r.comm});
  }
  if (!request_ready(r)) {
    node_->block_until([&] { return request_ready(r); },
                       WaitDescription{r.send ? "wait for isend" : "wait for irecv",
                                       r.send ? -1 : r.peer, r.send ? r.peer_world : r.peer_world,
                                       r.tag, r.comm});
  }
  r.retired = true;
  --node_->open_requests;
  if (r.send) {
    if (node_->machine->config.clock == Clock::real_time) {
      node_->log.messages.push_back(std::move(r.event));
    }
    if (moves_data() && hash_bytes(r.send_buffer, r.send_bytes) != r.send_hash) {
      fail(*this, describe_request(r),
           "its buffer changed while the transfer was in flight (between isend and the wait "
           "or test that completed it)");
    }
    return 0;
  }
  if (!r.error.empty()) fail(*this, describe_request(r), r.error);
  return r.received / r.item_size;
}

std::int64_t Comm::resolve(const char* call) const {
  detail::MachineImpl& m = *node_->machine;
  if (m.spread != nullptr) {
    fail(*this, call,
         "a machine spread over MPI processes does not answer wait_any or test on the virtual "
         "clock yet (the answer comes from the discrete-event pass over every node's log, "
         "which runs after the run there): use wait or wait_all");
  }
  {
    std::lock_guard lock(m.resolvers_mutex);
    m.resolvers.push_back(node_->rank);
  }
  struct Leave {
    detail::MachineImpl& m;
    int rank;
    ~Leave() {
      std::lock_guard lock(m.resolvers_mutex);
      m.resolvers.erase(std::find(m.resolvers.begin(), m.resolvers.end(), rank));
    }
  } leave{m, node_->rank};
  node_->block_until(
      [&] {
        if (node_->answered.load(std::memory_order_acquire)) return true;
        if (m.abort.load(std::memory_order_acquire)) throw detail::RunAborted{};
        try {
          std::lock_guard lock(m.sim_mutex);
          if (m.sim == nullptr) m.sim = detail::start_simulation(m);
          detail::advance_simulation(*m.sim);
        } catch (const detail::ScheduleDeadlock& e) {
          m.record_deadlock(e.what());
          throw detail::RunAborted{};
        } catch (const std::exception& e) {
          m.record_error(node_->rank, e.what());
          m.abort_run();
          throw detail::RunAborted{};
        }
        return node_->answered.load(std::memory_order_acquire);
      },
      WaitDescription{call, -1, -1, 0, group_->id});
  node_->answered.store(false, std::memory_order_relaxed);
  {
    std::lock_guard lock(node_->log_mutex);
    node_->log.answers.push_back(node_->answer);
  }
  return node_->answer;
}

std::size_t Comm::wait(Request& req) const {
  detail::RequestState& r = request_state(req, "wait");
  check_abort(*node_);
  if (logs(*node_)) {
    OpRecord op;
    op.kind = OpRecord::Kind::wait;
    node_->log_op(op, std::span<const std::uint32_t>(&req.id_, 1));
  }
  const std::size_t items = finish_request(r);
  req = Request();
  return items;
}

std::vector<std::size_t> Comm::wait_all(std::span<Request> reqs) const {
  group("wait_all");
  check_abort(*node_);
  std::vector<std::uint32_t> ids;
  for (const Request& req : reqs) {
    if (req.null()) continue;
    request_state(req, "wait_all");
    if (std::find(ids.begin(), ids.end(), req.id_) != ids.end()) {
      fail(*this, "wait_all", "the list holds one request twice");
    }
    ids.push_back(req.id_);
  }
  if (logs(*node_) && !ids.empty()) {
    OpRecord op;
    op.kind = OpRecord::Kind::wait;
    node_->log_op(op, ids);
  }
  std::vector<std::size_t> items(reqs.size(), 0);
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].null()) continue;
    items[i] = finish_request(node_->requests[reqs[i].id_]);
    reqs[i] = Request();
  }
  return items;
}

std::size_t Comm::wait_any(std::span<Request> reqs) const {
  group("wait_any");
  check_abort(*node_);
  std::vector<std::uint32_t> ids;
  std::vector<std::size_t> at;  // index in reqs of each id
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].null()) continue;
    request_state(reqs[i], "wait_any");
    if (std::find(ids.begin(), ids.end(), reqs[i].id_) != ids.end()) {
      fail(*this, "wait_any", "the list holds one request twice");
    }
    ids.push_back(reqs[i].id_);
    at.push_back(i);
  }
  if (ids.empty()) return kNoRequest;
  std::size_t chosen = 0;
  if (logs(*node_)) {
    // Which completes first is a matter of model time: the simulation answers.
    OpRecord op;
    op.kind = OpRecord::Kind::wait_any;
    node_->answered.store(false, std::memory_order_relaxed);
    node_->log_op(op, ids);
    chosen = static_cast<std::size_t>(resolve("wait_any"));
  } else {
    // The first to complete in real time (the lowest index if several have).
    auto first_ready = [&] {
      for (std::size_t k = 0; k < ids.size(); ++k) {
        if (request_ready(node_->requests[ids[k]])) {
          chosen = k;
          return true;
        }
      }
      return false;
    };
    if (first_ready()) {
    } else if (node_->machine->mpi != nullptr) {
      detail::mpi_block(*node_->machine->mpi, first_ready,
                        WaitDescription{"wait_any", -1, -1, 0, group_->id});
    } else {
      node_->block_until(first_ready, WaitDescription{"wait_any", -1, -1, 0, group_->id});
    }
  }
  finish_request(node_->requests[ids[chosen]]);
  reqs[at[chosen]] = Request();
  return at[chosen];
}

bool Comm::test(Request& req, std::size_t* items) const {
  detail::RequestState& r = request_state(req, "test");
  check_abort(*node_);
  bool done = false;
  if (logs(*node_)) {
    OpRecord op;
    op.kind = OpRecord::Kind::test;
    op.request = req.id_;
    node_->answered.store(false, std::memory_order_relaxed);
    node_->log_op(op);
    done = resolve("test") != 0;
  } else {
    done = request_ready(r);
  }
  if (!done) return false;
  const std::size_t got = finish_request(r);
  if (items != nullptr) *items = got;
  req = Request();
  return true;
}

void detail::check_requests_completed(NodeState& n) {
  if (n.open_requests == 0) return;
  std::string text;
  int shown = 0;
  for (const RequestState& r : n.requests) {
    if (r.retired) continue;
    if (shown++ < 4) text += (shown > 1 ? "; " : "") + describe_request(r);
  }
  if (n.open_requests > 4) text += "; and " + std::to_string(n.open_requests - 4) + " more";
  throw UsageError("node " + std::to_string(n.rank) + ": " + std::to_string(n.open_requests) +
                   " request(s) never completed when its function returned: " + text +
                   " (complete every isend and irecv with wait, wait_all, wait_any or test)");
}

namespace {

void charge(NodeState& n, Picos duration, std::uint64_t items, Work kind) {
  check_abort(n);
  if (n.machine->mpi != nullptr) return;  // real work takes its real time
  if (n.machine->config.clock == Clock::virtual_time) {
    if (duration == 0 && items == 0) return;
    OpRecord op;
    op.kind = OpRecord::Kind::compute;
    op.duration = duration;
    op.work_items = items;
    op.work = kind;
    n.log_op(op);
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
  if (m.spread != nullptr) {
    fail(*this, "split",
         "a machine spread over MPI processes does not split its groups yet (its members' "
         "colours and keys would have to be agreed among the processes): run on the world, "
         "or on the local transport");
  }
  const std::uint64_t seq = next_seq(node_->split_seq, g.id);
  if (m.mpi != nullptr) {
    // Every process makes one id per split, so that the ids agree wherever they are shown.
    const std::uint32_t id = m.allocate_comm_id();
    std::vector<int> members;
    auto channels = detail::mpi_split(*m.mpi, *g.mpi, color, key, node_->rank, members,
                                      WaitDescription{"split", -1, -1, 0, g.id});
    Comm result;
    result.node_ = node_;
    if (channels == nullptr) return result;  // invalid, but its errors can name the node
    auto ng = std::make_shared<detail::CommGroup>();
    ng->id = id;
    ng->machine = &m;
    ng->mpi = std::move(channels);
    ng->world = std::move(members);
    for (int i = 0; i < static_cast<int>(ng->world.size()); ++i) ng->rank_of[ng->world[i]] = i;
    ng->describe_members();
    const int mine = ng->rank_of.at(node_->rank);
    return Comm(node_, std::move(ng), mine);
  }
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
        ng->local_members = static_cast<int>(members.size());
        for (int i = 0; i < static_cast<int>(members.size()); ++i) {
          int w = g.world[members[i]];
          ng->world.push_back(w);
          ng->rank_of[w] = i;
          call->result[members[i]] = ng;
          call->new_rank[members[i]] = i;
        }
        ng->describe_members();
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

// A signature as text and back, to send it over MPI (fields apart by a unit separator).
std::string encode_signature(const CallSignature& s) {
  const char sep = '\x1f';
  return s.operation + sep + s.op + sep + std::to_string(s.root) + sep + std::to_string(s.count) +
         sep + std::to_string(s.item_size) + sep + (s.check_count ? "1" : "0") + sep +
         std::to_string(s.layout) + sep + s.algorithm;
}
CallSignature decode_signature(const std::string& text) {
  std::vector<std::string> f(1);
  for (char ch : text) {
    if (ch == '\x1f') {
      f.emplace_back();
    } else {
      f.back() += ch;
    }
  }
  CallSignature s;
  if (f.size() != 8) return s;  // cannot happen: every member encodes alike
  s.operation = f[0];
  s.op = f[1];
  s.root = std::stoi(f[2]);
  s.count = std::stoull(f[3]);
  s.item_size = std::stoull(f[4]);
  s.check_count = f[5] == "1";
  s.layout = std::stoull(f[6]);
  s.algorithm = f[7];
  return s;
}

}  // namespace

detail::MpiNetwork* Comm::mpi_checked_send(std::size_t bytes, std::size_t items, int dest,
                                           Tag tag, const char* op) const {
  detail::MpiNetwork* net = group(op).machine->mpi;
  if (net == nullptr) return nullptr;
  check_peer(*this, op, "to", dest, tag);
  check_send_size(*this, op, dest, tag, bytes, items);
  if (bytes > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    fail(*this, describe_call(op, "to", dest, tag),
         "message of " + std::to_string(bytes) + " bytes is larger than one MPI transfer of " +
             "bytes holds (2^31 - 1)");
  }
  if (group_->world[dest] == node_->rank && !node_->machine->config.allow_self_messages) {
    fail(*this, describe_call(op, "to", dest, tag),
         "a node may not send to itself (copy locally, or set allow_self_messages)");
  }
  return net;
}

detail::MpiNetwork* Comm::mpi_checked_recv(int source, Tag tag, const char* op) const {
  detail::MpiNetwork* net = group(op).machine->mpi;
  if (net == nullptr) return nullptr;
  check_peer(*this, op, "from", source, tag);
  if (group_->world[source] == node_->rank && !node_->machine->config.allow_self_messages) {
    fail(*this, describe_call(op, "from", source, tag),
         "a node may not receive from itself (set allow_self_messages)");
  }
  return net;
}

namespace {
}  // namespace

Tag Comm::begin_collective(const CallSignature& sig) const {
  group(sig.operation.c_str());
  check_abort(*node_);
  detail::CommGroup& g = *group_;
  const std::uint64_t seq = next_seq(node_->collective_seq, g.id);
  std::string mismatch;
  if (detail::MachineImpl& m = *node_->machine; m.mpi != nullptr) {
    // Over MPI the members compare their calls with rank 0's, sent to them (one broadcast).
    if (m.config.check_calls) {
      const std::string first = detail::mpi_agree(*m.mpi, *g.mpi, encode_signature(sig),
                                                  WaitDescription{"collective", -1, -1, 0, g.id});
      mismatch =
          compare_signatures(sig, decode_signature(first), seq, rank_, node_->rank, 0, g.world[0]);
    }
  } else {
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
    if (++call.seen == g.local_members) g.signatures.erase(it);
  }
  if (!mismatch.empty()) fail(*this, sig.operation, mismatch);
  return kCollectiveTagBase + static_cast<Tag>(seq << kCollectiveTagBits);
}

}  // namespace vmc
