// Virtual time: a discrete-event pass over the operation logs the nodes record.
//
// During a virtual-time run the nodes move their data at once and record, in order, what
// they do (send, receive, send-receive, compute, isend, irecv, wait, wait_any, test),
// each before it blocks. Since receives name their source and tag, and the k-th receive a
// node posts for (comm, source, tag) takes the k-th message that source sent it with that
// comm and tag, these logs do not depend on the thread schedule. This pass replays them in
// simulated-time order, one event at a time on one thread, so the times, statistics and
// trace it produces are bit-identical on every run.
//
// Most runs are replayed after they end. Queries whose answer is a time (wait_any: which
// request completes first; test: whether one has completed) are answered during the run:
// the querying node waits while the pass advances as far as the logs recorded so far
// allow, and it stops at the first event that needs an operation a running node has not
// recorded yet, to go on when that node records it (a conservative discrete-event
// simulation: nothing is ever undone). The answer depends only on the logs, so it is the
// same on every run. wait_any picks the request that completes first, the lowest index
// among those completing at one instant; test and test_list say whether requests completed
// at or before the node's time (completions at an instant are taken before the nodes'
// steps). A query that fails right after a failed query, with nothing in between (a clock
// read is nothing), moves the node on to the next instant at which anything happens, after
// the other nodes' steps there, so a loop of tests or probes ends.
//
// Receives from any source or of any tag (docs/model.md, "Receives from any source"): the
// pass matches every message when its send is reached, with the oldest receive posted for it
// (an exact one, or a wildcard one posted earlier), and every receive when it is posted,
// with the oldest message waiting for it; a (destination, comm) that has seen a wildcard
// keeps its unmatched messages in the order the pass reached their sends. A receive the node
// could not match by itself (a wildcard, or one posted behind such a receive) is logged with
// `report`: the pass publishes which message it took (NodeState::decisions), the node takes
// that one from its mailbox and writes its source and tag into its log, so the contention-
// free replay takes the same messages. Probes answer from the unmatched messages; a cancel
// withdraws a receive still waiting; a synchronous send (MPI_Ssend) starts, as under the
// rendezvous protocol, only once its receive is posted.
//
// Communicator constructors (docs/model.md, "Communicator constructors"): each member logs a
// sync on the group before it waits for the others in the run, and the pass holds it there
// until every member has reached it; they go on at the latest arrival, at no cost. A node
// waiting in a constructor is thus one the pass knows can do nothing before the others come,
// so it answers their queries meanwhile instead of waiting for that node's next operation.
//
// Failed nodes (docs/model.md, "Failed nodes"): a node that stops logs it, and the pass decides
// here, in virtual time, what that fails: the receives and probes that wait for it (by name,
// or from any source on a comm it belongs to, when no message matched them first), the sends
// that wait for a receive it never posts (synchronous ones; every one under rendezvous), the
// constructors of its groups. The nodes learn it as they learn a match (a Decision naming the
// failed node, a refused synchronous send, a meeting's word), and the replay after the run
// completes the same receives when the failed node stops (kFailedTag).
//
// The rules it applies (docs/model.md, the machine model; decisions vmc made are marked *):
// - A send is requested when its node reaches it. It starts at the earliest simulated time
//   at which its ports (port model) and links (routing) are all free, and it holds them all
//   for its duration alpha + n beta. The sender resumes, and the receiver has the data, at
//   its end. A receive completes at max(time posted, end of its message).
// - * Protocol eager (the default): a message may start before its receiver reaches the
//   receive; it holds the receiver's port (exchange, half) or in-port (duplex) while it
//   lasts. Protocol rendezvous (000 §2 assumption 4): it may start only once its receiver has
//   posted the receive (recv or sendrecv); from then on it is a request like any other, and
//   the time before is neither a wait nor a delay. Sends whose receives are never posted
//   (each receiver blocked in a send of its own) are reported as a deadlock.
// - * Requests waiting for resources are served in two passes at each instant: first the
//   messages whose receive is posted (the receiver waits for them, or posted an irecv),
//   then the others (eager messages the receiver has not asked for yet); oldest first (request
//   time, then sender rank, then send order). So a node busy folding in a message it waits
//   for is not overtaken by a partner that ran ahead. A younger request whose resources are
//   free may go ahead of an older one that still waits. A wormhole message takes its whole
//   route at once or waits (all-or-nothing, so acquiring it cannot deadlock).
// - * store_and_forward: the message takes its route one link at a time, each hop a
//   transfer of alpha + n beta; the endpoints' ports are held from the first hop to the last.
// - shared contention: links are never waited for; while k messages hold one link
//   direction each progresses at 1/k of its bandwidth (001 "Contention"). * The startup
//   alpha is not slowed, only the n beta part; a message's share is that of its most
//   loaded link, re-evaluated whenever a message starts or ends on a link it uses; times
//   are rounded down to whole picoseconds at each re-evaluation.
// - Links of unequal bandwidth (002 §3.3.4, Model::link_rates): a message moves at the rate
//   of its slowest link, max(beta, max_l c_l beta_net_l) per item (runtime/link_rates.hpp);
//   store_and_forward prices each hop by its own link.
// - Events at one instant are taken in a fixed order: message ends, then node steps (by
//   rank), then grants of waiting requests.
// - All sums of picoseconds are checked: a time that does not fit is an error naming the
//   node, never a wrapped value.
//
// Contention delay (Stats::contention_delay, per message MessageEvent::contention_delay):
// after each instant's grants, every request still waiting is marked as held up by its
// ports (the port model: the algorithm's own schedule) or not (links held by others); per
// message, the time from the moment it could start to its end, minus its contention-free
// duration, minus its port waits, is the time lost to contention. The part of the run's time
// due to contention (Stats::contention_critical_delay) is the time minus that of a second
// pass over the same logs in which links hold no one up; store_and_forward keeps its hops.
//
// Monotonicity, and the anomaly it allows. The logs fix which message follows which. When
// the contention-free pass grants every request at the instant it is made (no waits: always
// under rendezvous with duplex or all-port nodes, and under eager with all-port nodes), every
// start in it is a max-plus function of earlier ends; links can only delay starts (exclusive)
// or stretch durations (shared), so no node finishes earlier with them. When the contention-
// free pass has waits, which of two waiting requests a port goes to depends on timing, and,
// as in Graham's anomalies of list scheduling, slowing one message down can give a better
// order: with eager sends under duplex ports a message its receiver has not asked for yet can
// take the receiver's in-port just before the one it waits for (mesh:7x11, allreduce
// recursive_halving_doubling, n = 16, shared: 7.973 ms, with direct routing 8.220 ms). vmc
// keeps the greedy rule (a free resource is never left idle for a request that might come)
// and reports such a run's critical delay as negative; tests/runtime/contention_test.cpp
// holds the monotone case over every algorithm.
#include <algorithm>
#include <array>
#include <bit>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <stdexcept>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/local_nodes.hpp"
#include "runtime/ports.hpp"
#include "runtime/probing.hpp"
#include "runtime/simulator.hpp"

namespace vmc::detail {
namespace {

enum class MsgState : std::uint8_t { idle, pending, active, done };

// Shared contention: a message's remaining transfer is counted in 1/2^20 of an item, so
// that a rate change (max(beta, c beta_net) per item) keeps the progress made exactly
// enough: picosecond rounding once per change, never a drift.
constexpr Picos kWorkScale = Picos{1} << 20;

// A message's route: up to kNear links kept in place (every route of a hypercube of up to
// 256 nodes, the short ones of larger machines), longer ones in a vector. The simulator
// routes every message, and a route kept in place needs no vector handed from message to
// message and no append per hop (Topology::route_into).
class Route {
 public:
  static constexpr std::size_t kNear = 8;
  std::span<const LinkId> links() const {
    return {size_ > kNear ? far_.data() : near_.data(), size_};
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  LinkId operator[](std::size_t i) const { return links()[i]; }
  // The route from a to b on topo; `spare`: vectors freed by earlier routes, for a long one.
  void make(const Topology& topo, int a, int b, std::vector<std::vector<LinkId>>& spare) {
    const int hops = topo.route_into(a, b, near_);
    if (hops >= 0) {
      size_ = static_cast<std::size_t>(hops);
      return;
    }
    topo.route(a, b, long_route(spare));
    settle();
  }
  // A long route's vector (empty), to be filled by the caller, who then calls settle.
  std::vector<LinkId>& long_route(std::vector<std::vector<LinkId>>& spare) {
    if (!spare.empty()) {
      far_ = std::move(spare.back());
      spare.pop_back();
    }
    far_.clear();
    return far_;
  }
  // The vector's route is the route: kept there if long, moved in place if short.
  void settle() {
    size_ = far_.size();
    if (size_ <= kNear) std::copy(far_.begin(), far_.end(), near_.begin());
  }
  // No route any more: a long one's vector goes to `spare` (at most `keep` of them).
  void release(std::vector<std::vector<LinkId>>& spare, std::size_t keep) {
    size_ = 0;
    if (far_.capacity() == 0) return;
    if (spare.size() < keep) {
      far_.clear();
      spare.push_back(std::move(far_));
    }
    std::vector<LinkId>().swap(far_);
  }

 private:
  std::array<LinkId, kNear> near_{};  // the links when there are at most kNear
  std::size_t size_ = 0;              // hops; more than kNear: the links are far_'s
  std::vector<LinkId> far_;
};

// A message in the pass. Made at each send (Chunked::emplace_back default-initializes it:
// every field's initializer below, no zero-filling of the whole record first), so its
// fields are packed: the flags side by side, the wider fields after them.
struct Msg {
  std::int64_t id = 0;
  std::uint64_t items = 0;
  std::uint64_t bytes = 0;
  Tag tag = 0;
  std::uint64_t index = 0;  // among the sender's sends
  int src = 0;
  int dst = 0;
  std::uint32_t comm = 0;
  std::int32_t around = -1; // it routes around the links down at this index (OpRecord)
  MsgState state = MsgState::idle;
  bool sync = false;        // synchronous: starts only once its receive is posted
  // Its sender waits in its run for the word that its receive is posted (a synchronous send;
  // under rendezvous with failures, every send to another node): acknowledge_sync.
  bool told = false;
  bool lost = false;        // a failed link lost it: it takes no port or link and no time
  bool port_blocked = false;  // while pending: whether its ports were busy at blocked_since
  // Blocking worms (Worm::blocking): whether it holds its ports (and, below, how many links
  // of its route it holds, a prefix, and since when it holds each).
  bool ports_held = false;
  // Who waits for it: its sender (blocking send) or the sender's request (isend); once a
  // receive matched it, the receiver blocked in recv or sendrecv, or its irecv request.
  bool sender_waits = false;
  bool recv_posted = false;
  int send_request = -1;
  int recv_waiter = -1;
  int recv_request = -1;
  int crit = 0;
  Picos request = 0;        // current hop's request (rendezvous: or when the receive was posted)
  Picos first_request = 0;  // the sender reached the send
  Picos eligible = 0;       // it could start as far as its endpoints are concerned: the
                            // sender reached it and (rendezvous) the receiver posted for it
  Picos port_wait = 0;      // time it waited for the endpoints' ports
  Picos blocked_since = 0;  // while pending: the last arbitration instant
  Picos free_time = 0;      // its contention-free duration (every hop)
  Picos start = 0;          // first hop's start
  Picos end = 0;
  Picos waited = 0;
  Route route;
  std::size_t hop = 0;      // store and forward: the hop in progress
  std::size_t links_held = 0;
  std::vector<Picos> link_taken;
  // shared contention
  Picos hop_start = 0;
  Picos alpha_end = 0;
  Picos remaining = 0;      // items left to transfer, in units of 1/kWorkScale item
  Picos last = 0;
  std::uint64_t share = 1;  // messages on its most loaded link
  Picos rate = 0;           // its per-item time at that sharing (link_rates.hpp)
  std::uint64_t version = 0;
};

// A nonblocking request of one node: its message (isend: its own; irecv: the one that
// matched it, -1 until one does) and when it completed.
struct Req {
  std::int64_t msg = -1;
  bool done = false;
  Picos done_at = 0;
  int crit = 0;
  bool waited_on = false;  // a wait or wait_any of its node waits for it
};

struct NodeSim {
  // Where its log's next operation was when the pass last copied one out (Simulator::step
  // asks for it first), beside pc: in the line each step touches first.
  const void* next_op = nullptr;
  std::size_t pc = 0;
  Picos clock = 0;
  int outstanding = 0;
  Picos resume = 0;
  int resume_crit = 0;
  int crit = 0;
  bool finished = false;
  // It stopped (OpRecord::Kind::fail, MachineConfig::failures) at stop_at: a receive from
  // it that no message it sent takes completes without one (and so do receives from any
  // source, probes, synchronous sends and constructors that needed it: stop below).
  bool stopped = false;
  Picos stop_at = 0;
  // By request id, from the first the pass may still read (the node had completed those
  // below before an operation the pass has taken: drop_requests).
  LogVector<Req> reqs;
  std::uint32_t done_below = 0;  // the latest operation taken's OpRecord::done_below
  std::uint64_t sends = 0;              // sends reached
  // What the pass has copied out of the node's log: operations [0, pc), request lists
  // [0, lists_used), answers [0, answers) (the log drops what both passes have used).
  std::uint64_t lists_used = 0;
  std::vector<std::uint32_t> any_list;  // a wait_any in progress: its requests
  bool any = false;
  // Its last operation but clock reads was a query that failed at `clock`, and the first of
  // those failed queries in a row was at spin_from.
  bool tested_last = false;
  Picos spin_from = 0;
  std::size_t answers = 0;   // query answers given (the replay reads log.answers from here)
  std::uint64_t posts = 0;   // receives posted: each one's place in the node's order
  std::uint64_t clock_reads = 0;  // now queries in a row with nothing in between
  // A probe waiting for a message it matches; an mprobe waiting for its request to be bound.
  bool probing = false;
  // Noise (Model::noise): a send the node reached during a detour, taken again at its end
  // (Simulator::detoured_ holds it).
  bool held = false;
  std::uint32_t probe_comm = 0;
  int probe_src = -1;
  Tag probe_tag = 0;
  int probe_request = -1;
};

// A receive posted before its message was sent: the node and its request (-1: blocking).
struct RecvPost {
  int node = 0;
  int request = -1;
  Picos at = 0;
  std::uint64_t seq = 0;  // its place among the node's receives (the oldest matches first)
  bool report = false;    // the node waits for the pass to name its message
};
// A communicator constructor's meeting (OpRecord::Kind::sync) that not every member has
// reached yet: how many have, the latest of their times, and those that wait.
struct Meeting {
  std::uint32_t arrived = 0;
  Picos latest = 0;
  std::vector<int> waiting;
};

// A receive from any source or of any tag, waiting for a message (per destination and comm,
// oldest first).
struct WildPost {
  RecvPost post;
  int src = -1;  // world rank, or kAnySource
  Tag tag = 0;   // or kAnyTag
};
// Whether a receive from (src, tag) takes a message from `from` with tag `tag`: a wildcard
// tag takes user tags only, never a collective's.
inline bool takes(int src, Tag tag, int from, Tag got) {
  return (src == kAnySource || src == from) && (tag == kAnyTag ? got <= kMaxUserTag : tag == got);
}
inline std::uint64_t dest_comm(int dst, std::uint32_t comm) {
  return (std::uint64_t(std::uint32_t(dst)) << 32) | comm;
}
struct MatchKeySim {
  int dst;
  std::uint32_t comm;
  int src;
  Tag tag;
  bool operator==(const MatchKeySim&) const = default;
};
struct MatchKeySimHash {
  std::size_t operator()(const MatchKeySim& k) const noexcept {
    std::uint64_t h = (std::uint64_t(std::uint32_t(k.dst)) << 32) ^ std::uint32_t(k.src);
    h = (h ^ k.comm) * 0x9E3779B97F4A7C15ull;
    h ^= std::uint64_t(k.tag) * 0xC2B2AE3D27D4EB4Full;
    return std::size_t(h ^ (h >> 31));
  }
};
// Sends that no receive has matched yet, and receives no send has; one is always empty.
// Every collective call has tags of its own, so most keys see one message: an entry is
// dropped as soon as both queues are empty (MatchTable below), and the queues are vectors
// read from a head index (a deque would allocate a block for each).
template <class T>
struct Fifo {
  std::vector<T, PoolAllocator<T>> items;
  std::size_t head = 0;
  bool empty() const { return head == items.size(); }
  const T& front() const { return items[head]; }
  void pop_front() {
    // A key that never empties (a stream of messages with one tag) drops what it has read.
    if (++head >= 64 && head * 2 >= items.size()) {
      items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(head));
      head = 0;
    }
  }
  void push_back(const T& x) { items.push_back(x); }
  // Empty again, keeping the storage of a few elements for the next key (MatchTable).
  void clear() {
    if (items.capacity() > 8) {
      decltype(items)().swap(items);
    } else {
      items.clear();
    }
    head = 0;
  }
  // Removes the first element for which pred holds; whether there was one.
  template <class Pred>
  bool remove_if_first(Pred pred) {
    for (std::size_t i = head; i < items.size(); ++i) {
      if (pred(items[i])) {
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
        return true;
      }
    }
    return false;
  }
  auto begin() const { return items.begin() + static_cast<std::ptrdiff_t>(head); }
  auto end() const { return items.end(); }
};
struct MatchQueues {
  Fifo<std::int64_t> sends;
  Fifo<RecvPost> recvs;
  bool empty() const { return sends.empty() && recvs.empty(); }
};

// The match queues by (destination, comm, source, tag): an open-addressing table (linear
// probing, erasure by backward shift, so that no tombstones lengthen the probes), with the
// few calls of std::unordered_map the pass makes. An entry comes and goes with nearly every
// message; here that is a slot written and cleared, its queues keeping their storage for the
// next key that lands there, where a node-based map allocated, linked and freed a node per
// message. Inserting may move every entry (references last until the next try_emplace or
// erase); iterating while erasing (erase_and_go_on) never skips an entry, and visits one
// twice only when a run of slots wraps around the table's end.
class MatchTable {
 public:
  using value_type = std::pair<MatchKeySim, MatchQueues>;
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = MatchTable::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = value_type*;
    using reference = value_type&;
    iterator() = default;
    reference operator*() const { return t_->slots_[i_]; }
    pointer operator->() const { return &t_->slots_[i_]; }
    iterator& operator++() {
      ++i_;
      skip_free();
      return *this;
    }
    iterator operator++(int) {
      iterator was = *this;
      ++*this;
      return was;
    }
    bool operator==(const iterator& o) const { return i_ == o.i_; }

   private:
    friend class MatchTable;
    iterator(MatchTable* t, std::size_t i) : t_(t), i_(i) { skip_free(); }
    void skip_free() {
      while (i_ < t_->used_.size() && !t_->used_[i_]) ++i_;
    }
    MatchTable* t_ = nullptr;
    std::size_t i_ = 0;
  };

  bool empty() const { return size_ == 0; }
  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, used_.size()); }
  iterator find(const MatchKeySim& k) {
    if (size_ == 0) return end();
    for (std::size_t i = home(k); used_[i]; i = (i + 1) & mask_) {
      if (slots_[i].first == k) return iterator(this, i);
    }
    return end();
  }
  // The entry of k, made (with empty queues) if there was none; whether it was made.
  std::pair<iterator, bool> try_emplace(const MatchKeySim& k) {
    if ((size_ + 1) * 4 > used_.size() * 3) grow();
    std::size_t i = home(k);
    for (; used_[i]; i = (i + 1) & mask_) {
      if (slots_[i].first == k) return {iterator(this, i), false};
    }
    used_[i] = 1;
    slots_[i].first = k;  // its queues are empty: cleared when the slot was last freed
    ++size_;
    return {iterator(this, i), true};
  }
  // Removes the entry at `at`.
  void erase(iterator at) {
    std::size_t hole = at.i_;
    slots_[hole].second.sends.clear();
    slots_[hole].second.recvs.clear();
    used_[hole] = 0;
    --size_;
    detail::shift_back(
        hole, mask_, [&](std::size_t j) { return used_[j] != 0; },
        [&](std::size_t j) { return home(slots_[j].first); },
        [&](std::size_t from, std::size_t to) {
          std::swap(slots_[to], slots_[from]);  // the cleared queues go along to `from`
          used_[to] = 1;
          used_[from] = 0;
        });
  }
  // The same while iterating: returns where to go on (an entry of the same run may have
  // moved into `at`'s slot). Apart from erase, which would otherwise scan the free slots up to
  // the next entry on every message.
  iterator erase_and_go_on(iterator at) {
    erase(at);
    return iterator(this, at.i_);
  }

 private:
  std::size_t home(const MatchKeySim& k) const {
    return (MatchKeySimHash{}(k) * 0x9E3779B97F4A7C15ull) >> shift_;
  }
  void grow() {
    std::vector<value_type> slots = std::move(slots_);
    std::vector<std::uint8_t> used = std::move(used_);
    const std::size_t capacity = std::max<std::size_t>(16, used.size() * 2);
    slots_ = std::vector<value_type>(capacity);
    used_.assign(capacity, 0);
    mask_ = capacity - 1;
    shift_ = 64 - std::countr_zero(capacity);
    for (std::size_t i = 0; i < used.size(); ++i) {
      if (!used[i]) continue;
      std::size_t j = home(slots[i].first);
      while (used_[j]) j = (j + 1) & mask_;
      slots_[j] = std::move(slots[i]);
      used_[j] = 1;
    }
  }

  std::vector<value_type> slots_;
  std::vector<std::uint8_t> used_;  // per slot: whether it holds an entry
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

// Elements that stay where they are while more are added (the pass holds references to
// messages), in chunks of 256: one allocation per 256 messages, where a deque makes one
// per two. The chunks come from oneTBB's scalable allocator, which keeps freed memory for
// the next run instead of handing it back to the system (fresh pages cost a fault each).
// An element the pass is done with is released; a chunk whose elements all are is freed, so
// that what is kept is what is in flight (and the chunks of the few that linger). Elements
// are default-initialized, so T gives every field an initializer of its own.
template <class T>
class Chunked {
 public:
  Chunked() = default;
  // A copy of every chunk not freed yet (the contention-free replay forked from the pass).
  Chunked(const Chunked& o) : released_(o.released_), size_(o.size_) {
    chunks_.assign(o.chunks_.size(), nullptr);
    for (std::size_t c = 0; c < o.chunks_.size(); ++c) {
      if (o.chunks_[c] == nullptr) continue;
      chunks_[c] = alloc_.allocate(kChunk);
      const std::size_t used = std::min(kChunk, size_ - c * kChunk);
      for (std::size_t i = 0; i < used; ++i) {
        ::new (static_cast<void*>(chunks_[c] + i)) T(o.chunks_[c][i]);
      }
    }
  }
  Chunked& operator=(const Chunked&) = delete;
  ~Chunked() {
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      if (chunks_[c] == nullptr) continue;
      const std::size_t used = std::min(kChunk, size_ - c * kChunk);
      for (std::size_t i = 0; i < used; ++i) chunks_[c][i].~T();
      alloc_.deallocate(chunks_[c], kChunk);
    }
  }
  T& emplace_back() {
    if (size_ % kChunk == 0) {
      chunks_.push_back(alloc_.allocate(kChunk));
      released_.push_back(0);
    }
    T* slot = chunks_.back() + size_ % kChunk;
    ::new (static_cast<void*>(slot)) T;  // default-initialized: T's own initializers
    ++size_;
    return *slot;
  }
  T& operator[](std::size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  const T& operator[](std::size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  std::size_t size() const { return size_; }
  // Whether element i may still be read: false once its chunk has been freed.
  bool alive(std::size_t i) const { return chunks_[i / kChunk] != nullptr; }
  // Element i will not be read again (each is released at most once).
  void release(std::size_t i) {
    const std::size_t c = i / kChunk;
    if (++released_[c] < kChunk) return;
    for (std::size_t k = 0; k < kChunk; ++k) chunks_[c][k].~T();
    alloc_.deallocate(chunks_[c], kChunk);
    chunks_[c] = nullptr;
  }

 private:
  static constexpr std::size_t kChunk = 256;
  PoolAllocator<T> alloc_;
  std::vector<T*> chunks_;
  std::vector<std::uint16_t> released_;  // per chunk
  std::size_t size_ = 0;
};

// One operation of a node's log, copied out (with what it refers to) so that the node may
// go on appending while the pass works on it.
struct Fetched {
  OpRecord op;
  std::vector<std::uint32_t> list;
  // The replay: the answers the run's query got (read under the log's lock, as the node
  // appends more), and how many of them it has taken.
  std::vector<std::int64_t> answers;
  std::size_t next_answer = 0;
};

// How many answers the replay reads for op (its query's, from NodeLog::answers).
std::uint64_t answers_read(const OpRecord& op) {
  switch (op.kind) {
    case OpRecord::Kind::wait_any:
    case OpRecord::Kind::test:
    case OpRecord::Kind::now:
    case OpRecord::Kind::probe:
    case OpRecord::Kind::iprobe:
    case OpRecord::Kind::improbe:
    case OpRecord::Kind::cancel:
      return 1;
    case OpRecord::Kind::test_list:
      return op.list_size;
    default:
      return 0;
  }
}
enum class Fetch { op, later, none };  // an operation; not recorded yet; the node is done

// An event of the pass: at `time`, of a kind (0: message end, 1: node step, 2: a polling
// node's step, after the others'), about message or node `id` (never negative), and a
// message end's version (shared contention re-plans an end: the older ones are superseded).
// Taken in (time, kind, id, version) order. The kind and the id share one word, the kind in
// its top two bits, so that the queue's sifts compare two words where they compared four
// fields (most events of an instant share their time), and move 24 bytes instead of 32.
struct Event {
  Picos time;
  std::uint64_t order;  // kind << 62 | id
  std::uint64_t version;
  Event(Picos at, int kind, std::int64_t id, std::uint64_t v)
      : time(at), order(std::uint64_t(kind) << 62 | std::uint64_t(id)), version(v) {}
  int kind() const { return static_cast<int>(order >> 62); }
  std::int64_t id() const { return static_cast<std::int64_t>(order & ~(std::uint64_t{3} << 62)); }
  bool operator>(const Event& o) const {
    if (time != o.time) return time > o.time;
    if (order != o.order) return order > o.order;
    return version > o.version;
  }
};

// The pass's events, taken in (time, order, version) order: a binary heap, and beside it the
// node steps made at the instant being taken (open). A message that ends resumes its nodes at
// that very instant, and such a step, the earliest event there is, went up the whole heap
// when pushed and down it again when taken; here it goes to a list, sorted once when the
// list is first read (by then the instant's message ends, which come before every node step,
// have been taken), and each event is taken from the list or the heap, whichever comes
// first. Once the list is sorted, steps made at the instant go to the heap until the list is
// empty again; so every event is taken in the order the heap alone gave.
class EventQueue {
 public:
  bool empty() const { return heap_.empty() && instant_.empty(); }
  // The earliest time of an event (not empty; only between instants, when the list is empty).
  Picos top_time() const { return heap_.top().time; }
  void push(const Event& e) {
    if (open_ && !sorted_ && e.time == now_ && e.kind() == 1) {
      instant_.push_back(e);
    } else {
      heap_.push(e);
    }
  }
  // The instant t is being taken (until close): node steps made at t go to the list.
  void open(Picos t) {
    open_ = true;
    now_ = t;
  }
  void close() { open_ = false; }
  // Takes the next event at the open instant into e; false when there is none left.
  bool pop_at_instant(Event& e) {
    const bool heap_now = !heap_.empty() && heap_.top().time == now_;
    if (heap_now && heap_.top().kind() == 0) return pop_heap(e);  // a message end: first
    if (head_ < instant_.size()) {
      if (!sorted_) {
        std::sort(instant_.begin(), instant_.end(), [](const Event& a, const Event& b) {
          return b > a;
        });
        sorted_ = true;
      }
      if (!heap_now || heap_.top() > instant_[head_]) {
        e = instant_[head_++];
        if (head_ == instant_.size()) {
          instant_.clear();
          head_ = 0;
          sorted_ = false;
        }
        return true;
      }
    }
    return heap_now && pop_heap(e);
  }
  // The node whose step is the next event, if it is one (-1: a message end, or none): a hint,
  // for the pass to warm that node's state.
  int next_step() const {
    if (sorted_ && head_ < instant_.size()) return static_cast<int>(instant_[head_].id());
    if (!heap_.empty() && heap_.top().kind() != 0) return static_cast<int>(heap_.top().id());
    return -1;
  }

 private:
  bool pop_heap(Event& e) {
    e = heap_.top();
    heap_.pop();
    return true;
  }

  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap_;
  // Node steps at the open instant: [head_, end) not taken yet; sorted once read from.
  std::vector<Event> instant_;
  std::size_t head_ = 0;
  bool sorted_ = false;
  bool open_ = false;
  Picos now_ = 0;
};

class Simulator {
 public:
  // The pass over m's logs. contention_free: the replay with links that never hold anyone
  // up (no waits for them, no sharing of their bandwidth; store_and_forward keeps its
  // hops), run over complete logs after the run, following the answers the run's queries
  // got.
  Simulator(LocalNodes& m, Stats& stats, Trace& trace, bool contention_free = false)
      : m_(m), machine_(m.machine), model_(machine_.config.model), u_(machine_.units),
        links_(machine_.links), stats_(stats), trace_(trace), p_(m.p), free_(contention_free),
        record_(machine_.config.trace && !contention_free) {
    output_ = !free_ && static_cast<bool>(machine_.config.on_output);
    nodes_.assign(p_, NodeSim{});
    if (noisy_) detoured_.resize(p_);
    ports_ = PortOccupancy(model_.port, p_);
    // Per-link state only where links are used (see MachineImpl::uses_links).
    const int links = machine_.uses_links ? machine_.topology->link_count() : 0;
    held_ = LinkOccupancy(links);
    if (blocking_worms()) link_owner_.assign(links, -1);
    if (shared()) link_users_.assign(links, {});
    stats_.link_busy.assign(links, 0);
    stats_.link_peak.assign(links, 0);
    stats_.node_time.assign(p_, 0);
    trace_.nodes = p_;
    // Skew (Model::skew): each node takes its first step at its start delay.
    for (int n = 0; n < p_; ++n) push({start_delay(model_, n), 1, n, 0});
  }

  // The contention-free replay forked from the run's pass `lead` (see fork_replay): its
  // state, taken while links have held up no request and every operation the pass has taken
  // is one the replay takes alike. `paused`: the node whose step the replay goes on with
  // (the pass forked it there), or -1.
  Simulator(const Simulator& lead, Stats& stats, Trace& trace, int paused)
      : m_(lead.m_), machine_(lead.machine_), model_(lead.model_), u_(lead.u_),
        links_(lead.links_), stats_(stats), trace_(trace), p_(lead.p_), free_(true),
        record_(false), now_(lead.now_), in_instant_(lead.in_instant_), paused_(paused),
        complete_(lead.complete_), spinners_(lead.spinners_), idle_polls_(lead.idle_polls_),
        any_stopped_(lead.any_stopped_),
        msgs_(lead.msgs_), match_(lead.match_), wild_(lead.wild_),
        unmatched_(lead.unmatched_), meetings_(lead.meetings_), nodes_(lead.nodes_),
        detoured_(lead.detoured_),
        events_(lead.events_),
        pending_(lead.pending_), ports_(lead.ports_) {
    stats_ = lead.stats_;
    // Links never hold the replay up: it takes none.
    held_ = LinkOccupancy(static_cast<int>(lead.stats_.link_busy.size()));
  }

  // Streaming, where links are used and the replay has not been made yet: `fork` makes it
  // from this pass (Simulator(lead, ..., paused)) the first time the two would part (see
  // fork_replay).
  void fork_replay_with(std::function<void(int paused)> fork) { fork_ = std::move(fork); }

  // Streaming: the logs drop what this pass and `partner` (if any) have both used; `lead`:
  // the run's pass, when this is the contention-free replay running beside it.
  void stream(const Simulator* partner, const Simulator* lead) {
    streaming_ = true;
    partner_ = partner;
    lead_ = lead;
  }

  // Whether links ever changed the schedule; if not, the contention-free pass is this one.
  bool links_mattered() const { return links_mattered_; }
  // Operations taken from the logs so far.
  std::uint64_t taken() const { return taken_; }
  bool complete() const { return complete_; }
  // From now on, reaching an instant after `t` throws TimeLimitPassed (Machine::run_within):
  // every event at an instant belongs to a node whose clock ends there or later, so the
  // run's time (the latest node's) exceeds t.
  void stop_after(Picos t) { limit_ = t; }

  // Processes events in time order as far as the logs allow. Returns the node whose next
  // operation it needs and that has not recorded it yet, or -1 when the pass is complete.
  // Throws ScheduleDeadlock when nodes wait for what can never happen.
  int advance() {
    for (;;) {
      if (complete_) return -1;
      if (paused_ >= 0) {
        const int n = paused_;
        paused_ = -1;
        if (!step(n, now_)) return paused_ = n;
      }
      // The rest of the current instant: message ends, then node steps, then the grants.
      for (Event e{0, 0, 0, 0}; in_instant_ && events_.pop_at_instant(e);) {
        if (e.kind() == 0) {
          end_event(e, now_);
          continue;
        }
        if (const int next = events_.next_step(); next >= 0) warm(next);
        if (!step(static_cast<int>(e.id()), now_)) {
          return paused_ = static_cast<int>(e.id());
        }
      }
      if (in_instant_) {
        events_.close();
        arbitrate(now_);
        in_instant_ = false;
        continue;  // grants may end at this very instant (zero-time messages)
      }
      if (!spinners_.empty()) {
        // Nodes that tested twice in a row without success go on at the next instant at
        // which anything happens, after the other nodes' steps there (so that they see what
        // those did: a send a probe looks for). When nothing else can happen, they go on at
        // this instant: a loop of a bounded number of tests ends by itself; one that keeps
        // polling while nothing else can happen (MachineConfig::poll_limit rounds) is a
        // deadlock.
        Picos next = now_;
        if (events_.empty()) {
          if (++idle_polls_ > machine_.config.poll_limit) stuck();
        } else {
          idle_polls_ = 0;
          next = events_.top_time();
        }
        for (int n : spinners_) push({next, 2, n, 0});
        spinners_.clear();
      }
      if (events_.empty()) {
        if (!pending_.empty() || waiting_nodes() > 0) stuck();
        finish();
        complete_ = true;
        return -1;
      }
      now_ = events_.top_time();
      if (limit_ && now_ > *limit_) {
        throw TimeLimitPassed("vmc simulator: the run's time passed its limit");
      }
      in_instant_ = true;
      events_.open(now_);
    }
  }

 private:
  LocalNodes& m_;
  const MachineImpl& machine_;
  const Model& model_;
  const CostUnits& u_;
  const LinkTimes& links_;
  Stats& stats_;
  Trace& trace_;
  int p_;
  bool free_ = false;
  // The run's pass of a machine whose nodes mark lines of output (MachineConfig::on_output):
  // only then does fetch look for marks (a run without them reads nothing more per step).
  bool output_ = false;
  // Whether the trace's events are wanted (MachineConfig::trace, and not the replay): the
  // statistics never need them, and a run without them allocates nothing per message.
  bool record_ = true;
  // Whether the model has noise (Model::noise): detours stretch local work and hold sends.
  bool noisy_ = model_.noise.every > 0;
  bool store_and_forward_ = model_.routing == Routing::store_and_forward;
  bool links_mattered_ = false;  // a link held up a request or was shared
  // Streaming (the pass runs while the nodes do, and the logs drop what it has used): the
  // other pass over the same logs, whose use the logs wait for too (null: none); for the
  // replay, the run's pass (lead_), which says whether an irecv was withdrawn.
  bool streaming_ = false;
  const Simulator* partner_ = nullptr;
  const Simulator* lead_ = nullptr;
  Fetched* fetched_ = nullptr;  // the operation step() works on (its answers)
  // Lines of output that fetch found marked where node output_node_ is now (take_output),
  // which step hands on (hand_on_output) before it takes the node's operation.
  int output_node_ = -1;
  std::size_t output_lines_ = 0;
  // Where step() copies each operation out: one for the pass's life, not one (cleared, its
  // vectors allocated) per step.
  Fetched fetch_buffer_;
  std::uint64_t taken_ = 0;     // operations fetched
  // Makes the contention-free replay from this pass, once (see fork_replay); empty: none
  // to make.
  std::function<void(int paused)> fork_;
  // Where advance() stands: the instant in progress, the node whose step waits for an
  // operation (-1: none), whether the pass is over.
  Picos now_ = 0;
  std::optional<Picos> limit_;  // stop_after
  bool in_instant_ = false;
  int paused_ = -1;
  bool complete_ = false;
  std::vector<int> spinners_;
  std::uint64_t idle_polls_ = 0;  // rounds of failed polls in a row, nothing else left to happen
  bool any_stopped_ = false;      // a node has stopped (MachineConfig::failures)
  Chunked<Msg> msgs_;  // by id, in the order the sends were reached
  // Their entries come and go with every message: the queues' storage comes from the
  // scalable allocator (runtime/message.hpp), not malloc, and stays with the table's slots.
  MatchTable match_;
  // Receives from any source or of any tag, by (destination, comm), oldest first; and, once
  // a (destination, comm) has seen one, the messages sent there that no receive has taken
  // yet, by id (the order in which the pass reached their sends).
  std::unordered_map<std::uint64_t, std::vector<WildPost>> wild_;
  std::unordered_map<std::uint64_t, std::set<std::int64_t>> unmatched_;
  // Meetings some member has reached and not every one, by (group, sync number).
  std::map<std::pair<std::uint32_t, std::uint64_t>, Meeting> meetings_;
  std::vector<NodeSim> nodes_;
  // Noise: per node, the send it holds while NodeSim::held (allocated only with noise, so that
  // a run without it keeps NodeSim small).
  struct Detoured {
    OpRecord op;
  };
  std::vector<Detoured> detoured_;
  EventQueue events_;
  // Requests waiting for resources, (request, src, index, id) in increasing order: a sorted
  // vector, not a tree. A request is made at the instant the pass is at, never before any
  // waiting one, so it nearly always goes at the end; arbitrate keeps what it does not grant
  // in one sweep. (A std::set cost an allocation, a rebalance and a free per message.)
  using PendingKey = std::tuple<Picos, int, std::uint64_t, std::int64_t>;
  std::vector<PendingKey> pending_;
  void add_pending(const PendingKey& k) {
    if (pending_.empty() || pending_.back() < k) {
      pending_.push_back(k);
    } else {
      pending_.insert(std::upper_bound(pending_.begin(), pending_.end(), k), k);
    }
  }
  void remove_pending(const PendingKey& k) {
    const auto it = std::lower_bound(pending_.begin(), pending_.end(), k);
    if (it != pending_.end() && *it == k) pending_.erase(it);
  }
  // Whether a request may be granted at the next instant (see arbitrate).
  bool grants_may_change_ = true;
  // Stats::max_link_waiters (MachineConfig::count_link_waiters): per link, the arbitration
  // (counted in arbitrations_) its count of waiting requests belongs to, and the count.
  bool count_waiters_ = machine_.config.count_link_waiters;
  std::uint64_t arbitrations_ = 0;
  std::vector<std::pair<std::uint64_t, int>> link_waiters_;
  PortOccupancy ports_;  // the ports messages hold (runtime/ports.hpp)
  LinkOccupancy held_;   // the links messages hold: exclusive, or shared (counted)
  std::vector<std::int64_t> link_owner_;  // blocking worms: the message holding each link
  std::vector<std::vector<std::int64_t>> link_users_;  // shared: active messages per link
  std::vector<std::int64_t> sharers_;  // refresh_sharers' messages to refresh
  // Long routes of ended messages, their vectors kept for the next ones (no allocation per
  // message); at most kSpareRoutes.
  static constexpr std::size_t kSpareRoutes = 4096;
  std::vector<std::vector<LinkId>> spare_routes_;

  void push(Event e) { events_.push(e); }
  // The pass drops what it has used from the logs (streaming), so it holds them writable.
  NodeLog& log_of(int n) { return const_cast<NodeLog&>(m_.log_of(n)); }
  std::int64_t id_of(const Msg& x) const { return x.id; }

  // Asks for the memory node n's step will read first, one event before it, so that its
  // misses overlap each other and the event before instead of following one another: the
  // pass's own record of the node, and what fetch reads of the node's state (the flag that it
  // finished, its log's lock, the heads of its log's sequences); the step then asks for its
  // log's next operation and send, where the last fetch left them (NodeSim::next_op). On a
  // large machine each node is met once in a long while, and all of this has left the cache
  // meanwhile (a log written on the other core is in the other core's). Hints only: nothing
  // is read, and a log that has grown since has moved its entries (the hint is then wasted,
  // never wrong).
  void warm(int n) const {
    const auto k = static_cast<std::size_t>(n);
    __builtin_prefetch(&nodes_[k]);
    if (!m_.hosts(n)) return;
    const NodeState* node = m_.nodes[static_cast<std::size_t>(n)].get();
    __builtin_prefetch(&node->log_mutex);  // with `finished` and the operations' ring
  }

  // Copies node n's operation number pc out of its log. A node still running may not have
  // recorded it yet: then the pass notes that it waits for this node (under the log's
  // lock, so that the node's next append sees it and wakes whoever waits for an answer).
  // A spread machine's pass runs after the run, on process 0, over every process's logs
  // (LocalNodes::log_of): a node of another process has finished.
  //
  // While the run goes on (streaming), the log drops what this pass and its partner (the
  // contention-free replay beside it, if any) have both copied out; and the replay takes an
  // operation only once it is final: its answers are in the log, what the node's receive
  // took is written in, and an irecv is known to be matched or withdrawn in the run's pass.
  // The run's pass, not the contention-free replay, at operation pc of node n: the lines of
  // output n marked before logging operation pc (MachineConfig::on_output; l under n's log
  // lock while n runs). They are handed on from step, in the pass's order: the same on every
  // run.
  void take_output(int n, std::uint64_t pc, NodeLog& l) {
    std::size_t lines = 0;
    while (!l.output_marks.empty() && l.output_marks.front() <= pc) {
      l.output_marks.pop_front();
      ++lines;
    }
    if (lines == 0) return;
    m_.output_marks.fetch_sub(lines, std::memory_order_relaxed);
    output_node_ = n;
    output_lines_ += lines;
  }
  void hand_on_output() {
    const std::size_t lines = output_lines_;
    output_lines_ = 0;
    machine_.config.on_output(output_node_, lines);
  }

  Fetch fetch(int n, std::size_t pc, Fetched& out) {
    NodeState* node = m_.hosts(n) ? m_.nodes[n].get() : nullptr;
    const bool running = node != nullptr && !node->finished.load(std::memory_order_acquire);
    // The log's lock while its node runs (and may append), taken and let go inline (a
    // std::unique_lock made empty and assigned cost a move and two tests more per record).
    struct Held {
      LogMutex* mutex;
      ~Held() {
        if (mutex != nullptr) mutex->unlock();
      }
    } held{running ? &node->log_mutex : nullptr};
    if (held.mutex != nullptr) held.mutex->lock();
    NodeLog& l = node != nullptr ? node->log : log_of(n);
    if (output_ && m_.output_marks.load(std::memory_order_acquire) != 0) take_output(n, pc, l);
    if (pc >= l.ops.size()) {
      if (!running) return Fetch::none;
      if (!free_) m_.sim_waits_for.store(n, std::memory_order_release);
      return Fetch::later;
    }
    out.op = l.ops[pc];
    if (fork_ && parts_passes(out.op)) fork_replay(n);
    if (running && lead_ != nullptr && !final_in_log(n, out.op, l)) return Fetch::later;
    NodeSim& s = nodes_[n];
    s.next_op = &l.ops[pc + 1];
    switch (out.op.kind) {
      case OpRecord::Kind::wait:
      case OpRecord::Kind::wait_any:
      case OpRecord::Kind::test_list:
        out.list.resize(out.op.list_size);
        for (std::uint32_t k = 0; k < out.op.list_size; ++k) {
          out.list[k] = l.request_lists[out.op.list_begin + k];
        }
        s.lists_used = out.op.list_begin + out.op.list_size;
        break;
      default:
        break;
    }
    out.answers.clear();
    out.next_answer = 0;
    if (free_ || out.op.known) {  // a known query's answer: what the pass must give too
      const std::uint64_t first = s.answers, last = first + answers_read(out.op);
      for (std::uint64_t k = first; k < last && l.answers.holds(k); ++k) {
        out.answers.push_back(l.answers[k]);
      }
    }
    if (streaming_) drop_used(n, pc + 1, out.op, l);
    ++taken_;
    return Fetch::op;
  }

  // The contention-free replay made lazily. It takes the decisions the run's pass takes for
  // as long as no link has held a request up and every operation the pass has met is one
  // both passes take alike (parts_passes: no query, whose answer the replay reads from the
  // log, and no receive whose message the pass names). Until then the replay's state would
  // be the pass's own, so the pass runs alone and, the first time either happens, makes the
  // replay from its state (a copy) and from then on runs with it beside; most runs never
  // need it. `paused`: the node whose step the pass is in (its operation `pc` fetched but
  // not taken), which the replay goes on with; -1 from arbitrate (the replay arbitrates the
  // instant again: nothing the pass did in it so far depended on links).
  void fork_replay(int paused) {
    if (!fork_) return;
    const std::function<void(int)> fork = std::move(fork_);
    fork_ = nullptr;
    fork(paused);
  }
  static bool parts_passes(const OpRecord& op) {
    if (op.report) return true;
    switch (op.kind) {
      case OpRecord::Kind::compute:
      case OpRecord::Kind::send:
      case OpRecord::Kind::recv:
      case OpRecord::Kind::sendrecv:
      case OpRecord::Kind::isend:
      case OpRecord::Kind::irecv:
      case OpRecord::Kind::wait:
      case OpRecord::Kind::sync:
      case OpRecord::Kind::fail:
        return false;
      default:
        return true;
    }
  }

  // Streaming: node n's log forgets what both passes have copied out (this one up to
  // operation pc, not yet counted in its NodeSim).
  void drop_used(int n, std::size_t pc, const OpRecord& op, NodeLog& l) const {
    const NodeSim& s = nodes_[n];
    const NodeSim* o = partner_ != nullptr ? &partner_->nodes_[n] : nullptr;
    l.ops.drop_before(o != nullptr ? std::min<std::uint64_t>(pc, o->pc) : pc);
    // The other rings only after an operation that used them (their heads are in lines the
    // pass need not read otherwise); what a partner still needed then goes at the next.
    switch (op.kind) {
      case OpRecord::Kind::send:
      case OpRecord::Kind::sendrecv:
      case OpRecord::Kind::isend:
      case OpRecord::Kind::recv:
      case OpRecord::Kind::irecv:
      case OpRecord::Kind::compute:
        return;
      default:
        break;
    }
    // Most runs log no request list and no answer: nothing held there, nothing to drop.
    if (l.request_lists.base() != l.request_lists.size()) {
      l.request_lists.drop_before(o != nullptr ? std::min(s.lists_used, o->lists_used)
                                               : s.lists_used);
    }
    if (l.answers.base() != l.answers.size()) {
      std::uint64_t answers = free_ ? s.answers : l.answers.size();
      if (o != nullptr && partner_->free_) answers = std::min<std::uint64_t>(answers, o->answers);
      l.answers.drop_before(answers);
    }
  }

  // The replay beside a running node: whether op is final in its log (see fetch).
  bool final_in_log(int n, OpRecord& op, const NodeLog& l) const {
    const NodeSim& s = nodes_[n];
    if (s.answers + answers_read(op) > l.answers.size()) return false;
    switch (op.kind) {
      case OpRecord::Kind::irecv: {
        // Withdrawn or not is known once the run's pass has matched it or withdrawn it.
        const auto& reqs = lead_->nodes_[n].reqs;
        if (op.request >= reqs.size()) return false;
        const Req& q = reqs[op.request];
        if (q.msg < 0 && !q.done) return false;
        op.cancelled = q.msg < 0;
        return op.cancelled || !op.report || op.recorded;
      }
      case OpRecord::Kind::probe:
      case OpRecord::Kind::iprobe:
      case OpRecord::Kind::improbe:
        // Found nothing, or failed (a negative answer): nothing to write in.
        return l.answers[s.answers] <= 0 || op.recorded;
      default:
        return !op.report || op.recorded;
    }
  }

  // The replay: the next answer the run's query got, from node n's log.
  std::int64_t logged_answer(int n) {
    if (fetched_ == nullptr || fetched_->next_answer >= fetched_->answers.size()) {
      throw std::out_of_range("vmc simulator: node " + std::to_string(n) +
                              "'s log holds no answer to its query");
    }
    ++nodes_[n].answers;
    return fetched_->answers[fetched_->next_answer++];
  }

  // A query's answer: published to the waiting node in the run's pass; read back from the
  // node's log in the contention-free replay. A query the node answered itself
  // (OpRecord::known) waits for nothing: the pass checks that it gives the same answer.
  std::int64_t answer(int n, std::int64_t value, bool known = false) {
    NodeSim& s = nodes_[n];
    if (free_) return logged_answer(n);
    if (known) {
      check_known(n, std::span<const std::int64_t>(&value, 1));
      ++s.answers;
      return value;
    }
    ++s.answers;
    NodeState& node = *m_.nodes[n];
    node.answer = value;
    node.answered.store(true, std::memory_order_release);
    m_.wake(node);
    return value;
  }
  void check_known(int n, std::span<const std::int64_t> values) const {
    if (!std::ranges::equal(values, fetched_->answers)) {
      throw std::logic_error("vmc simulator: node " + std::to_string(n) +
                             " answered a query asked again itself, and the pass's answer "
                             "differs");
    }
  }
  // test_list's answer: a value per request (the run's pass publishes them together).
  std::vector<std::int64_t> answer_list(int n, std::vector<std::int64_t> values,
                                        bool known = false) {
    NodeSim& s = nodes_[n];
    if (free_) {
      for (std::int64_t& v : values) v = logged_answer(n);
      return values;
    }
    if (known) check_known(n, values);
    s.answers += values.size();
    if (known) return values;
    NodeState& node = *m_.nodes[n];
    node.answer_list = values;
    node.answered.store(true, std::memory_order_release);
    m_.wake(node);
    return values;
  }
  // A synchronous send's receive is posted: its sender may go on in its run (it waits there
  // for this, so that it follows the order virtual time gives).
  void acknowledge_sync(const Msg& x) {
    if (!m_.hosts(x.src)) return;
    NodeState& node = *m_.nodes[x.src];
    if (node.finished.load(std::memory_order_acquire)) return;  // the pass after the run
    {
      std::lock_guard lock(node.decisions_mutex);
      node.sync_acks.push_back(x.index);
    }
    m_.wake(node);
  }
  // A deferred receive was matched: the node learns which message it takes.
  void publish(const RecvPost& r, const Msg& x) {
    if (!r.report || free_) return;
    NodeState& node = *m_.nodes[r.node];
    {
      std::lock_guard lock(node.decisions_mutex);
      node.decisions.push_back(Decision{r.request, x.comm, x.src, x.tag});
    }
    m_.wake(node);
  }

  // A deferred receive fails: no message will come, as node k has stopped (`any`: by the
  // rule of a receive from any source). The node learns it as it learns a match.
  void publish_failure(const RecvPost& r, int k, bool any) {
    if (!r.report || free_) return;
    NodeState& node = *m_.nodes[r.node];
    {
      std::lock_guard lock(node.decisions_mutex);
      node.decisions.push_back(Decision{r.request, 0, k, kFailedTag, k, any});
    }
    m_.wake(node);
  }
  // A probe's answer: 1 and the message x, or a failure for node `failed` (the run's pass
  // publishes it), or 0; the replay's is the run's, from the log.
  std::int64_t answer_probe(int n, const Msg* x, int failed) {
    if (!free_) {
      Found found;
      if (x != nullptr) {
        found = Found{true, x->src, x->tag, x->bytes, x->items};
      } else {
        found.failed = failed;
      }
      m_.nodes[n]->found = found;
    }
    return answer(n, x != nullptr ? 1 : failed >= 0 ? answer_of_failed(failed) : 0);
  }
  // Node n's constructor met (1) or failed (answer_of_failed): a word for its run, where it
  // waits for it while the machine has failures (VirtualClock::wait_meeting).
  // `key`: the meeting's (group, sync number); a word for a meeting the node has left in its
  // run already (a split whose members all came) is dropped.
  void tell_meeting(int n, std::pair<std::uint32_t, std::uint64_t> key, std::int64_t word) {
    if (free_ || !machine_.failing() || !m_.hosts(n)) return;
    NodeState& node = *m_.nodes[n];
    if (node.finished.load(std::memory_order_acquire)) return;
    {
      std::lock_guard lock(node.decisions_mutex);
      if (node.meeting != key) return;
      node.meeting_word = static_cast<int>(word);
    }
    m_.wake(node);
  }

  bool self(const Msg& x) const { return x.src == x.dst; }
  // A message that holds no port and no link and takes no time: one to the sender itself, or
  // one a failed link lost (MachineConfig::link_failures: it ends at its start, and its
  // receive completes at the later of its posting and that time).
  bool bypass(const Msg& x) const { return self(x) || x.lost; }
  bool store_and_forward() const { return store_and_forward_; }
  bool shared() const { return !free_ && model_.contention == Contention::shared; }
  bool rendezvous() const { return model_.protocol == Protocol::rendezvous; }
  // 004 §13: a blocked worm holds the links it has (wormhole routing, exclusive links).
  bool blocking_worms() const {
    return !free_ && model_.worm == Worm::blocking && model_.routing == Routing::wormhole &&
           model_.contention == Contention::exclusive;
  }
  // Whether x may start as far as its receiver is concerned (rendezvous, or a synchronous
  // send: once its receive is posted).
  bool posted(const Msg& x) const {
    return (!rendezvous() && !x.sync) || self(x) || x.recv_posted;
  }
  Picos hop_time(const Msg& x) const {
    return bypass(x) ? 0 : links_.message(u_, hop_links(x), x.items);
  }
  // Its contention-free duration: every hop alone on its links.
  Picos free_time(const Msg& x) const {
    const bool hops = store_and_forward() && !x.route.empty();
    if (links_.uniform() || !hops) {
      return checked_mul(hop_time(x), hops ? x.route.size() : 1, "message time");
    }
    Picos total = 0;
    for (LinkId l : x.route.links()) {
      total = checked_add(total, links_.message(u_, std::span<const LinkId>(&l, 1), x.items),
                          "message time");
    }
    return total;
  }
  // Its per-item time while the links of its hop carry the messages they do now (shared).
  Picos shared_rate(const Msg& x) const {
    return links_.item_time(u_, hop_links(x), [this](LinkId l) {
      return std::max<std::uint64_t>(1, link_users_[l].size());
    });
  }

  // Links the message needs for its current hop (all of them under wormhole).
  std::span<const LinkId> hop_links(const Msg& x) const {
    const std::span<const LinkId> route = x.route.links();
    return store_and_forward_ && !route.empty() ? route.subspan(x.hop, 1) : route;
  }

  // --- node steps ---------------------------------------------------------------------------
  // The critical path of a node that tested from `from` on (its first failed test in a row)
  // and found requests done: a wait's from then (wait_on), through the latest of them that
  // completed after `from`, so that a loop of tests counts what a wait counts.
  struct TestedPath {
    Picos from;
    int crit;
    void add(Picos end, int c) {
      if (end > from) {
        from = end;
        crit = c;
      } else if (end == from) {
        crit = std::max(crit, c);
      }
    }
  };

  void wait_on(NodeSim& n, Picos end, int crit) {
    if (end > n.resume) {
      n.resume = end;
      n.resume_crit = crit;
    } else if (end == n.resume) {
      n.resume_crit = std::max(n.resume_crit, crit);
    }
  }

  void request(Msg& x, Picos t, int crit) {
    x.state = MsgState::pending;
    x.request = x.first_request = x.eligible = x.blocked_since = t;
    x.crit = crit + (bypass(x) ? 0 : 1);
    if (!bypass(x) && machine_.uses_links) {
      if (x.around < 0) {
        x.route.make(*machine_.topology, x.src, x.dst, spare_routes_);
      } else if (machine_.route_around_down(x.src, x.dst, x.around,
                                            x.route.long_route(spare_routes_))) {
        x.route.settle();
      } else {
        throw std::logic_error("vmc simulator: node " + std::to_string(x.src) +
                               "'s message to node " + std::to_string(x.dst) +
                               " has no route around the failed links it was sent around");
      }
    }
    try {
      x.free_time = free_time(x);
    } catch (const std::overflow_error& e) {
      throw std::overflow_error("node " + std::to_string(x.src) + ": send of " +
                                std::to_string(x.items) + " items to node " +
                                std::to_string(x.dst) + ": " + e.what());
    }
    add_pending({t, x.src, x.index, x.id});
    grants_may_change_ = true;
  }

  // Rendezvous: the receiver posted for x at t, so x is requested (again) from t on.
  void post(Msg& x, Picos t) {
    if ((!rendezvous() && !x.sync) || x.state != MsgState::pending || x.hop > 0 || self(x)) {
      return;
    }
    remove_pending({x.request, x.src, x.index, x.id});
    x.request = x.eligible = x.blocked_since = t;
    x.port_blocked = false;
    add_pending({t, x.src, x.index, x.id});
    grants_may_change_ = true;
  }

  Picos after(Picos t, Picos d, int node) const {
    Picos r = 0;
    if (__builtin_add_overflow(t, d, &r)) {
      throw std::overflow_error("node " + std::to_string(node) + ": simulated time " +
                                std::to_string(to_seconds(t)) + " s + " +
                                std::to_string(to_seconds(d)) +
                                " s does not fit in vmc's picosecond clock (at most about 9.2e6 s)");
    }
    return r;
  }

  // Requests are left but nothing can happen: under rendezvous, sends whose receivers
  // never post (each blocked in a send of its own); otherwise a simulator fault.
  // Nothing is left to happen but nodes or messages still wait: under rendezvous, sends
  // whose receives are never posted (each receiver blocked in a send of its own); blocking
  // worms in a cycle; receives or tests no send will ever satisfy.
  [[noreturn]] void stuck() {
    if (blocking_worms()) network_deadlock();
    std::string text;
    int shown = 0;
    bool synchronous = false;
    for (const auto& [t, src, index, id] : pending_) {
      const Msg& x = msgs_[id];
      if (posted(x)) continue;
      synchronous = synchronous || x.sync;
      if (shown++ < 8) {
        text += "\n  node " + std::to_string(x.src) + ": " + (x.sync ? "synchronous " : "") +
                "send " + tag_text(x.tag) + " to node " + std::to_string(x.dst) +
                " (requested at " + format_duration(to_seconds(x.first_request)) + ")";
      }
    }
    if (shown > 0) {
      throw ScheduleDeadlock(
          std::string(synchronous && !rendezvous()
                          ? "deadlock: these synchronous sends wait for receives that are "
                            "never posted (their receivers are blocked in calls of their own)"
                          : "deadlock under the rendezvous protocol: these sends wait for "
                            "receives that are never posted (their receivers are blocked in "
                            "sends of their own; with eager sends the program completes)") +
          ":" + text);
    }
    for (const auto& [key, q] : match_) {
      for (const RecvPost& r : q.recvs) {
        if (shown++ < 8) {
          text += "\n  node " + std::to_string(r.node) + ": " +
                  (r.request < 0 ? "recv" : "irecv") + " from node " + std::to_string(key.src) +
                  " " + tag_text(key.tag) + " on comm " + std::to_string(key.comm) +
                  " (posted at " + format_duration(to_seconds(r.at)) + ")";
        }
      }
    }
    for (const auto& [k, posts] : wild_) {
      for (const WildPost& w : posts) {
        if (shown++ < 8) {
          text += "\n  node " + std::to_string(w.post.node) + ": " +
                  (w.post.request < 0 ? "recv" : "irecv") + " from " +
                  (w.src == kAnySource ? std::string("any node") : "node " + std::to_string(w.src)) +
                  " " + tag_text(w.tag) +
                  " on comm " + std::to_string(std::uint32_t(k)) + " (posted at " +
                  format_duration(to_seconds(w.post.at)) + ")";
        }
      }
    }
    for (int n = 0; n < p_; ++n) {
      const NodeSim& s = nodes_[n];
      if (!s.probing && s.probe_request < 0) continue;
      if (shown++ < 8) {
        text += "\n  node " + std::to_string(n) + ": " + (s.probing ? "probe" : "mprobe") +
                " waits for a message";
        if (s.probing) {
          text += std::string(" from ") +
                  (s.probe_src == kAnySource ? std::string("any node")
                                             : "node " + std::to_string(s.probe_src)) +
                  " " + tag_text(s.probe_tag) +
                  " on comm " + std::to_string(s.probe_comm);
        }
      }
    }
    for (const auto& [key, m] : meetings_) {
      for (int n : m.waiting) {
        if (shown++ < 8) {
          text += "\n  node " + std::to_string(n) + ": a communicator constructor on comm " +
                  std::to_string(key.first) + " waits for the group's other members (" +
                  std::to_string(m.arrived) + " have reached it)";
        }
      }
    }
    for (int n : spinners_) {
      if (shown++ < 8) {
        text += "\n  node " + std::to_string(n) +
                ": tests or probes again and again while nothing else can happen (" +
                std::to_string(machine_.config.poll_limit) + " rounds in a row: the poll limit)";
      }
    }
    if (shown == 0) {
      throw std::logic_error("vmc simulator: nodes left waiting with no event to free them");
    }
    throw ScheduleDeadlock(
        "deadlock: every unfinished node waits, and no message that could release one will "
        "ever be sent:" + text);
  }

  // Blocking worms that hold links and wait for links held by each other (possible only
  // where routes can form a cycle: wraparound links). Returns when there are none.
  void network_deadlock() const {
    std::string text;
    int shown = 0;
    const Topology& topo = *machine_.topology;
    auto name = [&](LinkId l) {
      const DirectedLink d = topo.link(l);
      return std::to_string(d.from) + "->" + std::to_string(d.to);
    };
    for (const auto& [t, src, index, id] : pending_) {
      const Msg& x = msgs_[id];
      // Those that hold links and wait (a worm waiting with nothing held is a bystander).
      if (x.links_held == 0 || x.links_held == x.route.size()) continue;
      const LinkId l = x.route[x.links_held];
      const std::int64_t owner = link_owner_[l];
      if (shown++ < 8) {
        text += "\n  node " + std::to_string(x.src) + " -> node " + std::to_string(x.dst) +
                " holds " + std::to_string(x.links_held) + " of its " +
                std::to_string(x.route.size()) + " links and waits for link " + name(l);
        if (owner >= 0) {
          text += ", held by the worm node " + std::to_string(msgs_[owner].src) + " -> node " +
                  std::to_string(msgs_[owner].dst);
        }
      }
    }
    if (shown == 0) return;
    throw ScheduleDeadlock(
        "network deadlock under --worm blocking: worms hold links and wait for each other's "
        "in a cycle (routes over wraparound links can close one; use --worm atomic, or a "
        "mesh without wraparound):" + text);
  }

  // Runs node id's operations from time t until it blocks or finishes. Returns false when
  // it needs an operation the node has not recorded yet: it is called again, at the same
  // time t, once the node has.
  bool step(int id, Picos t) {
    NodeSim& n = nodes_[id];
    n.clock = t;
    __builtin_prefetch(n.next_op);
    if (n.any) finish_any(id, t);
    Fetched& f = fetch_buffer_;
    fetched_ = &f;
    struct Unset {
      Fetched*& p;
      ~Unset() { p = nullptr; }
    } unset{fetched_};
    for (;;) {
      if (n.held) {
        n.held = false;
        f.op = detoured_[id].op;
      } else {
        const Fetch got = fetch(id, n.pc, f);
        if (output_lines_ != 0) hand_on_output();
        switch (got) {
          case Fetch::later: return false;
          case Fetch::none:
            n.finished = true;
            stats_.node_time[id] = n.clock;
            return true;
          case Fetch::op: break;
        }
        // Noise: a send reached during a detour is made at its end (the node is away).
        if (noisy_ && (f.op.kind == OpRecord::Kind::send ||
                       f.op.kind == OpRecord::Kind::sendrecv ||
                       f.op.kind == OpRecord::Kind::isend)) {
          const Picos clear = noise_clear(model_, id, t);
          if (clear > t) {
            n.held = true;
            detoured_[id] = {f.op};
            n.clock = clear;
            push({clear, 1, id, 0});
            return true;
          }
        }
      }
      const OpRecord& op = f.op;
      ++n.pc;
      drop_requests(id, op);
      const bool tested_last = n.tested_last;
      n.tested_last = false;
      if (op.kind != OpRecord::Kind::now) n.clock_reads = 0;
      switch (op.kind) {
        case OpRecord::Kind::compute: {
          // Noise stretches local work past the detours it meets.
          const Picos end =
              noisy_ ? noisy_end(model_, id, t, op.duration) : after(t, op.duration, id);
          if (op.duration > 0 || op.work_items > 0) {
            if (record_) trace_.combines.push_back({id, op.work_items, t, end, op.work});
            if (op.work == Work::combine) stats_.combined_items += op.work_items;
            if (op.work == Work::rearrange) stats_.rearranged_items += op.work_items;
          }
          if (op.duration > 0) {
            n.clock = end;
            push({n.clock, 1, id, 0});
            return true;
          }
          break;
        }
        case OpRecord::Kind::send:
        case OpRecord::Kind::recv:
        case OpRecord::Kind::sendrecv: {
          n.resume = t;
          n.resume_crit = n.crit;
          if (op.kind != OpRecord::Kind::recv) {
            Msg& out = send_message(id, op, t);
            if (!refused_sync(out, t)) {
              out.sender_waits = true;
              ++n.outstanding;
            }
          }
          if (op.kind != OpRecord::Kind::send) post_receive(id, -1, op, t);
          if (n.outstanding > 0) return true;
          t = n.resume;
          n.crit = n.resume_crit;
          n.clock = t;
          break;
        }
        case OpRecord::Kind::isend: {
          grow_requests(n, op.request);
          Msg& out = send_message(id, op, t);
          n.reqs[op.request].msg = out.id;
          if (refused_sync(out, t)) {
            Req& q = n.reqs[op.request];
            q.done = true;
            q.done_at = t;
            q.crit = n.crit;
          } else {
            out.send_request = static_cast<int>(op.request);
          }
          break;
        }
        case OpRecord::Kind::irecv:
          grow_requests(n, op.request);
          // The replay leaves out a receive the run withdrew (its cancel completes it).
          if (!(free_ && op.cancelled)) post_receive(id, static_cast<int>(op.request), op, t);
          break;
        case OpRecord::Kind::wait: {
          n.resume = t;
          n.resume_crit = n.crit;
          for (std::uint32_t r : f.list) await_request(n, r);
          if (n.outstanding > 0) return true;
          t = n.resume;
          n.crit = n.resume_crit;
          n.clock = t;
          break;
        }
        case OpRecord::Kind::wait_any: {
          n.resume = t;
          n.resume_crit = n.crit;
          if (free_) {
            // The replay takes the run's answer, and waits for that request if need be.
            await_request(n, f.list.at(answer(id, 0)));
          } else if (first_done(n, f.list) >= 0) {
            answer(id, first_done(n, f.list));
          } else {
            n.any = true;
            n.any_list = f.list;
            for (std::uint32_t r : f.list) n.reqs.at(r).waited_on = true;
            n.outstanding = 1;
          }
          if (n.outstanding > 0) return true;
          break;
        }
        case OpRecord::Kind::now:
          // A node that only reads the clock waits for a time that never comes: virtual
          // time moves with messages and charged work only.
          if (++n.clock_reads > machine_.config.poll_limit) {
            throw ScheduleDeadlock(
                "node " + std::to_string(id) + " read its clock " +
                std::to_string(machine_.config.poll_limit) + " times in a row with nothing in between: a "
                "loop that waits for the clock to pass a value never ends, since virtual time "
                "moves only with messages and charged work (charge the work, or wait for a "
                "message instead)");
          }
          // A clock read changes nothing: a failed query before it and one after it are a
          // failed query asked again with nothing in between (a loop of tests that reads
          // MPI_Wtime moves on in virtual time, as one without it does).
          n.tested_last = tested_last;
          answer(id, t);
          break;
        case OpRecord::Kind::test: {
          const Req& q = n.reqs.at(op.request);
          const bool done = answer(id, q.done ? 1 : 0, op.known) != 0;
          if (done) {
            if (free_ && !q.done) {  // the replay keeps the run's answer: wait for it
              n.resume = t;
              n.resume_crit = n.crit;
              await_request(n, op.request);
              return true;
            }
            TestedPath path{tested_last ? n.spin_from : t, n.crit};
            path.add(q.done_at, q.crit);
            n.crit = path.crit;
          } else if (failed_query(id, tested_last, t)) {
            return true;
          }
          break;
        }
        case OpRecord::Kind::test_list: {
          std::vector<std::int64_t> keys(f.list.size(), -1);
          for (std::size_t k = 0; k < keys.size(); ++k) {
            const Req& q = n.reqs.at(f.list[k]);
            if (q.done) keys[k] = q.done_at;
          }
          keys = answer_list(id, std::move(keys), op.known);
          bool any = false, all = true;
          n.resume = t;
          n.resume_crit = n.crit;
          TestedPath path{tested_last ? n.spin_from : t, n.crit};
          for (std::size_t k = 0; k < keys.size(); ++k) {
            const Req& q = n.reqs.at(f.list[k]);
            any = any || keys[k] >= 0;
            all = all && keys[k] >= 0;
            if (keys[k] < 0) continue;
            if (free_ && !q.done) {
              await_request(n, f.list[k]);  // the replay keeps the run's answer
            } else {
              path.add(q.done_at, q.crit);
            }
          }
          if (n.outstanding > 0) return true;
          n.crit = path.crit;
          if (!(op.all ? all : any) && failed_query(id, tested_last, t)) return true;
          break;
        }
        case OpRecord::Kind::probe: {
          const std::int64_t m = find_unmatched(id, op.recv_comm, op.recv_src, op.recv_tag);
          if (free_) {
            // The replay: the run's answer, given now. A probe the run failed (a negative
            // answer) waits for its failed node to stop, as a receive from it does.
            const std::int64_t a = answer(id, 1);
            if (a < 0) {
              const int k = failed_of_answer(a);
              if (nodes_[k].stopped) break;
              wait_for_probe(id, op.recv_comm, k, kFailedTag, t);
              return true;
            }
            if (m >= 0) break;
            wait_for_probe(id, op.recv_comm, op.recv_src, op.recv_tag, t);
            return true;
          }
          if (m >= 0) {
            answer_probe(id, &msgs_[m], -1);
            break;
          }
          // No message will come: a failed node it needs has stopped (stop, for the later).
          if (const int k = failed_for(id, op.recv_comm, op.recv_src); k >= 0) {
            answer_probe(id, nullptr, k);
            break;
          }
          wait_for_probe(id, op.recv_comm, op.recv_src, op.recv_tag, t);
          return true;
        }
        case OpRecord::Kind::iprobe: {
          const std::int64_t m = find_unmatched(id, op.recv_comm, op.recv_src, op.recv_tag);
          const int k = m < 0 ? failed_for(id, op.recv_comm, op.recv_src) : -1;
          const std::int64_t a = answer_probe(id, m >= 0 ? &msgs_[m] : nullptr, k);
          if (a > 0 && m < 0) {  // the replay keeps the run's answer: wait for the message
            wait_for_probe(id, op.recv_comm, op.recv_src, op.recv_tag, t);
            return true;
          }
          if (a <= 0 && failed_query(id, tested_last, t)) return true;
          break;
        }
        case OpRecord::Kind::mprobe:
          grow_requests(n, op.request);
          // Not bound, and not failed at once (a failed node it needed had stopped).
          if (!post_receive(id, static_cast<int>(op.request), op, t) &&
              !n.reqs.at(op.request).done) {
            wait_for_binding(id, static_cast<int>(op.request), t);
            return true;
          }
          break;
        case OpRecord::Kind::improbe: {
          grow_requests(n, op.request);
          bool found = false;
          if (free_) {
            found = answer(id, 0) > 0;  // negative: the run's improbe failed
            if (found && !post_receive(id, static_cast<int>(op.request), op, t)) {
              wait_for_binding(id, static_cast<int>(op.request), t);
              return true;
            }
          } else {
            // Bound (and its choice published) before the answer wakes the node.
            found = find_unmatched(id, op.recv_comm, op.recv_src, op.recv_tag) >= 0 &&
                    post_receive(id, static_cast<int>(op.request), op, t);
            // Nothing to bind, and a failed node it needs has stopped: it fails.
            const int k = found ? -1 : failed_for(id, op.recv_comm, op.recv_src);
            answer(id, found ? 1 : k >= 0 ? answer_of_failed(k) : 0);
          }
          if (!found && failed_query(id, tested_last, t)) return true;
          break;
        }
        case OpRecord::Kind::sync:
          if (meet(id, op, t)) return true;
          break;
        case OpRecord::Kind::fail:
          stop(id, t);
          break;
        case OpRecord::Kind::cancel: {
          if (free_) {
            // A replay forked from the pass after the receive was posted withdraws it (one
            // beside the run from its start left it out: fetch).
            if (answer(id, 0) != 0 && !withdraw(id, static_cast<int>(op.request), t)) {
              Req& q = n.reqs.at(op.request);
              q.done = true;
              q.done_at = t;
              q.crit = n.crit;
            }
          } else {
            answer(id, withdraw(id, static_cast<int>(op.request), t) ? 1 : 0);
          }
          break;
        }
      }
    }
  }

  // Node id reaches, at t, its sync `op` (a communicator constructor): it waits until every
  // member of the group has reached it, and they all go on at the latest of their times.
  // Nothing is charged and nothing counted (a meeting is no message); each member keeps its
  // own chain of startups. Whether the node stops here.
  bool meet(int id, const OpRecord& op, Picos t) {
    const auto key = std::make_pair(op.recv_comm, op.sync_seq);
    // A member that has stopped never comes: the constructor fails at once (stop fails the
    // members that came before it stopped).
    if (const int k = failed_for(id, op.recv_comm, kAnySource); k >= 0) {
      tell_meeting(id, key, answer_of_failed(k));
      return false;
    }
    Meeting& m = meetings_[key];
    m.latest = std::max(m.latest, t);
    if (++m.arrived < op.list_size) {
      NodeSim& n = nodes_[id];
      m.waiting.push_back(id);
      n.resume = t;
      n.resume_crit = n.crit;
      n.outstanding = 1;
      return true;
    }
    const Picos at = m.latest;
    const std::vector<int> waiting = std::move(m.waiting);
    meetings_.erase(key);
    for (int w : waiting) complete_wait(w, at, nodes_[w].crit);
    if (machine_.failing()) {
      for (int w : waiting) tell_meeting(w, key, 1);
      tell_meeting(id, key, 1);
    }
    if (at == t) return false;
    nodes_[id].clock = at;  // not reached: the pass takes steps in time order
    push({at, 1, id, 0});
    return true;
  }

  // Node id stops at t (MachineConfig::failures; docs/model.md, "Failed nodes"). Every send it
  // made has been reached, so what still waits for it waits for what never comes, and fails
  // at t, when the failure is known (its node's run says why): a receive from it; a receive
  // from any source on a comm it belongs to (from it, of any tag) that no message has matched,
  // a probe the same; a synchronous send to it (any send, under rendezvous) that no receive
  // has taken; a constructor of a group it belongs to that it has not reached. What is posted
  // later fails as it is posted (post_receive, the probes, refused_sync, meet: failed_for).
  void stop(int id, Picos t) {
    any_stopped_ = true;
    nodes_[id].stopped = true;
    nodes_[id].stop_at = t;
    // Whether node id belongs to comm (the members looked up once per comm).
    std::unordered_map<std::uint32_t, bool> member;
    auto in_comm = [&](std::uint32_t comm) {
      auto [it, fresh] = member.try_emplace(comm, false);
      if (fresh) {
        const std::vector<int> world = m_.members_of(comm);
        it->second = std::find(world.begin(), world.end(), id) != world.end();
      }
      return it->second;
    };
    struct Orphan {
      RecvPost post;
      bool any;  // a receive from any source (the rule of the first member to fail)
    };
    std::vector<Orphan> orphans;
    for (auto it = match_.begin(); it != match_.end();) {
      if (it->first.src != id || it->second.recvs.empty()) {
        ++it;
        continue;
      }
      for (const RecvPost& r : it->second.recvs) orphans.push_back({r, false});
      it->second.recvs = {};
      it = it->second.empty() ? match_.erase_and_go_on(it) : std::next(it);
    }
    for (auto it = wild_.begin(); it != wild_.end();) {
      const int dst = static_cast<int>(it->first >> 32);
      const auto comm = static_cast<std::uint32_t>(it->first);
      std::erase_if(it->second, [&](const WildPost& w) {
        const bool any = w.src == kAnySource;
        if (!(any ? dst != id && in_comm(comm) : w.src == id)) return false;
        orphans.push_back({w.post, any});
        return true;
      });
      it = it->second.empty() ? wild_.erase(it) : std::next(it);
    }
    // In the order the receives were posted, for a fixed order of the completions.
    std::sort(orphans.begin(), orphans.end(), [](const Orphan& a, const Orphan& b) {
      return std::tie(a.post.at, a.post.node, a.post.seq) <
             std::tie(b.post.at, b.post.node, b.post.seq);
    });
    for (const Orphan& o : orphans) {
      const RecvPost& r = o.post;
      publish_failure(r, id, o.any);
      NodeSim& n = nodes_[r.node];
      if (r.request < 0) {
        complete_wait(r.node, t, n.crit);
      } else if (n.probe_request == r.request) {  // an mprobe waiting for its binding
        n.probe_request = -1;
        Req& q = n.reqs[r.request];
        q.done = true;
        q.done_at = t;
        q.crit = n.crit;
        complete_wait(r.node, t, n.crit);
      } else {
        complete_request(r.node, r.request, t, n.crit);
      }
    }
    // Probes waiting for a message from it, or from any source on a comm it belongs to.
    for (int w = 0; w < p_; ++w) {
      NodeSim& n = nodes_[w];
      if (!n.probing || w == id) continue;
      if (n.probe_src == kAnySource ? !in_comm(n.probe_comm) : n.probe_src != id) continue;
      n.probing = false;
      if (!free_) answer_probe(w, nullptr, id);  // the replay gave the run's answer at the probe
      complete_wait(w, t, n.crit);
    }
    // Sends to it that wait for their receive (synchronous; every one under rendezvous) whose
    // receive was never posted, oldest first.
    std::vector<std::int64_t> refused;
    for (const auto& [key, q] : match_) {
      if (key.dst != id) continue;
      for (std::int64_t m : q.sends) {
        const Msg& x = msgs_[m];
        if (waits_for_receive(x) && !x.recv_posted && x.state == MsgState::pending) {
          refused.push_back(m);
        }
      }
    }
    std::sort(refused.begin(), refused.end(), [&](std::int64_t a, std::int64_t b) {
      const Msg& x = msgs_[a];
      const Msg& y = msgs_[b];
      return std::tie(x.first_request, x.src, x.index) < std::tie(y.first_request, y.src, y.index);
    });
    for (std::int64_t m : refused) fail_sync(msgs_[m], t);
    // Constructors of its groups that its other members wait in.
    for (auto it = meetings_.begin(); it != meetings_.end();) {
      if (!in_comm(it->first.first)) {
        ++it;
        continue;
      }
      for (int w : it->second.waiting) {
        tell_meeting(w, it->first, answer_of_failed(id));
        complete_wait(w, t, nodes_[w].crit);
      }
      it = meetings_.erase(it);
    }
  }

  // The stopped node that a receive (or probe, or constructor) of node id from `src` on
  // `comm` waits for in vain (docs/model.md, "Failed nodes"): src itself when named and
  // stopped; for any source, the member of comm other than id that stopped first (the lower
  // rank on a tie); -1 when none has (always without failures).
  int failed_for(int id, std::uint32_t comm, int src) {
    if (!any_stopped_) return -1;
    if (src != kAnySource) return nodes_[src].stopped ? src : -1;
    int first = -1;
    for (int w : m_.members_of(comm)) {
      if (w == id || !nodes_[w].stopped) continue;
      if (first < 0 || nodes_[w].stop_at < nodes_[first].stop_at ||
          (nodes_[w].stop_at == nodes_[first].stop_at && w < first)) {
        first = w;
      }
    }
    return first;
  }
  // A query's answer that says it failed for node k (never 0 or 1), and back.
  static std::int64_t answer_of_failed(int k) { return -2 - std::int64_t{k}; }
  static int failed_of_answer(std::int64_t a) { return static_cast<int>(-2 - a); }

  // Whether x starts only once its receive is posted: a synchronous send, or any send to
  // another node under rendezvous.
  bool waits_for_receive(const Msg& x) const { return !self(x) && (x.sync || rendezvous()); }
  // A send x that starts only once its receive is posted (its sender has counted it) whose
  // receiver stopped before a receive took it: it never starts, and fails at t, holding no
  // port or link and counted nowhere.
  void fail_sync(Msg& x, Picos t) {
    remove_pending({x.request, x.src, x.index, x.id});
    x.state = MsgState::done;
    x.end = t;
    if (x.told && m_.hosts(x.src)) {
      NodeState& node = *m_.nodes[x.src];
      if (!node.finished.load(std::memory_order_acquire)) {
        {
          std::lock_guard lock(node.decisions_mutex);
          node.sync_failures.emplace_back(x.index, x.dst);
        }
        m_.wake(node);
      }
    }
    NodeSim& n = nodes_[x.src];
    if (x.sender_waits) complete_wait(x.src, t, n.crit);
    if (x.send_request >= 0) complete_request(x.src, x.send_request, t, n.crit);
  }
  // A send that waits for its receive, just reached (not yet counted by its sender), to a
  // node that has stopped: it fails at once (fail_sync). Whether it did.
  bool refused_sync(Msg& x, Picos t) {
    if (!waits_for_receive(x) || x.recv_posted || !any_stopped_ || !nodes_[x.dst].stopped) {
      return false;
    }
    fail_sync(x, t);
    return true;
  }

  // A query that found nothing, right after another that found nothing: the node moves on to
  // the next instant at which anything happens (so a loop of tests or probes ends). Whether
  // the node stops here.
  bool failed_query(int id, bool tested_last, Picos t) {
    nodes_[id].tested_last = true;
    if (!tested_last) {
      nodes_[id].spin_from = t;
      return false;
    }
    spinners_.push_back(id);
    return true;
  }

  // Node id waits until a message that a receive from (src, tag) on comm would take reaches
  // it (probe), or a failed node it needs stops (stop).
  void wait_for_probe(int id, std::uint32_t comm, int src, Tag tag, Picos t) {
    NodeSim& n = nodes_[id];
    n.probing = true;
    n.probe_comm = comm;
    n.probe_src = src;
    n.probe_tag = tag;
    n.resume = t;
    n.resume_crit = n.crit;
    n.outstanding = 1;
  }

  // Node id waits until a message is bound to its request (mprobe).
  void wait_for_binding(int id, int request, Picos t) {
    NodeSim& n = nodes_[id];
    n.probe_request = request;
    n.resume = t;
    n.resume_crit = n.crit;
    n.outstanding = 1;
  }

  void grow_requests(NodeSim& n, std::uint32_t r) {
    n.reqs.grow_to(std::uint64_t{r} + 1);
    stats_.requests_held_peak =
        std::max<std::uint64_t>(stats_.requests_held_peak, n.reqs.size() - n.reqs.base());
  }

  // Node id's requests that it completed before op are let go of, so that a pass holds the
  // requests in flight, not every one of the run. Streaming beside a replay, only those the
  // replay has passed too (it reads this pass's requests: final_in_log).
  void drop_requests(int id, const OpRecord& op) {
    NodeSim& n = nodes_[id];
    n.done_below = std::max(n.done_below, op.done_below);
    std::uint32_t below = n.done_below;
    if (partner_ != nullptr) below = std::min(below, partner_->nodes_[id].done_below);
    n.reqs.drop_before(below);
  }

  // A send reached by its node at t: the message is requested and matched with the oldest
  // receive posted for it, if any (one for its exact source and tag, or one from any source
  // or of any tag posted before it); else it waits, and a probe may see it.
  Msg& send_message(int id, const OpRecord& op, Picos t) {
    NodeSim& n = nodes_[id];
    Msg& x = msgs_.emplace_back();
    x.id = static_cast<std::int64_t>(msgs_.size()) - 1;
    x.src = id;
    x.dst = op.dst;
    x.items = op.items;
    x.bytes = op.bytes;
    x.tag = op.tag;
    x.comm = op.comm;
    x.index = n.sends++;  // the node's count of its sends (VirtualClock::post)
    x.sync = op.synchronous;
    x.lost = op.lost;
    x.around = op.around;
    x.told = !free_ && (x.sync || (rendezvous() && machine_.failing() && x.src != x.dst));
    auto it = match_.try_emplace(MatchKeySim{x.dst, x.comm, x.src, x.tag}).first;
    MatchQueues& q = it->second;
    std::vector<WildPost>* wild = nullptr;
    std::size_t w = 0;
    if (!wild_.empty()) {
      auto wit = wild_.find(dest_comm(x.dst, x.comm));
      if (wit != wild_.end()) {
        wild = &wit->second;
        while (w < wild->size() && !takes((*wild)[w].src, (*wild)[w].tag, x.src, x.tag)) ++w;
        if (w == wild->size()) wild = nullptr;
      }
    }
    bool matched = false;
    RecvPost r;
    if (wild != nullptr && (q.recvs.empty() || (*wild)[w].post.seq < q.recvs.front().seq)) {
      r = (*wild)[w].post;
      wild->erase(wild->begin() + static_cast<std::ptrdiff_t>(w));
      if (wild->empty()) wild_.erase(dest_comm(x.dst, x.comm));
      matched = true;
    } else if (!q.recvs.empty()) {
      r = q.recvs.front();
      q.recvs.pop_front();
      matched = true;
    }
    if (matched) {
      if (q.empty()) match_.erase(it);
      publish(r, x);
      attach(x, r, t);
    } else {
      q.sends.push_back(x.id);
      if (!unmatched_.empty()) {
        auto uit = unmatched_.find(dest_comm(x.dst, x.comm));
        if (uit != unmatched_.end()) uit->second.insert(x.id);
      }
    }
    request(x, t, n.crit);
    if (!matched) wake_probe(x, t);
    return x;
  }

  // The oldest message sent to dst on comm that no receive has taken and that a receive
  // from (src, tag) would take, or -1.
  std::int64_t find_unmatched(int dst, std::uint32_t comm, int src, Tag tag) {
    if (src != kAnySource && tag != kAnyTag) {
      auto it = match_.find(MatchKeySim{dst, comm, src, tag});
      return it == match_.end() || it->second.sends.empty() ? -1 : it->second.sends.front();
    }
    auto [uit, fresh] = unmatched_.try_emplace(dest_comm(dst, comm));
    if (fresh) {
      // The first wildcard here: index what waits already.
      for (const auto& [key, q] : match_) {
        if (key.dst != dst || key.comm != comm) continue;
        for (std::int64_t m : q.sends) uit->second.insert(m);
      }
    }
    for (std::int64_t m : uit->second) {
      if (takes(src, tag, msgs_[m].src, msgs_[m].tag)) return m;
    }
    return -1;
  }

  // Takes x (found by find_unmatched: the oldest of its source and tag) out of matching.
  void take_unmatched(const Msg& x) {
    auto it = match_.find(MatchKeySim{x.dst, x.comm, x.src, x.tag});
    if (it == match_.end() || it->second.sends.empty() || it->second.sends.front() != x.id) {
      throw std::logic_error("vmc simulator: a message taken out of order");
    }
    it->second.sends.pop_front();
    if (it->second.empty()) match_.erase(it);
    forget_unmatched(x);
  }
  void forget_unmatched(const Msg& x) {
    if (unmatched_.empty()) return;
    auto uit = unmatched_.find(dest_comm(x.dst, x.comm));
    if (uit != unmatched_.end()) uit->second.erase(x.id);
  }

  // A receive (request -1: blocking) posted by node id at t: it takes the oldest message
  // sent for it, or waits for the next one. Returns whether it took one.
  bool post_receive(int id, int request, const OpRecord& op, Picos t) {
    NodeSim& n = nodes_[id];
    const RecvPost r{id, request, t, n.posts++, op.report && !free_};
    // It fails now on failed node k: no message for it, and k has stopped.
    auto fail_now = [&](int k, bool any_source) {
      publish_failure(r, k, any_source);
      if (request >= 0) {
        Req& req = n.reqs[request];
        req.done = true;
        req.done_at = t;
        req.crit = n.crit;
      }
      return false;
    };
    std::int64_t found = -1;
    if (op.recv_src != kAnySource && op.recv_tag != kAnyTag) {
      auto it = match_.try_emplace(MatchKeySim{id, op.recv_comm, op.recv_src, op.recv_tag}).first;
      MatchQueues& q = it->second;
      if (q.sends.empty() && nodes_[op.recv_src].stopped) {
        // From a node that has stopped without sending it: it completes now, without one.
        if (q.empty()) match_.erase(it);
        return fail_now(op.recv_src, false);
      }
      if (q.sends.empty()) {
        q.recvs.push_back(r);
        if (request < 0) ++n.outstanding;
        return false;
      }
      found = q.sends.front();
      q.sends.pop_front();
      if (q.empty()) match_.erase(it);
      forget_unmatched(msgs_[found]);
    } else {
      found = find_unmatched(id, op.recv_comm, op.recv_src, op.recv_tag);
      if (const int k = found < 0 ? failed_for(id, op.recv_comm, op.recv_src) : -1; k >= 0) {
        return fail_now(k, op.recv_src == kAnySource);  // a failed node it needs has stopped
      }
      if (found < 0) {
        wild_[dest_comm(id, op.recv_comm)].push_back(WildPost{r, op.recv_src, op.recv_tag});
        if (request < 0) ++n.outstanding;
        return false;
      }
      take_unmatched(msgs_[found]);
    }
    Msg& x = msgs_[found];
    publish(r, x);
    if (x.state == MsgState::done) {
      // It arrived before the receive was posted: the receive completes at once.
      if (request < 0) {
        wait_on(n, x.end, x.crit);
      } else {
        Req& req = n.reqs[request];
        req.msg = x.id;
        req.done = true;
        req.done_at = t;
        req.crit = x.crit;
      }
      msgs_.release(static_cast<std::size_t>(x.id));  // sent, received: done with
      return true;
    }
    if (request < 0) ++n.outstanding;
    attach(x, r, t);
    post(x, t);
    return true;
  }

  // Links a message and the receive that takes it (at t); an mprobe waiting for this
  // request goes on.
  void attach(Msg& x, const RecvPost& r, Picos t) {
    x.recv_posted = true;
    grants_may_change_ = true;
    if (x.told) acknowledge_sync(x);
    if (r.request < 0) {
      x.recv_waiter = r.node;
    } else {
      x.recv_request = r.request;
      NodeSim& n = nodes_[r.node];
      n.reqs[r.request].msg = x.id;
      if (n.probe_request == r.request) {
        n.probe_request = -1;
        complete_wait(r.node, t, n.crit);
      }
    }
  }

  // x reached its destination and no receive took it: a probe there waiting for such a
  // message sees it.
  void wake_probe(const Msg& x, Picos t) {
    NodeSim& d = nodes_[x.dst];
    if (!d.probing || d.probe_comm != x.comm || !takes(d.probe_src, d.probe_tag, x.src, x.tag)) {
      return;
    }
    d.probing = false;
    if (!free_) answer_probe(x.dst, &x, -1);  // the replay gave the run's answer at the probe
    complete_wait(x.dst, t, d.crit);
  }

  // Withdraws receive request r of node id if no message has taken it yet.
  bool withdraw(int id, int r, Picos t) {
    NodeSim& n = nodes_[id];
    Req& q = n.reqs.at(r);
    if (q.msg >= 0 || q.done) return false;
    auto mine = [&](const RecvPost& p) { return p.node == id && p.request == r; };
    bool found = false;
    for (auto it = match_.begin(); it != match_.end() && !found; ++it) {
      if (it->first.dst != id) continue;
      if (it->second.recvs.remove_if_first(mine)) {
        found = true;
        if (it->second.empty()) match_.erase(it);
        break;
      }
    }
    for (auto it = wild_.begin(); it != wild_.end() && !found; ++it) {
      auto& v = it->second;
      auto w = std::find_if(v.begin(), v.end(), [&](const WildPost& p) { return mine(p.post); });
      if (w != v.end()) {
        v.erase(w);
        found = true;
        if (v.empty()) wild_.erase(it);
        break;
      }
    }
    if (!found) return false;
    q.done = true;
    q.done_at = t;
    q.crit = n.crit;
    return true;
  }

  // A wait for request r of node n: done already (its time counts), or counted outstanding.
  void await_request(NodeSim& n, std::uint32_t r) {
    Req& q = n.reqs.at(r);
    if (q.done) {
      wait_on(n, q.done_at, q.crit);
    } else {
      q.waited_on = true;
      ++n.outstanding;
    }
  }

  // Of the requests of `list`, the one that completed first (lowest index on a tie), or -1.
  std::int64_t first_done(const NodeSim& n, const std::vector<std::uint32_t>& list) const {
    std::int64_t best = -1;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Req& q = n.reqs.at(list[i]);
      if (q.done && (best < 0 || q.done_at < n.reqs[list[best]].done_at)) {
        best = static_cast<std::int64_t>(i);
      }
    }
    return best;
  }

  // A wait_any resumed at t: answer with the request that completed first.
  void finish_any(int id, Picos t) {
    NodeSim& n = nodes_[id];
    n.any = false;
    for (std::uint32_t r : n.any_list) n.reqs[r].waited_on = false;
    const std::int64_t i = first_done(n, n.any_list);
    n.crit = std::max(n.crit, n.reqs[n.any_list[i]].crit);
    n.clock = t;
    answer(id, i);
  }

  // Request r of node id completed at t.
  void complete_request(int id, int r, Picos t, int crit) {
    NodeSim& n = nodes_[id];
    Req& q = n.reqs[r];
    q.done = true;
    q.done_at = t;
    q.crit = crit;
    if (!q.waited_on) return;
    q.waited_on = false;
    if (n.any) {
      if (n.outstanding > 0) complete_wait(id, t, crit);  // the first of a wait_any
    } else {
      complete_wait(id, t, crit);
    }
  }

  // Nodes the pass has not finished: each waits for something (counted when no event is
  // left, to tell a deadlock from the end).
  int waiting_nodes() const {
    int waiting = 0;
    for (const NodeSim& n : nodes_) waiting += !n.finished;
    return waiting;
  }

  void complete_wait(int id, Picos end, int crit) {
    NodeSim& n = nodes_[id];
    wait_on(n, end, crit);
    if (--n.outstanding == 0) {
      n.crit = n.resume_crit;
      n.clock = n.resume;
      push({n.resume, 1, id, 0});
    }
  }

  // --- resources ----------------------------------------------------------------------------
  bool ports_free(const Msg& x) const {
    // Later hops keep the ports of the first; a blocking worm keeps the ports it took.
    if (bypass(x) || x.hop > 0 || x.ports_held) return true;
    return ports_.free(x.src, x.dst);
  }
  void take_ports(const Msg& x, int delta) {
    if (bypass(x)) return;
    if (delta > 0) {
      ports_.take(x.src, x.dst);
    } else {
      ports_.give_back(x.src, x.dst);
    }
  }

  // Asks for the lines of message id that arbitrate reads (its flags, ports and waits), a few
  // requests ahead of the sweep: thousands may wait at one instant on a large machine (every
  // forwarding node's isends behind its port), each met once per instant, long out of the
  // cache. A hint only, as warm().
  static constexpr std::size_t kSweepAhead = 8;
  void warm_msg(std::int64_t id) const {
    const Msg& x = msgs_[static_cast<std::size_t>(id)];
    __builtin_prefetch(&x.src);
    __builtin_prefetch(&x.recv_posted);
    __builtin_prefetch(&x.blocked_since);
    __builtin_prefetch(&x.hop);
  }

  // Grants what the requests waiting in pending_ can take at t, in their order. A request
  // stays blocked until what holds it changes: a message ends (its links and ports come
  // back), a request joins or rejoins the set, a receive is posted. At an instant after
  // none of these (a node's step, a poll) every request is still blocked, so the scan is
  // skipped; the waits it would have added up are added at the next scan, which takes
  // t - blocked_since in one step, and the most waiters per link are as at the last scan.
  void arbitrate(Picos t) {
    if (pending_.empty() || !grants_may_change_) return;
    grants_may_change_ = false;
    ++arbitrations_;
    for (int pass = 0; pass < 2; ++pass) {
      // The requests not granted move down to [0, kept) as the sweep goes.
      std::size_t kept = 0;
      for (std::size_t i = 0; i < pending_.size(); ++i) {
        if (pass == 0 && i + kSweepAhead < pending_.size()) {
          warm_msg(std::get<3>(pending_[i + kSweepAhead]));
        }
        const PendingKey key = pending_[i];
        Msg& x = msgs_[std::get<3>(key)];
        bool granted = false;
        if (x.recv_posted == (pass == 0) && posted(x)) {
          if (blocking_worms() && !x.route.empty()) {
            granted = advance_worm(x, t);
          } else {
            bool links_free = true;
            if (!shared() && !free_) {
              for (LinkId l : hop_links(x)) {
                if (held_.free(l)) continue;
                if (!links_mattered_) {
                  // The replay copies the set as it stands: without the grants made so far.
                  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(kept),
                                 pending_.begin() + static_cast<std::ptrdiff_t>(i));
                  i = kept;
                  fork_replay(-1);
                }
                links_free = false;
                links_mattered_ = true;
                // Not counted: one held link is enough to know the request waits.
                if (!count_waiters_) break;
                note_waiter(l);
              }
            }
            granted = links_free && ports_free(x);
          }
        }
        if (granted) {
          start(x, t);
        } else {
          pending_[kept++] = key;
        }
      }
      pending_.resize(kept);
    }
    // What holds up each request that is left, until the next instant: its ports (the
    // algorithm's own schedule under the port model) or its links (contention).
    for (const auto& [r, src, index, id] : pending_) {
      Msg& x = msgs_[id];
      if (x.port_blocked) x.port_wait += t - x.blocked_since;
      x.blocked_since = t;
      x.port_blocked = posted(x) && !ports_free(x);
    }
  }

  // A request waits for link l at the instant arbitrate is at: counted towards
  // Stats::max_link_waiters (a count per link, stamped with the arbitration it belongs to,
  // so that no count needs clearing afterwards).
  void note_waiter(LinkId l) {
    if (link_waiters_.empty()) link_waiters_.assign(stats_.link_busy.size(), {0, 0});
    auto& [round, count] = link_waiters_[static_cast<std::size_t>(l)];
    if (round != arbitrations_) round = arbitrations_, count = 0;
    stats_.max_link_waiters = std::max(stats_.max_link_waiters, ++count);
  }

  // A blocking worm: once its ports are free it takes them and then the links of its route
  // in order, as far as they are free, keeping what it has. True when it holds the whole
  // route (it can start); otherwise it waits for the next link (note_waiter).
  bool advance_worm(Msg& x, Picos t) {
    if (!x.ports_held) {
      if (!ports_free(x)) return false;
      take_ports(x, +1);
      x.ports_held = true;
      x.link_taken.assign(x.route.size(), 0);
    }
    while (x.links_held < x.route.size()) {
      const LinkId l = x.route[x.links_held];
      if (!held_.free(l)) {
        links_mattered_ = true;
        if (count_waiters_) note_waiter(l);
        return false;
      }
      held_.take(l);
      link_owner_[l] = id_of(x);
      x.link_taken[x.links_held++] = t;
    }
    return true;
  }

  void start(Msg& x, Picos t) {
    x.state = MsgState::active;
    x.waited += t - x.request;
    if (x.port_blocked) x.port_wait += t - x.blocked_since;
    x.port_blocked = false;
    if (x.hop == 0) {
      x.start = t;
      if (!x.ports_held) take_ports(x, +1);
    }
    x.hop_start = t;
    if (!shared()) {
      if (!free_ && !x.ports_held) {
        held_.take(hop_links(x));
      }
      // A worm's one hop takes its contention-free time, priced when it was requested.
      const Picos hop = store_and_forward() ? hop_time(x) : x.free_time;
      push({after(t, hop, x.src), 0, id_of(x), 0});
      return;
    }
    x.alpha_end = after(t, bypass(x) ? 0 : u_.startup(x.items), x.src);
    x.remaining = bypass(x) ? 0 : checked_mul(kWorkScale, x.items, "message size");
    x.last = t;
    x.share = 1;
    x.rate = bypass(x) ? 0 : links_.item_time(u_, hop_links(x));
    for (LinkId l : hop_links(x)) {
      link_users_[l].push_back(id_of(x));
      held_.take(l);
    }
    refresh_sharers(x, t);
  }

  // Shared contention: bring every message on x's links up to time t and re-plan its end.
  void refresh_sharers(const Msg& x, Picos t) {
    // The pass's one list, refilled at each call: a vector made per call cost an allocation
    // and a free at every start and end of a message.
    std::vector<std::int64_t>& affected = sharers_;
    affected.assign(1, id_of(x));
    for (LinkId l : hop_links(x)) {
      affected.insert(affected.end(), link_users_[l].begin(), link_users_[l].end());
    }
    std::sort(affected.begin(), affected.end());
    affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
    for (std::int64_t id : affected) {
      Msg& y = msgs_[id];
      if (y.state != MsgState::active) continue;
      // Progress since the last change, at the rate of the share it had.
      const Picos from = std::max(y.last, y.alpha_end);
      if (t > from) {
        const Picos per_item = y.rate;
        const Wide done = per_item == 0 ? Wide(y.remaining)
                                            : Wide(t - from) * kWorkScale / per_item;
        y.remaining = done >= y.remaining ? 0 : y.remaining - static_cast<Picos>(done);
      }
      y.last = t;
      std::uint64_t share = 1;
      for (LinkId l : hop_links(y)) share = std::max<std::uint64_t>(share, link_users_[l].size());
      y.share = share;
      // Uniform links: the rate of the most loaded one, counted just above.
      y.rate = links_.uniform() ? u_.item_time(share) : shared_rate(y);
      if (share > 1) links_mattered_ = true;
      // The rest at the new rate, rounded up to a whole picosecond.
      const Wide rest = (Wide(y.remaining) * y.rate + (kWorkScale - 1)) / kWorkScale;
      if (rest > INT64_MAX) {
        throw std::overflow_error("node " + std::to_string(y.src) + ": send of " +
                                  std::to_string(y.items) + " items: its transfer time does "
                                  "not fit in vmc's picosecond clock");
      }
      push({after(std::max(t, y.alpha_end), static_cast<Picos>(rest), y.src), 0, id,
            ++y.version});
    }
  }

  void end_event(const Event& e, Picos t) {
    if (!msgs_.alive(static_cast<std::size_t>(e.id()))) return;  // superseded, and since freed
    Msg& x = msgs_[e.id()];
    if (x.state != MsgState::active || e.version != x.version) return;  // superseded
    grants_may_change_ = true;  // its links and ports come back
    const auto links = hop_links(x);
    for (std::size_t i = 0; i < links.size(); ++i) {
      // A blocking worm held each link from the moment it took it.
      stats_.link_busy[links[i]] += t - (x.ports_held ? x.link_taken[i] : x.hop_start);
    }
    if (!shared()) {
      if (!free_) {
        held_.give_back(hop_links(x));
      }
    } else {
      for (LinkId l : hop_links(x)) {
        auto& users = link_users_[l];
        users.erase(std::find(users.begin(), users.end(), e.id()));
        held_.give_back(l);
      }
      x.state = MsgState::done;  // keep it out of the refresh below
      refresh_sharers(x, t);
    }
    if (store_and_forward() && x.hop + 1 < x.route.size()) {
      ++x.hop;
      x.state = MsgState::pending;
      x.request = x.blocked_since = t;
      x.port_blocked = false;
      add_pending({t, x.src, x.index, x.id});
      return;
    }
    take_ports(x, -1);
    x.state = MsgState::done;
    x.end = t;
    if (!x.lost) count_delivered(x);
    if (x.sender_waits) complete_wait(x.src, t, x.crit);
    if (x.send_request >= 0) complete_request(x.src, x.send_request, t, x.crit);
    if (x.recv_waiter >= 0) complete_wait(x.recv_waiter, t, x.crit);
    if (x.recv_request >= 0) complete_request(x.dst, x.recv_request, t, x.crit);
    // Its route is no longer needed (a long one's vector goes to the next long route); once
    // a receive has it too, nothing is.
    x.route.release(spare_routes_, kSpareRoutes);
    std::vector<Picos>().swap(x.link_taken);
    if (x.recv_posted) msgs_.release(static_cast<std::size_t>(x.id));
  }

  // A message delivered (not lost on a failed link): its items and bytes, its waits and
  // delay, and its line of the trace.
  void count_delivered(const Msg& x) {
    stats_.messages++;
    stats_.items += x.items;
    stats_.bytes += x.bytes;
    stats_.token_wait = checked_add(stats_.token_wait, x.waited, "total wait");
    // Contention delay: the time between the moment it could start and its end, beyond its
    // contention-free duration, that was not a wait for ports (see the header comment).
    const Picos delay = (x.end - x.eligible) - x.free_time - x.port_wait;
    stats_.contention_delay = checked_add(stats_.contention_delay, delay, "total delay");
    stats_.max_message_delay = std::max(stats_.max_message_delay, delay);
    if (record_) {
      trace_.messages.push_back(
          {x.src, x.dst, x.tag, x.comm, x.items, x.bytes, x.first_request, x.start, x.end,
           x.waited, std::vector<LinkId>(x.route.links().begin(), x.route.links().end()),
           delay});
    }
  }

  void finish() {
    int crit = 0;
    for (int n = 0; n < p_; ++n) {
      Picos t = stats_.node_time[n];
      if (t > stats_.time || (t == stats_.time && nodes_[n].crit > crit)) {
        crit = nodes_[n].crit;
      }
      stats_.time = std::max(stats_.time, t);
    }
    stats_.critical_startups = crit;
    stats_.link_peak = held_.peaks();
    std::sort(trace_.messages.begin(), trace_.messages.end(), [](const auto& a, const auto& b) {
      return std::tie(a.start, a.src, a.dst, a.tag, a.end) <
             std::tie(b.start, b.src, b.dst, b.tag, b.end);
    });
    std::stable_sort(trace_.combines.begin(), trace_.combines.end(),
                     [](const auto& a, const auto& b) {
                       return std::tie(a.start, a.node) < std::tie(b.start, b.node);
                     });
  }
};

}  // namespace

struct Simulation {
  Stats stats;
  Trace trace;
  Simulator pass;
  // Streaming where links are used: the contention-free replay, run beside the pass (its
  // time is wanted if links turn out to have mattered, and the logs are gone by then). Under
  // exclusive links without blocking worms it is forked from the pass when first needed
  // (Simulator::fork_replay), so a run in which links never hold anyone up simulates once.
  Stats free_stats;
  Trace free_trace;
  std::unique_ptr<Simulator> replay;
  std::exception_ptr error;  // what the pass threw: it throws it again when advanced
  // What the replay threw (it then stops): reported only if its time is wanted.
  std::exception_ptr replay_error;
  explicit Simulation(LocalNodes& m) : pass(m, stats, trace) {}
  int advance() {
    if (error) std::rethrow_exception(error);
    int waits = -1;
    try {
      waits = pass.advance();
    } catch (...) {
      error = std::current_exception();
      throw;
    }
    if (replay && !replay_error) {
      try {
        replay->advance();
      } catch (...) {
        replay_error = std::current_exception();
      }
    }
    return waits;
  }
};

void SimulationDeleter::operator()(Simulation* s) const { delete s; }

SimulationPtr start_simulation(LocalNodes& m, bool streaming) {
  SimulationPtr s(new Simulation(m));
  const Model& model = m.machine.config.model;
  // Links that never share and never hold a worm's partial route: the replay can be forked
  // from the pass when it is first needed (Simulator::fork_replay).
  const bool forkable = model.contention == Contention::exclusive &&
                        !(model.worm == Worm::blocking && model.routing == Routing::wormhole);
  // The replay only measures contention's share of the time (MachineConfig::contention_share).
  const bool replayed = m.machine.uses_links && m.machine.config.contention_share;
  if (streaming) {
    if (replayed && forkable) {
      Simulation* sim = s.get();
      sim->pass.fork_replay_with([sim](int paused) {
        sim->replay =
            std::make_unique<Simulator>(sim->pass, sim->free_stats, sim->free_trace, paused);
        sim->replay->stream(&sim->pass, &sim->pass);
        sim->pass.stream(sim->replay.get(), nullptr);
      });
      s->pass.stream(nullptr, nullptr);
    } else if (replayed) {
      s->replay = std::make_unique<Simulator>(m, s->free_stats, s->free_trace, true);
      s->replay->stream(&s->pass, &s->pass);
      s->pass.stream(s->replay.get(), nullptr);
    } else {
      s->pass.stream(nullptr, nullptr);
    }
  }
  return s;
}

int advance_simulation(Simulation& s) { return s.advance(); }

bool stream_simulation(Simulation& s) {
  if (s.error) return false;
  const std::uint64_t before = s.pass.taken();
  try {
    s.advance();
  } catch (...) {
    // Kept: thrown again by the next advance, where the run's end reports it.
  }
  return s.pass.taken() != before;
}

bool simulation_failed(const Simulation& s) { return s.error != nullptr; }

void finish_simulation(LocalNodes& m, Simulation& s, Stats& stats, Trace& trace) {
  // A run of Machine::run_within: only the pass is limited (the contention-free replay's
  // time may be less than the run's, and is measured only for a run that ends).
  if (m.machine.time_limit) s.pass.stop_after(*m.machine.time_limit);
  if (s.advance() >= 0) {
    throw std::logic_error("vmc simulator: a node's log ended before its node finished");
  }
  stats = std::move(s.stats);
  trace = std::move(s.trace);
  stats.contention_critical_delay = 0;
  if (!m.machine.config.contention_share) return;  // not measured: free_time stays 0
  if (s.pass.links_mattered()) {
    // The run's time minus the time of the same logs replayed without contention.
    Stats free_stats;
    Trace free_trace;
    if (s.replay) {
      if (s.replay_error) std::rethrow_exception(s.replay_error);
      if (s.replay->advance() >= 0) {
        throw std::logic_error("vmc simulator: the replay's logs ended before their nodes");
      }
      free_stats = std::move(s.free_stats);
    } else {
      Simulator replay(m, free_stats, free_trace, true);
      replay.advance();
    }
    stats.free_time = free_stats.time;
    stats.contention_critical_delay = stats.time - free_stats.time;
  } else {
    stats.free_time = stats.time;
  }
}

}  // namespace vmc::detail
