// Comm: what every transport shares of a node's calls. Each call's arguments are checked
// here (ranks, tags, sizes, a receive buffer that overlaps a transfer in flight, a node sending
// to itself), nonblocking requests are kept here (the request table, completion, the check
// that an isend's buffer did not change), and every error names the node and the call; the
// transfers themselves are the transport's (runtime/transport.hpp).
#include <algorithm>
#include <cstring>
#include <limits>
#include <thread>
#include <utility>

#include "runtime/machine_impl.hpp"
#include "runtime/transport.hpp"

namespace vmc {

using detail::Incoming;
using detail::NodeState;
using detail::Outgoing;
using detail::Received;
using detail::WaitDescription;
using detail::kCollectiveTagBase;

namespace {

// The largest payload vmc accepts in one message: anything above is a bug in the caller.
constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 36;  // 64 GiB

detail::Transport& transport_of(const NodeState& n) { return *n.machine->transport; }

// Schedule perturbation (MachineConfig::perturb_seed): a random pause before a call.
void perturb(NodeState& n) {
  const MachineConfig& c = n.machine->config;
  if (c.perturb_seed == 0) return;
  // splitmix64: small, fast and good enough to scatter pauses.
  std::uint64_t z = (n.perturb_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  if ((z & 3) == 0) return;  // a quarter of the calls go straight on
  if ((z & 3) == 1) {
    transport_of(n).pause(n, 0);  // lets the others run
    return;
  }
  const double fraction = static_cast<double>(z >> 11) / 9007199254740992.0;  // [0, 1)
  transport_of(n).pause(n, fraction * c.perturb_max_seconds);
}

// A node given a failure (MachineConfig::failures) stops at its first call at or after its
// time: the time is the simulation's answer, so only such a node asks for it.
void check_failure(NodeState& n) {
  const Picos t = transport_of(n).now(n, WaitDescription{"the failure check"});
  if (t < n.fail_at) return;
  n.fail_at = detail::kNoFailure;
  n.stop_time = t;
  throw detail::NodeStopped{};
}

void check_abort(NodeState& n) {
  perturb(n);
  if (n.machine->abort.load(std::memory_order_acquire)) throw detail::RunAborted{};
  if (n.fail_at != detail::kNoFailure) [[unlikely]] check_failure(n);
}

}  // namespace

void Comm::invalid_comm(std::string_view call) const {
  throw UsageError(who() + ": " + std::string(call) +
                   ": called on an invalid Comm (default-constructed, or the result of split "
                   "with a negative colour on a node that joined no group)");
}

int Comm::size() const { return static_cast<int>(group("size").world.size()); }
int Comm::world_rank(int r) const { return group("world_rank").world.at(r); }
int Comm::comm_rank(int w) const { return group("comm_rank").comm_rank(w); }
std::span<const int> Comm::members() const { return group("members").world; }
bool Comm::whole_machine() const { return group("whole_machine").whole; }
std::uint64_t Comm::members_hash() const { return group("members_hash").world_hash; }

std::uint32_t Comm::id() const { return group("id").id; }
namespace detail {

struct WeightedCosts {
  std::uint32_t weight;
  Model model;
  Model steady_model;  // steady(model)
  CostUnits units;
};

}  // namespace detail

const Model& Comm::model() const {
  const detail::CommGroup& g = group("model");
  return weighted_ ? weighted_->model : g.machine->config.model;
}
const Model& Comm::steady_model() const {
  const detail::CommGroup& g = group("steady_model");
  return weighted_ ? weighted_->steady_model : g.machine->steady_model;
}
const CostUnits& Comm::units() const {
  const detail::CommGroup& g = group("units");
  return weighted_ ? weighted_->units : g.machine->units;
}
std::size_t Comm::weight() const { return weighted_ ? weighted_->weight : 1; }
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
  return detail::member_name(node_->rank, rank_, group_->id);
}

// The node's own count (NodeState::collective_depth), not its thread's: fibers of several
// nodes take turns on one worker thread, each inside its own calls.
Comm::CollectiveScope::CollectiveScope(const Comm& comm) : node_(comm.node_) {
  ++node_->collective_depth;
}
Comm::CollectiveScope::~CollectiveScope() { --node_->collective_depth; }

namespace {

[[noreturn]] void fail(const Comm& c, const std::string& call, const std::string& problem) {
  throw UsageError(c.who() + ": " + call + ": " + problem);
}

std::string describe_call(const char* op, const char* dir, int peer, Tag tag) {
  const bool receive = dir == std::string("from");
  std::string s = std::string(op) + " " + dir +
                  (receive && peer == kAnySource ? std::string(" any rank")
                                                 : " rank " + std::to_string(peer));
  return s + " " + (receive || tag != kAnyTag ? tag_text(tag) : "tag -1");
}

// The rules check_peer holds a call to (one statement of each, for its inline test and its
// report). A peer is a rank of the comm's size; a tag is not negative, and above the user
// range only inside a collective call, in the collectives' range: a user message with such a
// tag could be taken by a collective (or take one of its messages).
bool peer_in_range(int peer, int size) { return peer >= 0 && peer < size; }
bool tag_allowed(Tag tag, bool in_collective) {
  return tag >= 0 && (tag <= kMaxUserTag || (in_collective && tag >= kCollectiveTagBase));
}

// check_peer's report of a call it refuses (out of line: made only then).
[[noreturn, gnu::cold]] void refuse_peer(const Comm& c, int size, const char* op, const char* dir,
                              int peer, Tag tag) {
  const std::string call = describe_call(op, dir, peer, tag);
  if (!peer_in_range(peer, size)) {
    fail(c, call, "rank out of range (comm has " + std::to_string(size) + " ranks)");
  }
  if (tag < 0) fail(c, call, "tag is negative");
  fail(c, call,
       "tag is above the largest user tag " + std::to_string(kMaxUserTag) +
           " (tags above it are reserved for collective calls)");
}

// in_collective: the calling node is inside a collective call (CollectiveScope).
// `g` is c's group (the caller has it: no second look). Inline: every send and receive makes
// the test, and a call's frame and arguments cost more than the test itself.
inline void check_peer(const Comm& c, const detail::CommGroup& g, const char* op,
                       const char* dir, int peer, Tag tag, bool in_collective,
                       bool wildcards = false) {
  if (wildcards && peer == kAnySource) peer = 0;  // checked: any rank
  if (wildcards && tag == kAnyTag) tag = 0;
  const auto size = static_cast<int>(g.world.size());
  if (peer_in_range(peer, size) && tag_allowed(tag, in_collective)) [[likely]] return;
  refuse_peer(c, size, op, dir, peer, tag);
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

// The calling node's call that failed because of a failure on purpose (a.failed or a.link
// set): noted for the run's report with the call's context and the node's time when it
// returns. Returns the call as the error names it.
std::string note_failed_call(FailureReport::Affected a, const std::string& call) {
  NodeState& n = *detail::current_node;
  a.node = n.rank;
  a.call = call;
  {
    std::lock_guard lock(n.wait_mutex);
    const std::string context = n.context_text();
    if (!context.empty()) a.call += " in " + context;
  }
  a.at_ps = transport_of(n).now(n, WaitDescription{"the failure's report"});
  n.affected.push_back(a);
  return a.call;
}

// A call that needed node `failed`, which has stopped (MachineConfig::failures): noted and
// thrown.
[[noreturn]] void source_failed(const Comm& c, const detail::CommGroup& g, const std::string& call,
                                int failed, const std::string& problem) {
  const std::string named = note_failed_call({.failed = failed}, call);
  throw NodeFailedError(c.who() + ": " + named + ": " + problem, failed, g.comm_rank(failed));
}

// A probe (probe, iprobe, mprobe, improbe) from `source` that a failed node it needed made
// fail: from that node, or from any source, the first member of the comm to stop.
[[noreturn]] void probe_failed(const Comm& c, const detail::CommGroup& g, const char* call,
                               int source, Tag tag, int failed) {
  const detail::Needed needed =
      source == kAnySource ? detail::Needed::any_receive : detail::Needed::receive;
  source_failed(c, g, describe_call(call, "from", source, tag), failed,
                transport_of(*detail::current_node).failed_problem(failed, needed));
}

// A communicator constructor (split, create_group) that a member never reached, having
// stopped.
[[noreturn]] void constructor_failed(const Comm& c, const detail::CommGroup& g, const char* call,
                                     int failed) {
  source_failed(c, g, call, failed,
                transport_of(*detail::current_node)
                    .failed_problem(failed, detail::Needed::constructor));
}

// A call whose message failed link `link` lost (MachineConfig::link_failures): a receive that
// took it, or a synchronous send whose receive matched it. Noted and thrown; `peer` is the
// message's other end (world rank).
[[noreturn]] void message_lost(const Comm& c, const detail::CommGroup& g, const std::string& call,
                               int link, int peer) {
  const LinkFailure& f =
      detail::current_node->machine->config.link_failures.at(static_cast<std::size_t>(link));
  const std::string named = note_failed_call({.link = link}, call);
  throw LinkFailedError(c.who() + ": " + named + ": the message was lost on " + link_name(f) +
                            ", down since " + format_duration(f.at),
                        f.a, f.b, peer, g.comm_rank(peer));
}

// A problem the transport found with a receive: the error names the node and the call (a
// TruncationError when the message did not fit, naming its sender in the comm's ranks; a
// NodeFailedError when its source had failed; a LinkFailedError when a failed link lost it).
void check_received(const Comm& c, const detail::CommGroup& g, const char* op, int source,
                    Tag tag, const Received& got) {
  if (got.lost_link >= 0) {
    message_lost(c, g, describe_call(op, "from", source, tag), got.lost_link, got.src);
  }
  if (got.problem.empty()) return;
  if (got.failed >= 0) {
    source_failed(c, g, describe_call(op, "from", source, tag), got.failed, got.problem);
  }
  const std::string text = c.who() + ": " + describe_call(op, "from", source, tag) + ": " +
                           got.problem;
  if (got.truncated) {
    throw TruncationError(text, got.src >= 0 ? g.comm_rank(got.src) : source,
                          got.src >= 0 ? got.tag : tag, got.bytes);
  }
  throw UsageError(text);
}

}  // namespace

Outgoing Comm::outgoing(const void* data, std::size_t bytes, std::size_t items, int dest, Tag tag,
                        const char* op) const {
  const detail::CommGroup& g = group(op);
  check_peer(*this, g, op, "to", dest, tag, node_->collective_depth > 0);
  if (weighted_) items *= weighted_->weight;
  check_send_size(*this, op, dest, tag, bytes, items);
  check_abort(*node_);
  const int dst = g.world[dest];
  if (dst == node_->rank && !node_->machine->config.allow_self_messages) {
    fail(*this, describe_call(op, "to", dest, tag),
         "a node may not send to itself (copy locally, or set allow_self_messages)");
  }
  Outgoing out{g, dest, dst, tag, data, bytes, items, op};
  const std::string refused = transport_of(*node_).refuses(*node_, out);
  if (!refused.empty()) fail(*this, describe_call(op, "to", dest, tag), refused);
  return out;
}

Incoming Comm::incoming(void* data, std::size_t capacity_bytes, std::size_t item_size, int source,
                        Tag tag, const char* op) const {
  const detail::CommGroup& g = group(op);
  check_peer(*this, g, op, "from", source, tag, node_->collective_depth > 0, true);
  check_receive_buffer(data, capacity_bytes, op, source, tag);
  check_abort(*node_);
  const bool wild = source == kAnySource || tag == kAnyTag;
  if (wild) {
    if (const char* refused = transport_of(*node_).unsupported(detail::Call::wildcard)) {
      fail(*this, describe_call(op, "from", source, tag), refused);
    }
  }
  const int src = source == kAnySource ? kAnySource : g.world[source];
  if (src == node_->rank && !node_->machine->config.allow_self_messages) {
    fail(*this, describe_call(op, "from", source, tag),
         "a node may not receive from itself (set allow_self_messages)");
  }
  return Incoming{g, source, src, tag, data, capacity_bytes, item_size, op};
}

void Comm::send_raw(const void* data, std::size_t bytes, std::size_t items, int dest, Tag tag,
                    SendMode mode) const {
  Outgoing out = outgoing(data, bytes, items, dest, tag, "send");
  out.synchronous = mode == SendMode::synchronous;
  transport_of(*node_).send(*node_, out);
  if (mode == SendMode::synchronous && node_->sync_lost_link >= 0) [[unlikely]] {
    // A synchronous send learns of the loss when its receive matched the marker.
    message_lost(*this, *group_, describe_call("send", "to", dest, tag),
                 std::exchange(node_->sync_lost_link, -1), out.dst);
  }
  if (node_->sync_failed_node >= 0) [[unlikely]] {
    // Its receiver stopped before a receive took the message (docs/model.md, "Failed nodes"):
    // a synchronous send, or any under rendezvous.
    const int failed = std::exchange(node_->sync_failed_node, -1);
    source_failed(*this, *group_, describe_call("send", "to", dest, tag), failed,
                  transport_of(*node_).failed_problem(failed, detail::Needed::send));
  }
}

namespace {

// What a receive took, in the comm's ranks.
void set_status(const detail::CommGroup& g, Status* status, int src_world, Tag tag,
                std::size_t bytes, std::size_t items, bool cancelled = false) {
  if (status == nullptr) return;
  status->source = g.comm_rank(src_world);
  status->tag = tag;
  status->bytes = bytes;
  status->items = items;
  status->cancelled = cancelled;
}

}  // namespace

std::size_t Comm::recv_raw(void* data, std::size_t capacity_bytes, std::size_t item_size,
                           int source, Tag tag, Status* status) const {
  const Incoming in = incoming(data, capacity_bytes, item_size, source, tag, "recv");
  const Received got = transport_of(*node_).recv(*node_, in);
  check_received(*this, *group_, "recv", source, tag, got);
  // A transport that does not say what it took took what was asked for.
  set_status(*group_, status, got.src >= 0 ? got.src : in.src, got.src >= 0 ? got.tag : tag,
             got.bytes, got.items);
  return got.bytes;
}

std::size_t Comm::sendrecv_raw(const void* out_data, std::size_t out_bytes,
                               std::size_t out_items, int dest, void* in_data,
                               std::size_t in_capacity_bytes, std::size_t in_item_size,
                               int source, Tag tag) const {
  return sendrecv_raw(out_data, out_bytes, out_items, dest, tag, in_data, in_capacity_bytes,
                      in_item_size, source, tag, nullptr);
}

std::size_t Comm::sendrecv_raw(const void* out_data, std::size_t out_bytes,
                               std::size_t out_items, int dest, Tag send_tag, void* in_data,
                               std::size_t in_capacity_bytes, std::size_t in_item_size,
                               int source, Tag recv_tag, Status* status) const {
  const Incoming in =
      incoming(in_data, in_capacity_bytes, in_item_size, source, recv_tag, "sendrecv");
  const Outgoing out = outgoing(out_data, out_bytes, out_items, dest, send_tag, "sendrecv");
  const Received got = transport_of(*node_).sendrecv(*node_, out, in);
  check_received(*this, *group_, "sendrecv", source, recv_tag, got);
  if (node_->sync_failed_node >= 0) [[unlikely]] {
    // Under rendezvous: its send's receiver stopped before it posted the receive.
    const int failed = std::exchange(node_->sync_failed_node, -1);
    source_failed(*this, *group_, describe_call("sendrecv", "to", dest, send_tag), failed,
                  transport_of(*node_).failed_problem(failed, detail::Needed::send));
  }
  set_status(*group_, status, got.src >= 0 ? got.src : in.src,
             got.src >= 0 ? got.tag : recv_tag, got.bytes, got.items);
  return got.bytes;
}

// --- nonblocking point to point ---------------------------------------------------------

namespace {

// A hash of a buffer, to tell whether an isend's buffer changed while it was in flight: per
// lane of 8-byte words, Fletcher's two sums (of the words, and of the running sums, which
// weighs each word by its place), then the lanes' sums mixed. Additions only, in independent
// lanes the compiler vectorises: a chain of multiplications over every word hashed about 1.3
// bytes per cycle, slower than copying the message, and a 1 MiB broadcast on 256 nodes spent
// a third of its time there. A change of one word changes its lane's first sum; changes that
// cancel in both sums need differences that are multiples of 2^63. The lanes are held two to
// a 16-byte vector (GCC's and Clang's vector extension): left to itself the compiler
// vectorised one pair and kept six lanes in scalar registers, 24 instructions per 64 bytes
// against 15 (a 1 MiB broadcast on 1,024 nodes hashes each isend's buffer twice).
std::uint64_t hash_bytes(const void* data, std::size_t bytes) {
  auto mix = [](std::uint64_t h, std::uint64_t w) {
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    return h ^ (h >> 32);
  };
  using Pair = std::uint64_t __attribute__((vector_size(16)));
  constexpr std::size_t kPairs = 4;  // 8 lanes: 64 bytes a step
  const auto* p = static_cast<const unsigned char*>(data);
  Pair sum[kPairs] = {}, weighted[kPairs] = {};
  std::size_t i = 0;
  for (; i + 16 * kPairs <= bytes; i += 16 * kPairs) {
    for (std::size_t k = 0; k < kPairs; ++k) {
      Pair w;
      std::memcpy(&w, p + i + 16 * k, 16);
      sum[k] += w;
      weighted[k] += sum[k];
    }
  }
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ bytes;
  for (std::size_t k = 0; k < 2 * kPairs; ++k) {
    h = mix(mix(h, sum[k / 2][k % 2]), weighted[k / 2][k % 2]);
  }
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = mix(h, w);
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h ^ (h >> 29);
}

}  // namespace

// A buffer's hash_bytes, kept to be used again for the same buffer within one call (no user
// code runs in between to change it).
struct detail::BufferHash {
  const void* data = nullptr;
  std::size_t bytes = 0;
  std::uint64_t hash = 0;
  bool made = false;
  std::uint64_t of(const void* d, std::size_t n) {
    if (!made || d != data || n != bytes) *this = {d, n, hash_bytes(d, n), true};
    return hash;
  }
};

namespace {

bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

std::string describe_request(const detail::RequestState& r) {
  return describe_call(r.send ? "isend" : "irecv", r.send ? "to" : "from", r.peer, r.tag);
}

}  // namespace

namespace {
// The index of the node's first request that may be open or still in use (every one below it
// is retired, its transfer over), and the requests below it are let go of: the table keeps
// only what is in flight however many a run posts.
std::size_t first_open(detail::NodeState& n) {
  auto done_with = [](const detail::RequestState& r) {
    return r.retired && !r.freed && r.held == nullptr;
  };
  while (n.first_open < n.requests.size() && done_with(n.requests[n.first_open])) ++n.first_open;
  n.requests.release_below(n.first_open);
  return n.first_open;
}

// A new request's entry (its id: the table's size before), once the table has let go of the
// requests the node is done with.
detail::RequestState& new_request(detail::NodeState& n) {
  first_open(n);
  return n.requests.emplace_back();
}
}  // namespace

void Comm::check_receive_buffer(const void* data, std::size_t bytes, const char* op, int source,
                                Tag tag) const {
  if (node_->open_requests == 0) return;
  const std::size_t open = first_open(*node_);
  const detail::OpenBuffers& in_flight = node_->open_buffers;
  if (!in_flight.receive_overlaps(data, bytes) && !in_flight.send_overlaps(data, bytes)) return;
  // It overlaps one: the first such request in posting order, as the error names it.
  const std::string call = describe_call(op, "from", source, tag);
  for (std::size_t i = open; i < node_->requests.size(); ++i) {
    const detail::RequestState& r = node_->requests[i];
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
                        Tag tag, SendMode mode) const {
  detail::BufferHash hashed;
  return post_isend(data, bytes, items, dest, tag, mode, hashed);
}

void Comm::isend_raw_each(const void* data, std::size_t bytes, std::size_t items,
                          std::span<const int> dests, Tag tag, SendMode mode,
                          std::span<Request> out) const {
  detail::BufferHash hashed;
  for (std::size_t k = 0; k < dests.size(); ++k) {
    out[k] = post_isend(data, bytes, items, dests[k], tag, mode, hashed);
  }
}

Request Comm::post_isend(const void* data, std::size_t bytes, std::size_t items, int dest,
                         Tag tag, SendMode mode, detail::BufferHash& hashed) const {
  Outgoing out = outgoing(data, bytes, items, dest, tag, "isend");
  out.synchronous = mode == SendMode::synchronous;
  out.lent = mode == SendMode::lent;
  if (node_->open_buffers.receive_overlaps(data, bytes)) {
    // The first such receive in posting order, as the error names it.
    for (std::size_t i = first_open(*node_); i < node_->requests.size(); ++i) {
      const detail::RequestState& r = node_->requests[i];
      if (!r.retired && !r.send && overlap(data, bytes, r.buffer, r.capacity)) {
        fail(*this, describe_call("isend", "to", dest, tag),
             "its buffer overlaps that of " + describe_request(r) +
                 ", still in flight (wait for it first)");
      }
    }
  }
  const auto id = static_cast<std::uint32_t>(node_->requests.size());
  detail::RequestState& r = new_request(*node_);
  r.send = true;
  r.comm = group_->id;
  r.peer = dest;
  r.peer_world = out.dst;
  r.tag = tag;
  r.send_buffer = data;
  r.send_bytes = bytes;
  if (moves_data()) r.send_hash = hashed.of(data, bytes);
  ++node_->open_requests;
  node_->open_buffers.add(r, data, bytes);
  transport_of(*node_).isend(*node_, id, out);
  return Request(node_, id, node_->machine->runs);
}

Request Comm::irecv_raw(void* data, std::size_t capacity_bytes, std::size_t item_size,
                        int source, Tag tag) const {
  const Incoming in = incoming(data, capacity_bytes, item_size, source, tag, "irecv");
  const auto id = static_cast<std::uint32_t>(node_->requests.size());
  detail::RequestState& r = new_request(*node_);
  r.comm = group_->id;
  r.peer = source;
  r.peer_world = in.src;
  r.tag = tag;
  r.buffer = data;
  r.capacity = capacity_bytes;
  r.item_size = item_size;
  ++node_->open_requests;
  node_->open_buffers.add(r, data, capacity_bytes);
  transport_of(*node_).irecv(*node_, id, in);
  return Request(node_, id, node_->machine->runs);
}

void Comm::withdraw(std::span<const Request> reqs) const noexcept {
  detail::Transport& t = transport_of(*node_);
  for (const Request& req : reqs) {
    if (req.null() || req.node_ != node_ || req.run_ != node_->machine->runs ||
        !node_->requests.held(req.id_)) {
      continue;
    }
    detail::RequestState& r = node_->requests[req.id_];
    if (r.send && !r.retired) t.withdrawn(*node_, r);
  }
}

std::size_t Comm::requests_kept() const {
  group("requests_kept");
  first_open(*node_);
  return node_->requests.kept();
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
  // Completed already: still in the table (retired), or let go of with the others below the
  // node's oldest open request, when only its id is left to name it.
  const bool released = !node_->requests.held(req.id_);
  if (released || node_->requests[req.id_].retired) {
    const std::string what =
        released ? std::string("the request") : describe_request(node_->requests[req.id_]);
    fail(*this, call, what + " was already completed (by wait, wait_any or test through another "
                             "copy of its handle): a request is completed once");
  }
  return node_->requests[req.id_];
}

void Comm::await_arrival(detail::RequestState& r) const {
  detail::Transport& t = transport_of(*node_);
  if (!t.arrived(*node_, r)) {
    t.block(*node_, [&] { return t.arrived(*node_, r); },
            WaitDescription{r.send ? "wait for isend" : "wait for irecv", r.send ? -1 : r.peer,
                            r.peer_world, r.tag, r.comm});
  }
}

void Comm::status_of(const detail::RequestState& r, Status* status) const {
  if (status == nullptr) return;
  if (r.send) {
    *status = Status{r.peer, r.tag, 0, 0, false};
  } else if (r.cancelled) {
    set_status(*group_, status, -1, r.tag, 0, 0, true);
    status->source = r.peer;
  } else if (r.matched_src >= 0) {
    set_status(*group_, status, r.matched_src, r.matched_tag, r.received, r.matched_items);
  } else {
    set_status(*group_, status, r.peer_world, r.tag, r.received, r.received / r.item_size);
  }
}

std::size_t Comm::finish_request(detail::RequestState& r, Status* status,
                                 detail::BufferHash* hashed) const {
  detail::Transport& t = transport_of(*node_);
  await_arrival(r);
  r.retired = true;
  --node_->open_requests;
  node_->open_buffers.remove(r);
  t.completed(*node_, r);
  if (r.send) {
    detail::BufferHash once;
    if (moves_data() &&
        (hashed != nullptr ? hashed : &once)->of(r.send_buffer, r.send_bytes) != r.send_hash) {
      fail(*this, describe_request(r),
           "its buffer changed while the transfer was in flight (between isend and the wait "
           "or test that completed it)");
    }
    if (r.lost_link >= 0) {
      message_lost(*this, *group_, describe_request(r), r.lost_link, r.peer_world);
    }
    if (r.failed >= 0) source_failed(*this, *group_, describe_request(r), r.failed, r.error);
    status_of(r, status);
    return 0;
  }
  if (r.lost_link >= 0) {
    message_lost(*this, *group_, describe_request(r), r.lost_link, r.matched_src);
  }
  if (r.failed >= 0) source_failed(*this, *group_, describe_request(r), r.failed, r.error);
  if (!r.error.empty()) {
    const std::string text = who() + ": " + describe_request(r) + ": " + r.error;
    if (r.truncated) {
      throw TruncationError(text, group_->comm_rank(r.matched_src), r.matched_tag, r.received);
    }
    throw UsageError(text);
  }
  status_of(r, status);
  return r.cancelled ? 0 : r.received / r.item_size;
}

std::size_t Comm::wait(Request& req) const { return wait(req, nullptr); }

std::size_t Comm::wait(Request& req, Status* status) const {
  detail::RequestState& r = request_state(req, "wait");
  check_matched_has_buffer(r, "wait");
  check_abort(*node_);
  transport_of(*node_).waits(*node_, std::span<const std::uint32_t>(&req.id_, 1));
  const std::size_t items = finish_request(r, status);
  req = Request();
  return items;
}

std::vector<std::uint32_t> Comm::request_ids(std::span<const Request> reqs, const char* call,
                                             std::vector<std::size_t>* at) const {
  group(call);
  std::vector<std::uint32_t> ids;
  ids.reserve(reqs.size());
  std::uint32_t highest = 0;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].null()) continue;
    check_matched_has_buffer(request_state(reqs[i], call), call);
    // An id above every one before it is none of them: only the others are looked for (a
    // list posted in order has its ids rising, and a batch of k looked k^2 / 2 times).
    if (!ids.empty() && reqs[i].id_ <= highest &&
        std::find(ids.begin(), ids.end(), reqs[i].id_) != ids.end()) {
      fail(*this, call, "the list holds one request twice");
    }
    highest = std::max(highest, reqs[i].id_);
    ids.push_back(reqs[i].id_);
    if (at != nullptr) at->push_back(i);
  }
  return ids;
}

void Comm::check_matched_has_buffer(const detail::RequestState& r, const char* call) const {
  if (r.matched_only) {
    fail(*this, call,
         "the request stands for a message taken by mprobe or improbe: receive it with "
         "mrecv first");
  }
}

std::vector<std::size_t> Comm::wait_all(std::span<Request> reqs) const {
  return wait_all(reqs, {});
}

std::vector<std::size_t> Comm::wait_all(std::span<Request> reqs,
                                        std::span<Status> statuses) const {
  const std::vector<std::uint32_t> ids = request_ids(reqs, "wait_all", nullptr);
  check_abort(*node_);
  if (!ids.empty()) transport_of(*node_).waits(*node_, ids);
  std::vector<std::size_t> items(reqs.size(), 0);
  detail::BufferHash hashed;  // isends of one buffer in a row hash it once
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i].null()) continue;
    items[i] = finish_request(node_->requests[reqs[i].id_],
                              i < statuses.size() ? &statuses[i] : nullptr, &hashed);
    reqs[i] = Request();
  }
  return items;
}

std::size_t Comm::wait_any(std::span<Request> reqs) const { return wait_any(reqs, nullptr); }

std::size_t Comm::wait_any(std::span<Request> reqs, Status* status) const {
  std::vector<std::size_t> at;  // index in reqs of each id
  const std::vector<std::uint32_t> ids = request_ids(reqs, "wait_any", &at);
  check_abort(*node_);
  if (ids.empty()) return kNoRequest;
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::wait_any)) fail(*this, "wait_any", refused);
  const std::size_t chosen =
      t.wait_any(*node_, ids, WaitDescription{"wait_any", -1, -1, 0, group_->id});
  finish_request(node_->requests[ids[chosen]], status);
  reqs[at[chosen]] = Request();
  return at[chosen];
}

std::vector<std::size_t> Comm::wait_some(std::span<Request> reqs,
                                         std::span<Status> statuses) const {
  std::vector<std::size_t> at;
  const std::vector<std::uint32_t> ids = request_ids(reqs, "wait_some", &at);
  check_abort(*node_);
  std::vector<std::size_t> done;
  if (ids.empty()) return done;
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::wait_any)) fail(*this, "wait_some", refused);
  // The first to complete, then every other one complete by then.
  const std::size_t first =
      t.wait_any(*node_, ids, WaitDescription{"wait_some", -1, -1, 0, group_->id});
  std::vector<std::uint32_t> rest;
  std::vector<std::size_t> rest_at;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (k == first) continue;
    rest.push_back(ids[k]);
    rest_at.push_back(at[k]);
  }
  std::vector<std::int64_t> keys;
  if (!rest.empty()) {
    keys = t.test_list(*node_, rest, false, WaitDescription{"wait_some", -1, -1, 0, group_->id});
  }
  std::vector<std::size_t> chosen{at[first]};
  for (std::size_t k = 0; k < rest.size(); ++k) {
    if (keys[k] >= 0) chosen.push_back(rest_at[k]);
  }
  std::sort(chosen.begin(), chosen.end());
  finish_listed(reqs, statuses, chosen);
  return chosen;
}

void Comm::finish_listed(std::span<Request> reqs, std::span<Status> statuses,
                         std::span<const std::size_t> chosen) const {
  detail::BufferHash hashed;  // isends of one buffer in a row hash it once
  for (std::size_t i : chosen) {
    finish_request(node_->requests[reqs[i].id_], i < statuses.size() ? &statuses[i] : nullptr,
                   &hashed);
    reqs[i] = Request();
  }
}

bool Comm::test(Request& req, std::size_t* items) const { return test(req, items, nullptr); }

bool Comm::test(Request& req, std::size_t* items, Status* status) const {
  detail::RequestState& r = request_state(req, "test");
  check_matched_has_buffer(r, "test");
  check_abort(*node_);
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::test)) fail(*this, "test", refused);
  if (!t.test(*node_, req.id_, WaitDescription{"test", -1, -1, 0, group_->id})) return false;
  const std::size_t got = finish_request(r, status);
  if (items != nullptr) *items = got;
  req = Request();
  return true;
}

std::vector<std::int64_t> Comm::test_keys(std::span<const std::uint32_t> ids, bool all,
                                          const char* call) const {
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::test)) fail(*this, call, refused);
  return t.test_list(*node_, ids, all, WaitDescription{call, -1, -1, 0, group_->id});
}

bool Comm::test_any(std::span<Request> reqs, std::size_t& index, Status* status) const {
  std::vector<std::size_t> at;
  const std::vector<std::uint32_t> ids = request_ids(reqs, "test_any", &at);
  check_abort(*node_);
  index = kNoRequest;
  if (ids.empty()) return true;
  const std::vector<std::int64_t> keys = test_keys(ids, false, "test_any");
  std::size_t best = ids.size();
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (keys[k] >= 0 && (best == ids.size() || keys[k] < keys[best])) best = k;
  }
  if (best == ids.size()) return false;
  finish_request(node_->requests[ids[best]], status);
  reqs[at[best]] = Request();
  index = at[best];
  return true;
}

std::vector<std::size_t> Comm::test_some(std::span<Request> reqs,
                                         std::span<Status> statuses) const {
  std::vector<std::size_t> at;
  const std::vector<std::uint32_t> ids = request_ids(reqs, "test_some", &at);
  check_abort(*node_);
  std::vector<std::size_t> done;
  if (ids.empty()) return done;
  const std::vector<std::int64_t> keys = test_keys(ids, false, "test_some");
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (keys[k] >= 0) done.push_back(at[k]);
  }
  finish_listed(reqs, statuses, done);
  return done;
}

bool Comm::test_all(std::span<Request> reqs, std::span<Status> statuses) const {
  std::vector<std::size_t> at;
  const std::vector<std::uint32_t> ids = request_ids(reqs, "test_all", &at);
  check_abort(*node_);
  if (ids.empty()) return true;
  const std::vector<std::int64_t> keys = test_keys(ids, true, "test_all");
  for (std::int64_t k : keys) {
    if (k < 0) return false;
  }
  finish_listed(reqs, statuses, at);
  return true;
}

bool Comm::completed(const Request& req, Status* status) const {
  detail::RequestState& r = request_state(req, "completed");
  check_matched_has_buffer(r, "completed");
  check_abort(*node_);
  const std::vector<std::int64_t> keys =
      test_keys(std::span<const std::uint32_t>(&req.id_, 1), false, "completed");
  if (keys[0] < 0) return false;
  await_arrival(r);
  status_of(r, status);
  return true;
}

void Comm::free(Request& req) const {
  detail::RequestState& r = request_state(req, "free");
  check_abort(*node_);
  // Nobody completes it any more: it no longer counts as open, and its transfer goes on.
  r.retired = true;
  r.freed = true;
  --node_->open_requests;
  node_->open_buffers.remove(r);
  req = Request();
}

bool Comm::cancel(Request& req) const {
  detail::RequestState& r = request_state(req, "cancel");
  check_abort(*node_);
  // A send is never withdrawn; nor a message mprobe took.
  if (r.send || r.cancelled || r.matched_only || r.held != nullptr) return false;
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::cancel)) fail(*this, "cancel", refused);
  return t.cancel(*node_, req.id_,
                  WaitDescription{"cancel", r.peer, r.peer_world, r.tag, group_->id});
}

bool Comm::iprobe(int source, Tag tag, Status* status) const {
  const Incoming in = incoming(nullptr, 0, 1, source, tag, "iprobe");
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::probe)) {
    fail(*this, describe_call("iprobe", "from", source, tag), refused);
  }
  const detail::Found f = t.probe(*node_, in, false, WaitDescription{"iprobe", source, in.src, tag, group_->id});
  if (f.failed >= 0) probe_failed(*this, *group_, "iprobe", source, tag, f.failed);
  if (f.found) set_status(*group_, status, f.src, f.tag, f.bytes, f.items);
  return f.found;
}

Status Comm::probe(int source, Tag tag) const {
  const Incoming in = incoming(nullptr, 0, 1, source, tag, "probe");
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::probe)) {
    fail(*this, describe_call("probe", "from", source, tag), refused);
  }
  const detail::Found f = t.probe(*node_, in, true, WaitDescription{"probe", source, in.src, tag, group_->id});
  if (f.failed >= 0) probe_failed(*this, *group_, "probe", source, tag, f.failed);
  Status status;
  set_status(*group_, &status, f.src, f.tag, f.bytes, f.items);
  return status;
}

Request Comm::matched_probe(int source, Tag tag, bool block, Status* status) const {
  const char* call = block ? "mprobe" : "improbe";
  const Incoming in = incoming(nullptr, 0, 1, source, tag, call);
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::probe)) {
    fail(*this, describe_call(call, "from", source, tag), refused);
  }
  const auto id = static_cast<std::uint32_t>(node_->requests.size());
  detail::RequestState& r = new_request(*node_);
  r.comm = group_->id;
  r.peer = source;
  r.peer_world = in.src;
  r.tag = tag;
  r.matched_only = true;
  ++node_->open_requests;
  const bool bound =
      t.match(*node_, id, in, block, WaitDescription{call, source, in.src, tag, group_->id});
  if (!bound || r.failed >= 0) {
    r.retired = true;
    --node_->open_requests;
    if (r.failed >= 0) probe_failed(*this, *group_, call, source, tag, r.failed);
    return Request();
  }
  const detail::Message* m = r.held;
  set_status(*group_, status, m->src, m->tag, m->bytes, m->items);
  r.peer = group_->comm_rank(m->src);
  r.peer_world = m->src;
  r.tag = m->tag;
  return Request(node_, id, node_->machine->runs);
}

Request Comm::mprobe(int source, Tag tag, Status* status) const {
  return matched_probe(source, tag, true, status);
}

bool Comm::improbe(int source, Tag tag, Request& message, Status* status) const {
  message = matched_probe(source, tag, false, status);
  return !message.null();
}

void Comm::mrecv_into(Request& message, void* data, std::size_t capacity_bytes,
                      std::size_t item_size) const {
  detail::RequestState& r = request_state(message, "mrecv");
  if (!r.matched_only) {
    fail(*this, "mrecv", "the request is not a message taken by mprobe or improbe, or it was "
                         "given a buffer already");
  }
  if (item_size == 0) fail(*this, "mrecv", "items of 0 bytes");
  check_receive_buffer(data, capacity_bytes, "mrecv", r.peer, r.tag);
  r.buffer = data;
  r.capacity = capacity_bytes;
  r.item_size = item_size;
  r.matched_only = false;
  node_->open_buffers.add(r, data, capacity_bytes);
}

double Comm::now() const {
  group("now");
  check_abort(*node_);
  return to_seconds(
      transport_of(*node_).now(*node_, WaitDescription{"now", -1, -1, 0, group_->id}));
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

// A slow node's local work takes its factor times as long (Model::slow), on every clock.
// Without slow nodes the charge pays one test of an empty list, no call.
void charge(NodeState& n, Picos duration, std::uint64_t items, Work kind) {
  check_abort(n);
  const Model& model = n.machine->config.model;
  if (!model.slow.empty()) duration = slowed(model, n.rank, duration);
  transport_of(n).charge(n, duration, items, kind);
}

}  // namespace

void Comm::charge_combine(std::size_t items) const {
  group("charge_combine");
  if (weighted_) items *= weighted_->weight;
  charge(*node_, node_->machine->units.combine(items), items, Work::combine);
}

void Comm::charge_rearrange(std::size_t items) const {
  group("charge_rearrange");
  if (weighted_) items *= weighted_->weight;
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

Comm Comm::split(int color, int key) const {
  group("split");
  check_abort(*node_);
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::split)) fail(*this, "split", refused);
  const std::uint64_t seq = node_->split_seq.next(group_->id);
  detail::SplitResult joined = t.split(*node_, *group_, rank_, seq, color, key);
  if (joined.failed >= 0) constructor_failed(*this, *group_, "split", joined.failed);
  Comm result;
  if (joined.group != nullptr) {
    result = Comm(node_, std::move(joined.group), joined.rank);
    result.weighted_ = weighted_;
  } else {
    result.node_ = node_;  // invalid, but its errors can name the node
  }
  return result;
}

Comm Comm::create_group(std::span<const int> members, std::int64_t tag) const {
  const detail::CommGroup& g = group("create_group");
  check_abort(*node_);
  int index = -1;
  std::vector<bool> seen(g.world.size(), false);
  for (int i = 0; i < static_cast<int>(members.size()); ++i) {
    const int r = members[i];
    if (r < 0 || r >= size()) {
      fail(*this, "create_group", "member " + std::to_string(r) +
                                      " is not a rank of this comm (it has " +
                                      std::to_string(size()) + " ranks)");
    }
    if (seen[r]) fail(*this, "create_group", "rank " + std::to_string(r) + " is listed twice");
    seen[r] = true;
    if (r == rank_) index = i;
  }
  if (index < 0) {
    fail(*this, "create_group", "the calling rank " + std::to_string(rank_) +
                                    " is not among the members");
  }
  detail::Transport& t = transport_of(*node_);
  if (const char* refused = t.unsupported(detail::Call::create_group)) {
    fail(*this, "create_group", refused);
  }
  const auto key = std::make_tuple(group_->id, hash_integers(members), tag);
  const std::uint64_t seq = node_->group_seq[key]++;
  detail::SplitResult made = t.create_group(*node_, *group_, members, index, seq, tag);
  if (made.failed >= 0) constructor_failed(*this, *group_, "create_group", made.failed);
  Comm result(node_, std::move(made.group), made.rank);
  result.weighted_ = weighted_;
  return result;
}

Comm Comm::weighted(std::size_t weight) const {
  const detail::CommGroup& g = group("weighted");
  if (weight == 0 || weight > std::numeric_limits<std::uint32_t>::max()) {
    fail(*this, "weighted", "weight " + std::to_string(weight) + " is not in 1..2^32-1");
  }
  Comm result = *this;
  result.weighted_.reset();
  if (weight > 1) {
    const CostUnits& u = g.machine->units;
    CostUnits w = u;
    w.beta = checked_mul(u.beta, weight, "weighted beta");
    w.beta_net = checked_mul(u.beta_net, weight, "weighted beta_net");
    w.gamma = checked_mul(u.gamma, weight, "weighted gamma");
    w.delta = checked_mul(u.delta, weight, "weighted delta");
    w.short_max_items = u.short_max_items / weight;
    Model model = weighted_model(g.machine->config.model, weight);
    Model steady_model = steady(model);
    result.weighted_ = std::make_shared<const detail::WeightedCosts>(detail::WeightedCosts{
        static_cast<std::uint32_t>(weight), std::move(model), std::move(steady_model), w});
  }
  return result;
}

namespace {

std::string describe_signature(const CallSignature& s) {
  std::string t(s.operation);
  if (!s.op.empty()) (t += " with op ") += s.op;
  if (s.root >= 0) t += " root " + std::to_string(s.root);
  if (s.item_size == 0 && s.type.empty()) return t;  // a call without data (a barrier)
  if (s.check_count) t += " count " + std::to_string(s.count);
  t += " item size " + std::to_string(s.item_size);
  if (!s.type.empty()) ((t += " (") += s.type) += ")";
  return t;
}

// Whether two members made the same call, their counts' layouts and algorithms aside.
bool same_call(const CallSignature& a, const CallSignature& b) {
  return a.operation == b.operation && a.op == b.op && a.root == b.root &&
         a.item_size == b.item_size && a.type == b.type && a.check_count == b.check_count &&
         (!a.check_count || a.count == b.count);
}

// "rank 3 (node 3)", "ranks 0-2, 4-7 (nodes 0-2, 4-7)": members of a comm and their nodes.
std::string members_text(const std::vector<int>& ranks, std::span<const int> world) {
  std::vector<int> nodes;
  nodes.reserve(ranks.size());
  for (int r : ranks) nodes.push_back(world[static_cast<std::size_t>(r)]);
  const bool one = ranks.size() == 1;
  return (one ? "rank " : "ranks ") + number_ranges(ranks, 16) +
         (one ? " (node " : " (nodes ") + number_ranges(nodes, 16) + ")";
}

}  // namespace

namespace detail {

bool same_calls(const CallSignature& a, const CallSignature& b) {
  return same_call(a, b) && a.layout == b.layout && a.algorithm == b.algorithm;
}

std::string member_name(int node, int rank, std::uint32_t comm) {
  // "node 3 (rank 1 of comm 2)"; the world's ranks are the nodes.
  std::string s = "node " + std::to_string(node);
  if (comm != 0) s += " (rank " + std::to_string(rank) + " of comm " + std::to_string(comm) + ")";
  return s;
}

std::string calls_differ_report(std::uint64_t seq, std::span<const int> world,
                                std::vector<MemberCalls> groups, int& blamed) {
  // The reference: the call most members made (a tie: the group holding the lowest rank);
  // blamed: the lowest rank outside it. Groups are listed from the blamed one's, then by
  // their lowest rank.
  std::sort(groups.begin(), groups.end(), [](const MemberCalls& a, const MemberCalls& b) {
    return a.ranks.front() < b.ranks.front();
  });
  std::size_t reference = 0;
  for (std::size_t k = 1; k < groups.size(); ++k) {
    if (groups[k].ranks.size() > groups[reference].ranks.size()) reference = k;
  }
  std::size_t worst = reference == 0 ? 1 : 0;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    if (k != reference && groups[k].ranks.front() < groups[worst].ranks.front()) worst = k;
  }
  blamed = groups[worst].ranks.front();
  const CallSignature& ref = groups[reference].call;
  const CallSignature& bad = groups[worst].call;
  std::rotate(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(worst),
              groups.begin() + static_cast<std::ptrdiff_t>(worst) + 1);
  // A long list of groups is cut: the first few, then the ranks of the others.
  constexpr std::size_t kShown = 4;
  const std::size_t shown = std::min(groups.size(), kShown);
  std::string rest;
  if (groups.size() > shown) {
    std::vector<int> others;
    for (std::size_t k = shown; k < groups.size(); ++k) {
      others.insert(others.end(), groups[k].ranks.begin(), groups[k].ranks.end());
    }
    std::sort(others.begin(), others.end());
    rest = ", and " + members_text(others, world) + " made " +
           std::to_string(groups.size() - shown) + " other calls";
  }
  const std::string call = "collective call " + std::to_string(seq);
  std::string text;
  if (!same_call(bad, ref)) {
    text = call + " on this comm: the members' calls differ: ";
    for (std::size_t k = 0; k < shown; ++k) {
      text += (k == 0 ? "" : ", ") + members_text(groups[k].ranks, world) + " called " +
              describe_signature(groups[k].call);
    }
    return text + rest;
  }
  if (bad.layout != ref.layout) {
    text = call + " (" + std::string(bad.operation) + "): the counts differ between ";
    for (std::size_t k = 0; k < shown; ++k) {
      text += (k == 0 ? "" : k + 1 == shown && rest.empty() ? " and " : ", ") +
              members_text(groups[k].ranks, world);
    }
    return text + rest + " (every member must pass the same counts)";
  }
  text = call + " (" + std::string(bad.operation) + "): the algorithms differ: ";
  for (std::size_t k = 0; k < shown; ++k) {
    const std::string_view a = groups[k].call.algorithm;
    text += (k == 0 ? "" : ", ") + members_text(groups[k].ranks, world) + " chose " +
            (a.empty() ? std::string("none") : std::string(a));
  }
  return text + rest + " (give every member the same options)";
}

// Why two members' calls of one collective disagree, or empty when they agree. `mine` is
// the calling member's; `first` came from rank `first_rank` (node `first_node`).
std::string compare_signatures(const CallSignature& mine, const CallSignature& first,
                               std::uint64_t seq, int my_rank, int my_node, int first_rank,
                               int first_node) {
  // The names of the two ranks are made only for a mismatch: this runs on every collective.
  const auto who = [](int rank, int node) {
    return "rank " + std::to_string(rank) + " (node " + std::to_string(node) + ")";
  };
  if (!same_call(first, mine)) {
    return "collective call " + std::to_string(seq) + " on this comm is " +
           describe_signature(mine) + ", but " + who(first_rank, first_node) + " called " +
           describe_signature(first);
  }
  if (first.layout != mine.layout) {
    return "collective call " + std::to_string(seq) + " (" + std::string(mine.operation) +
           "): the counts differ from those of " + who(first_rank, first_node) +
           " (every member must pass the same counts)";
  }
  if (first.algorithm != mine.algorithm) {
    return "collective call " + std::to_string(seq) + " (" + std::string(mine.operation) +
           "): the algorithms differ: " + who(my_rank, my_node) + " chose " +
           (mine.algorithm.empty() ? std::string("none") : std::string(mine.algorithm)) + ", " +
           who(first_rank, first_node) + " chose " +
           (first.algorithm.empty() ? std::string("none") : std::string(first.algorithm)) +
           " (give every member the same options)";
  }
  return {};
}

}  // namespace detail

std::unique_ptr<detail::CallMemo>& Comm::call_memo() const {
  group("call_memo");
  return node_->call_memo;
}

Tag Comm::begin_collective(const CallSignature& sig) const {
  group(sig.operation);
  check_abort(*node_);
  detail::CommGroup& g = *group_;
  const std::uint64_t seq = node_->collective_seq.next(g.id);
  const std::string mismatch = transport_of(*node_).compare_call(
      *node_, g, rank_, seq, sig, [&](const CallSignature& first, int first_rank) {
        return detail::compare_signatures(sig, first, seq, rank_, node_->rank, first_rank,
                                  g.world[first_rank]);
      });
  if (!mismatch.empty()) [[unlikely]] {
    const std::string op(sig.operation);
    throw CallsDifferError(node_->rank, op, who() + ": " + op + ": " + mismatch);
  }
  return detail::collective_tag(seq);
}

}  // namespace vmc
