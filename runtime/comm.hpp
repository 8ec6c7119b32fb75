// Comm: a group of virtual nodes with ranks 0..size()-1 (the whole machine or a split of it)
// and the point-to-point calls between them. A Comm is a thin per-node handle; copies are
// cheap and refer to the same group.
//
// Semantics (docs/model.md, the machine model): blocking calls return when their transfer has
// ended (a send whether or not the receiver has reached its receive, under the default
// eager protocol); a receive returns when the matching message has arrived. Nonblocking
// calls (isend, irecv) return a Request at once; its transfer is a message like any other,
// starting when its ports and links allow, so a node may have several in flight (as many
// as its port model lets move at once); wait, wait_all, wait_any and test complete them.
// Messages are matched by explicit source rank and tag, receives in the order they were
// posted (blocking or not): between one pair with one tag they never overtake each other
// (MPI's rule).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "runtime/model.hpp"
#include "runtime/trace.hpp"

namespace vmc {

class Topology;

namespace detail {
struct NodeState;
struct RequestState;
struct WeightedCosts;
struct CommGroup;
struct MachineImpl;
struct Outgoing;
struct Incoming;
struct BufferHash;

// What a layer above the runtime remembers of a node's calls (Comm::call_memo): the
// collectives' front doors keep there the last call they chose a row for. The node owns
// it and lets go of it when a run starts; the runtime reads nothing in it.
struct CallMemo {
  virtual ~CallMemo() = default;
};
}  // namespace detail

// User tags are 0..kMaxUserTag (larger ones are refused); collectives use tags above it.
constexpr Tag kMaxUserTag = (Tag{1} << 31) - 1;

// A receive's or a probe's source and tag may be these (MPI_ANY_SOURCE, MPI_ANY_TAG; a user
// tag only, never a collective's). Which message such a receive takes is decided in model
// time: on the virtual clock the message whose send was reached first in virtual time, and at
// one instant the lower source rank (docs/model.md, "Receives from any source").
constexpr int kAnySource = -1;
constexpr Tag kAnyTag = -1;

// What a receive took, or a probe found.
struct Status {
  int source = -1;         // comm rank of the sender
  Tag tag = 0;
  std::size_t bytes = 0;
  std::size_t items = 0;   // as the sender counted them (what beta was charged for)
  bool cancelled = false;  // a receive withdrawn by cancel before a message matched it
};

// How a send completes: standard (under the eager protocol, without waiting for its
// receive), or synchronous (MPI_Ssend: its transfer starts only once its receive is posted).
// lent: an isend as standard whose caller keeps its buffer in place until the request is
// completed, or withdrawn (Comm::withdraw) on the way out of an error: on the virtual clock
// a receiver may copy straight from it (runtime/loan.hpp), one copy instead of two.
enum class SendMode { standard, synchronous, lent };

// A nonblocking transfer (Comm::isend, Comm::irecv) until it is completed by wait,
// wait_all, wait_any or a test that returns true, which make it null. A cheap value: a
// copy names the same transfer (completing it through one copy and then waiting on
// another is an error, as is a request never completed by the end of the node's function).
class Request {
 public:
  Request() = default;  // null
  bool null() const { return node_ == nullptr; }

 private:
  friend class Comm;
  Request(detail::NodeState* node, std::uint32_t id, std::uint64_t run)
      : node_(node), id_(id), run_(run) {}
  detail::NodeState* node_ = nullptr;
  std::uint32_t id_ = 0;
  std::uint64_t run_ = 0;
};

// wait_any's answer when every request it was given is null.
constexpr std::size_t kNoRequest = static_cast<std::size_t>(-1);

// A hash (FNV-1a) of a sequence of non-negative integers, in order.
template <class Int>
std::uint64_t hash_integers(std::span<const Int> v) {
  std::uint64_t h = 1469598103934665603ull;
  for (Int x : v) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ull;
  return h;
}
// A group's world ranks in rank order: the same for the same nodes in the same order,
// whichever split made them.
inline std::uint64_t hash_members(std::span<const int> members) {
  return hash_integers(members);
}

// What every member of a comm must agree on when it enters a collective call. Compared
// across the comm at no cost in modelled time; a mismatch is an error naming the node.
// Built on every call, so it holds views, not copies: each text must outlive the call of
// begin_collective it is given to (names from static tables, the call's Op and row); the
// transport keeps a copy of the first member's (detail::KeptSignature).
struct CallSignature {
  std::string_view operation;      // "allreduce"
  std::string_view op;             // reduction op name, or empty
  int root = -1;                   // -1 if the operation has none
  std::uint64_t count = 0;         // the count every node must agree on (0 if none)
  std::size_t item_size = 0;       // bytes per item
  std::string_view type;           // the item type's name where the caller has one (MPI_INT)
  bool check_count = true;         // false for v-variants whose counts legitimately differ
  std::uint64_t layout = 0;        // v-variants: a hash of the counts every node must agree on
  std::string_view algorithm;      // the algorithm this node runs (empty: not checked)
};

class Comm {
 public:
  // A default-constructed Comm is invalid, as is the result of split with a negative colour:
  // every call on it but valid() and rank() throws UsageError.
  Comm() = default;
  bool valid() const { return group_ != nullptr; }

  int rank() const { return rank_; }
  int size() const;
  // World rank (node id) of comm rank r; the comm rank of world rank w, or -1 if w is not a
  // member.
  int world_rank(int r) const;
  int comm_rank(int w) const;
  // Every member's world rank, by comm rank.
  std::span<const int> members() const;
  // Whether the comm is the whole machine with rank r on node r (the world comm, or a split
  // that kept every node in order).
  bool whole_machine() const;
  // hash_members(members()), computed once per comm (0 for the whole machine).
  std::uint64_t members_hash() const;
  std::uint32_t id() const;
  const Model& model() const;
  // model() without its stragglers (steady(model())), as selection and the cost formulas
  // see it; made once per machine (and per weighted comm), not on every call.
  const Model& steady_model() const;
  const CostUnits& units() const;
  const Topology& topology() const;
  // Whether messages carry data (MachineConfig::data): false in a timing-only run, where
  // nothing is copied and receive buffers keep what they held.
  bool moves_data() const;

  // --- point to point --------------------------------------------------------------------
  template <class T>
  void send(std::span<const T> data, int dest, Tag tag = 0) const {
    static_assert(std::is_trivially_copyable_v<T>, "vmc sends trivially copyable items");
    send_raw(data.data(), data.size_bytes(), data.size(), dest, tag);
  }
  template <class T>
  void send(std::span<T> data, int dest, Tag tag = 0) const {
    send(std::span<const T>(data), dest, tag);
  }
  // Returns the number of items received (at most data.size()): a buffer larger than the
  // message is accepted (MPI's rule) and keeps what it held past the message; a message
  // larger than the buffer is a TruncationError.
  template <class T>
  std::size_t recv(std::span<T> data, int source, Tag tag = 0) const {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
    return recv_raw(data.data(), data.size_bytes(), sizeof(T), source, tag) / sizeof(T);
  }
  // Sends `out` to dest and receives into `in` from source, both at once.
  template <class T>
  std::size_t sendrecv(std::span<const T> out, int dest, std::span<T> in, int source,
                       Tag tag = 0) const {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
    return sendrecv_raw(out.data(), out.size_bytes(), out.size(), dest, in.data(),
                        in.size_bytes(), sizeof(T), source, tag) /
           sizeof(T);
  }
  template <class T>
  std::size_t sendrecv(std::span<T> out, int dest, std::span<T> in, int source,
                       Tag tag = 0) const {
    return sendrecv(std::span<const T>(out), dest, in, source, tag);
  }

  // --- nonblocking point to point -----------------------------------------------------------
  // The buffer belongs to the transfer until the request completes: an isend's must not
  // change (checked when it completes), an irecv's must not be read or reused, and no
  // two transfers in flight on one node may share a receive buffer (checked when posted).
  template <class T>
  Request isend(std::span<const T> data, int dest, Tag tag = 0) const {
    static_assert(std::is_trivially_copyable_v<T>, "vmc sends trivially copyable items");
    return isend_raw(data.data(), data.size_bytes(), data.size(), dest, tag);
  }
  template <class T>
  Request isend(std::span<T> data, int dest, Tag tag = 0) const {
    return isend(std::span<const T>(data), dest, tag);
  }
  template <class T>
  Request irecv(std::span<T> data, int source, Tag tag = 0) const {
    static_assert(std::is_trivially_copyable_v<T> && !std::is_const_v<T>);
    return irecv_raw(data.data(), data.size_bytes(), sizeof(T), source, tag);
  }
  // Blocks until r has completed and makes it null. Returns the items an irecv received
  // (0 for an isend). Waiting on a null request is an error.
  std::size_t wait(Request& r) const;
  // Blocks until every non-null request has completed; makes them null. Returns the items
  // each received (0 for isends and null entries).
  std::vector<std::size_t> wait_all(std::span<Request> rs) const;
  // Blocks until one of the non-null requests has completed, makes it null and returns its
  // index; kNoRequest when all are null. Virtual clock: the one that completes first in
  // model time, the lowest index among those completing at the same instant.
  std::size_t wait_any(std::span<Request> rs) const;
  // Whether r has completed by now (model time on the virtual clock); when it has, it is
  // made null and `items` (if given) gets what an irecv received. Costs no model time; a
  // node that tests again without doing anything else in between moves on to the machine's
  // next event, so a loop of tests ends when the request completes.
  bool test(Request& r, std::size_t* items = nullptr) const;

  // This node's time since the run began, in seconds: on the virtual clock the model time it
  // has reached (a query the simulation answers, free in modelled time), on the real clock
  // and over MPI the time measured.
  double now() const;

  // Untyped forms: `items` is what beta is charged for; bytes is the payload. A receive's
  // source and tag may be kAnySource and kAnyTag; `status` (if given) gets what it took.
  void send_raw(const void* data, std::size_t bytes, std::size_t items, int dest, Tag tag,
                SendMode mode = SendMode::standard) const;
  std::size_t recv_raw(void* data, std::size_t capacity_bytes, std::size_t item_size, int source,
                       Tag tag, Status* status = nullptr) const;
  std::size_t sendrecv_raw(const void* out, std::size_t out_bytes, std::size_t out_items,
                           int dest, void* in, std::size_t in_capacity_bytes,
                           std::size_t in_item_size, int source, Tag tag) const;
  // The send and the receive with tags of their own (MPI_Sendrecv).
  std::size_t sendrecv_raw(const void* out, std::size_t out_bytes, std::size_t out_items,
                           int dest, Tag send_tag, void* in, std::size_t in_capacity_bytes,
                           std::size_t in_item_size, int source, Tag recv_tag,
                           Status* status) const;
  Request isend_raw(const void* data, std::size_t bytes, std::size_t items, int dest, Tag tag,
                    SendMode mode = SendMode::standard) const;
  // isend_raw of one buffer to each of `dests` in turn, their requests in `out` (one per
  // destination): the same as the calls one by one, but with data the buffer's hash (which
  // the completion compares to tell that it did not change) is made once for all of them (a
  // broadcast's tree forwards a packet to several children).
  void isend_raw_each(const void* data, std::size_t bytes, std::size_t items,
                      std::span<const int> dests, Tag tag, SendMode mode,
                      std::span<Request> out) const;
  Request irecv_raw(void* data, std::size_t capacity_bytes, std::size_t item_size, int source,
                    Tag tag) const;
  // On the way out of an error, before the buffers of its requests go: the isends of
  // `reqs` posted SendMode::lent and not completed stop lending their buffers (their bytes
  // are copied, unless a receiver has them already). Never throws.
  void withdraw(std::span<const Request> reqs) const noexcept;

  // --- completions with statuses, probes, cancel ------------------------------------------
  // As wait, wait_all, wait_any and test, with what each receive took in `status` (for a
  // send: its destination and tag, no bytes).
  std::size_t wait(Request& r, Status* status) const;
  std::vector<std::size_t> wait_all(std::span<Request> rs, std::span<Status> statuses) const;
  std::size_t wait_any(std::span<Request> rs, Status* status) const;
  bool test(Request& r, std::size_t* items, Status* status) const;
  // Blocks until at least one non-null request has completed, then completes every one that
  // has by then (in model time on the virtual clock) and returns their indices, in order;
  // empty when all are null. statuses (if not empty) is indexed like rs.
  std::vector<std::size_t> wait_some(std::span<Request> rs,
                                     std::span<Status> statuses = {}) const;
  // Whether one of the non-null requests has completed by now: completes the one that
  // completed first (the lowest index at one instant) and sets `index`; true with index
  // kNoRequest when all are null.
  bool test_any(std::span<Request> rs, std::size_t& index, Status* status = nullptr) const;
  // Completes every non-null request that has completed by now; their indices, in order.
  std::vector<std::size_t> test_some(std::span<Request> rs,
                                     std::span<Status> statuses = {}) const;
  // Whether every non-null request has completed by now; if so completes them all (else
  // none).
  bool test_all(std::span<Request> rs, std::span<Status> statuses = {}) const;
  // Whether r has completed by now (in model time on the virtual clock), without completing
  // it: r stays as it is, to be completed by wait or a test later (MPI_Request_get_status).
  // When it has, `status` (if given) gets what that completion will give; a receive that
  // failed (its message did not fit) has completed too, and its error comes with the
  // completion. Costs no model time, and a node that asks again without doing anything else
  // in between moves on to the machine's next event, as with test.
  bool completed(const Request& r, Status* status = nullptr) const;
  // Lets go of a request without waiting for it: its transfer goes on (an irecv's message
  // still lands in its buffer), and nothing may complete it any more.
  void free(Request& r) const;
  // Withdraws a receive that no message has matched yet (in model time on the virtual
  // clock): true when it was withdrawn; the request must still be completed, and its status
  // then says cancelled. A send, or a receive already matched, is not withdrawn (false).
  bool cancel(Request& r) const;
  // Whether a message a receive from (source, tag) would take has arrived, without taking
  // it (iprobe; a node that probes again with nothing in between moves on to the machine's
  // next event, as test does); probe waits for one.
  bool iprobe(int source, Tag tag, Status* status) const;
  Status probe(int source, Tag tag) const;
  // A matched probe (MPI_Mprobe): waits for a message a receive from (source, tag) would
  // take and takes it from matching, so no other receive can; the request returned stands
  // for it until mrecv gives it a buffer. improbe: the same if one has arrived by now.
  Request mprobe(int source, Tag tag, Status* status) const;
  bool improbe(int source, Tag tag, Request& message, Status* status) const;
  // Receives a message mprobe or improbe took into a buffer: the request becomes an irecv
  // of it (complete it with wait or test).
  void mrecv_into(Request& message, void* data, std::size_t capacity_bytes,
                  std::size_t item_size) const;

  // --- local work --------------------------------------------------------------------------
  // Charges the combine of `items` items (items * gamma) to this node's time.
  void charge_combine(std::size_t items) const;
  // Charges the local rearrangement (packing or unpacking non-contiguous pieces) of `items`
  // items (items * delta, 004's delta) to this node's time.
  void charge_rearrange(std::size_t items) const;
  // Charges `seconds` of computation to this node's time.
  void charge_compute(double seconds) const;

  // --- groups and collectives -------------------------------------------------------------
  // Collective over this comm: members with equal color form a new comm, ranked by
  // (key, old rank). A negative color returns an invalid Comm (the node joins none).
  // Free in modelled time: it is bookkeeping of the emulator, not a modelled message.
  Comm split(int color, int key) const;
  // Collective over the members it names only (the others do not call it): the comm ranks
  // `members`, distinct, in the order given, form a new comm whose rank i is members[i].
  // Every member passes the same list and tag (calls with another list or tag make other
  // comms); the calling node must be among them. Free in modelled time, and it does not wait
  // for the other members.
  Comm create_group(std::span<const int> members, std::int64_t tag) const;

  // Starts a collective call: checks `sig` against the other members (free in modelled
  // time) and returns the first tag of a fresh tag space of 2^20 tags for this call.
  Tag begin_collective(const CallSignature& sig) const;
  // The calling node's memo for the layer above (detail::CallMemo): null until that layer
  // sets it, and again at the start of every run (comm ids start again with a run).
  std::unique_ptr<detail::CallMemo>& call_memo() const;

  // The same comm, on which every item a send moves, a combine combines and a rearrangement
  // rearranges is charged as `weight` items (beta, gamma and delta, and the short-message
  // limit, count weight times the items): a reduction whose items are records of `weight`
  // elements (MPI's user operation on a derived datatype) is charged per element, while its
  // algorithm splits buffers only between whole items. Its model() and units() are the
  // machine's per weighted item (weighted_model), so that selection and the algorithms' plans
  // see what the run is charged. A send's bytes must be a whole number of weighted items.
  // Comms split or made from it keep the weight; 1 is the default.
  Comm weighted(std::size_t weight) const;
  std::size_t weight() const;

  // The nonblocking requests this node keeps: every one from its oldest still open or still
  // transferring (a freed one) on. Those completed before it are let go of, so a node that
  // completes its requests as it goes keeps what is in flight however many it posts.
  std::size_t requests_kept() const;

  // Error text prefix naming this node: "node 3 (rank 1 of comm 2)"; on an invalid Comm,
  // the node that holds it when known ("node 3 (invalid comm)").
  std::string who() const;

  // While alive, the calling node is inside a collective call on `comm`: only then may it
  // use tags above kMaxUserTag (the call's tag space from begin_collective). The
  // collectives' dispatch holds one around every algorithm it runs.
  class CollectiveScope {
   public:
    explicit CollectiveScope(const Comm& comm);
    ~CollectiveScope();
    CollectiveScope(const CollectiveScope&) = delete;
    CollectiveScope& operator=(const CollectiveScope&) = delete;

   private:
    detail::NodeState* node_;
  };

 private:
  friend struct detail::MachineImpl;
  Comm(detail::NodeState* node, std::shared_ptr<detail::CommGroup> group, int rank)
      : node_(node), group_(std::move(group)), rank_(rank) {}
  // A call's send and receive halves, every argument checked (a UsageError naming the node
  // and `op` otherwise), as the transport takes them (runtime/transport.hpp).
  detail::Outgoing outgoing(const void* data, std::size_t bytes, std::size_t items, int dest,
                            Tag tag, const char* op) const;
  detail::Incoming incoming(void* data, std::size_t capacity_bytes, std::size_t item_size,
                            int source, Tag tag, const char* op) const;
  // Nonblocking requests: the state behind a handle (a UsageError naming `call` when it is
  // null, another node's, stale or completed); completing it (waits for its transfer, checks
  // the buffers, retires it; returns the items received).
  detail::RequestState& request_state(const Request& req, const char* call) const;
  // `hashed` (if given): the hash of the buffer an isend completed before it in the same call,
  // used again for an isend of the same buffer (nothing can have changed it in between).
  std::size_t finish_request(detail::RequestState& r, Status* status = nullptr,
                             detail::BufferHash* hashed = nullptr) const;
  // isend_raw, the buffer's hash taken from `hashed` when it is of the same buffer (else made
  // there).
  Request post_isend(const void* data, std::size_t bytes, std::size_t items, int dest, Tag tag,
                     SendMode mode, detail::BufferHash& hashed) const;
  // What a completed request's status says (a receive's: what it took).
  void status_of(const detail::RequestState& r, Status* status) const;
  // Waits until the transport has delivered what r completed in model time.
  void await_arrival(detail::RequestState& r) const;
  // The ids of the non-null requests of a list, each checked (and where each is in the
  // list); the transport's answer to which of them may complete now.
  std::vector<std::uint32_t> request_ids(std::span<const Request> reqs, const char* call,
                                         std::vector<std::size_t>* at) const;
  std::vector<std::int64_t> test_keys(std::span<const std::uint32_t> ids, bool all,
                                      const char* call) const;
  void check_matched_has_buffer(const detail::RequestState& r, const char* call) const;
  // Completes the requests of rs at the indices `chosen`, statuses (if given) alike.
  void finish_listed(std::span<Request> rs, std::span<Status> statuses,
                     std::span<const std::size_t> chosen) const;
  Request matched_probe(int source, Tag tag, bool block, Status* status) const;
  // A receive buffer must not overlap one of a transfer in flight on this node.
  void check_receive_buffer(const void* data, std::size_t bytes, const char* op, int source,
                            Tag tag) const;
  // The group, or a UsageError naming `call` when this Comm is invalid. Inline, and `call`
  // (a C string or a string_view) measured only for the error: every send and receive asks,
  // and a string_view made of a C string out of line cost a strlen per call.
  template <class Call>
  const detail::CommGroup& group(const Call& call) const {
    if (group_ == nullptr) [[unlikely]] invalid_comm(std::string_view(call));
    return *group_;
  }
  [[noreturn]] void invalid_comm(std::string_view call) const;
  detail::NodeState* node_ = nullptr;
  std::shared_ptr<detail::CommGroup> group_;
  int rank_ = -1;
  // weighted(): what each item is charged as, and the model and units scaled so (null: 1).
  std::shared_ptr<const detail::WeightedCosts> weighted_;
};

}  // namespace vmc
