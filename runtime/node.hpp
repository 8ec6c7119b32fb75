// A node's state inside the runtime (its mailbox, its nonblocking requests, its log of
// operations for the virtual clock) and a group of nodes (what a Comm points at). Every
// transport keeps its nodes' state here; which fields it uses is the transport's (the
// mailbox and the log: the nodes that run in this process as threads or fibers). Internal.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <concurrentqueue/concurrentqueue.h>  // lightweightsemaphore.h needs it first
#include <concurrentqueue/lightweightsemaphore.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/comm.hpp"
#include "runtime/tags.hpp"
#include "runtime/message.hpp"
#include "runtime/probing.hpp"
#include "runtime/trace.hpp"

namespace vmc {
class Node;
}

namespace vmc::detail {

struct MachineImpl;
struct NodeState;

// What a run does on each node: the user's function with the node's world Comm, then the
// check that every request was completed (MachineImpl::run makes it; a transport calls it
// once per node it runs, and catches what it throws).
using NodeBody = std::function<void(NodeState&)>;

// --- mailboxes ---------------------------------------------------------------------------

// Messages that arrived with one match key, oldest first (an intrusive list: no
// allocation per message on the receive path).
struct MessageFifo {
  Message* head = nullptr;
  Message* tail = nullptr;
  bool empty() const { return head == nullptr; }
};

struct MatchKey {
  std::uint32_t comm;
  int src;  // world rank
  Tag tag;
  bool operator==(const MatchKey&) const = default;
};
struct MatchKeyHash {
  std::size_t operator()(const MatchKey& k) const noexcept {
    std::uint64_t h = (std::uint64_t(k.comm) << 32) ^ std::uint64_t(std::uint32_t(k.src));
    h ^= std::uint64_t(k.tag) * 0x9E3779B97F4A7C15ull;
    return std::size_t(h ^ (h >> 29));
  }
};

// Lists by match key in an open-addressing table (linear probing, erasure by backward shift, a
// power of two of slots grown at three quarters full), allocated when first needed: a key's
// slot is free again once its list is empty (List::empty; List{} is empty), so a key goes in
// and out with no allocation, where a std::unordered_map allocated, linked and freed an entry
// per key and reduced each hash by a division. UnexpectedMessages keeps there its keys beyond
// the few it keeps in the node (a broadcast's receivers, which the root runs calls ahead of,
// hold several keys: the map cost about 200 host instructions a message), and PostedReceives
// its irecvs. Only the owner uses it.
template <class List>
class KeyedLists {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Key's list; null when it is empty.
  List* find(const MatchKey& key) {
    if (size_ == 0) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.list.empty()) return nullptr;
      if (s.key == key) return &s.list;
    }
  }
  // A new list for key, which has none: the caller puts an entry in it at once (a slot with
  // an empty list is a free one).
  List& add(const MatchKey& key) {
    if ((size_ + 1) * 4 > capacity() * 3) grow();
    std::size_t i = home(key);
    while (!slots_[i].list.empty()) i = (i + 1) & mask_;
    ++size_;
    slots_[i].key = key;
    return slots_[i].list;
  }
  // The slot of `list` (emptied by the caller) is free again: the entries after it in its run
  // move back to where their probes find them.
  void erase(List* list) {
    const auto* at =
        reinterpret_cast<const Slot*>(reinterpret_cast<const char*>(list) - offsetof(Slot, list));
    const auto hole = static_cast<std::size_t>(at - slots_.get());
    slots_[hole].list = List{};
    --size_;
    shift_back(
        hole, mask_,
        [&](std::size_t i) { return !slots_[i].list.empty(); },
        [&](std::size_t i) { return home(slots_[i].key); },
        [&](std::size_t from, std::size_t to) {
          slots_[to] = slots_[from];
          slots_[from].list = List{};
        });
  }
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; size_ > 0 && i < capacity(); ++i) {
      if (!slots_[i].list.empty()) f(slots_[i].key, slots_[i].list);
    }
  }
  // Forgets every list (their owner frees what they held first); the slots stay for the next.
  void clear() {
    for (std::size_t i = 0; i < capacity(); ++i) slots_[i].list = List{};
    size_ = 0;
  }

 private:
  struct Slot {
    MatchKey key{};
    List list;  // empty: the slot is free
  };
  std::size_t capacity() const { return slots_ == nullptr ? 0 : mask_ + 1; }
  std::size_t home(const MatchKey& key) const { return MatchKeyHash{}(key) & mask_; }
  void grow() {
    const std::size_t old = capacity();
    std::unique_ptr<Slot[]> before = std::move(slots_);
    mask_ = (old == 0 ? 8 : 2 * old) - 1;
    slots_ = std::make_unique<Slot[]>(mask_ + 1);
    for (std::size_t i = 0; i < old; ++i) {
      if (before[i].list.empty()) continue;
      std::size_t j = home(before[i].key);
      while (!slots_[j].list.empty()) j = (j + 1) & mask_;
      slots_[j] = before[i];
    }
  }

  std::unique_ptr<Slot[]> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};
using FarMessages = KeyedLists<MessageFifo>;

// The messages of a mailbox that no receive has taken yet, by match key, each key's oldest
// first. A node seldom has more than a key or two with messages waiting (in a collective, the
// partners of the step it is in), so the first kNear keys are kept in the node itself, found
// by comparing keys, and only more go to a table (FarMessages): in the common case a message
// goes in and comes out with no hashing and no allocation (a map entry for each, before).
// Only the owner uses it.
class UnexpectedMessages {
 public:
  // Key's oldest message, taken out; null when none waits.
  Message* take(const MatchKey& key) {
    for (Near& s : near_) {
      if (s.fifo.head != nullptr && s.key == key) return pop(s.fifo);
    }
    MessageFifo* fifo = far_.find(key);
    if (fifo == nullptr) return nullptr;
    Message* m = pop(*fifo);
    if (fifo->head == nullptr) far_.erase(fifo);
    return m;
  }
  // m, the newest of its key (push_back), or its oldest (push_front: a message given back).
  void push_back(const MatchKey& key, Message* m) {
    MessageFifo& fifo = of(key);
    m->next = nullptr;
    if (fifo.tail != nullptr) fifo.tail->next = m;
    else fifo.head = m;
    fifo.tail = m;
  }
  void push_front(const MatchKey& key, Message* m) {
    MessageFifo& fifo = of(key);
    m->next = fifo.head;
    fifo.head = m;
    if (fifo.tail == nullptr) fifo.tail = m;
  }
  // The keys with messages waiting.
  std::size_t size() const {
    std::size_t n = far_.size();
    for (const Near& s : near_) n += s.fifo.head != nullptr ? 1 : 0;
    return n;
  }
  bool empty() const { return size() == 0; }
  // f(key, its messages) for every key with messages waiting.
  template <class F>
  void for_each(F&& f) const {
    for (const Near& s : near_) {
      if (s.fifo.head != nullptr) f(s.key, s.fifo);
    }
    far_.for_each(f);
  }
  // Forgets every message (their owner frees them first).
  void clear() {
    near_ = {};
    far_.clear();
  }

 private:
  static constexpr std::size_t kNear = 2;
  struct Near {
    MatchKey key{};
    MessageFifo fifo;  // empty: the slot is free
  };
  static Message* pop(MessageFifo& fifo) {
    Message* m = fifo.head;
    fifo.head = m->next;
    if (fifo.head == nullptr) fifo.tail = nullptr;
    m->next = nullptr;
    return m;
  }
  // Key's list, where it is, or made empty in a free slot (or the table): the caller fills
  // it.
  MessageFifo& of(const MatchKey& key) {
    Near* free = nullptr;
    for (Near& s : near_) {
      if (s.fifo.head == nullptr) {
        if (free == nullptr) free = &s;
      } else if (s.key == key) {
        return s.fifo;
      }
    }
    if (MessageFifo* fifo = far_.find(key)) return *fifo;
    if (free != nullptr) {
      free->key = key;
      return free->fifo;
    }
    return far_.add(key);
  }

  std::array<Near, kNear> near_{};
  FarMessages far_;
};

// A node's incoming messages: any thread enqueues, only the owner takes. An intrusive list
// through Message::next (a push is one compare-and-swap; the owner takes the whole list with
// one exchange), so an empty mailbox is one pointer and allocates nothing: a machine of a
// million nodes pays 8 bytes per node for its mailboxes, not a queue's blocks.
class Inbox {
 public:
  void enqueue(Message* m) {
    m->next = head_.load(std::memory_order_relaxed);
    while (!head_.compare_exchange_weak(m->next, m, std::memory_order_release,
                                        std::memory_order_relaxed)) {
    }
  }
  // Every message enqueued so far, oldest first (null: none), linked through next.
  Message* take_all() {
    if (head_.load(std::memory_order_relaxed) == nullptr) return nullptr;
    Message* newest = head_.exchange(nullptr, std::memory_order_acquire);
    Message* oldest = nullptr;
    while (newest != nullptr) {
      Message* next = newest->next;
      newest->next = oldest;
      oldest = newest;
      newest = next;
    }
    return oldest;
  }

 private:
  std::atomic<Message*> head_{nullptr};  // the newest message
};

// --- the virtual clock's log ---------------------------------------------------------------

// Virtual time: what each node did, in order, for the simulator. Every call appends its
// operation before it blocks, so the simulator can run while the nodes do (simulator.cpp).
// One record of one cache line per operation, a send's message in it (a send-receive's
// record has both directions): the pass reads a node's records long after the node wrote
// them, or on the other core, so each line a record spans is a miss; an operation record of
// 88 bytes and a send record of 40 in a ring of their own spanned three lines for a
// send-receive. Fields that no operation uses together share their place (the unions: each
// kind reads only what it wrote).
struct OpRecord {
  enum class Kind : std::uint8_t {
    send, recv, sendrecv, compute,  // blocking
    isend, irecv,                   // post a request
    wait,                           // wait for every request of a list
    wait_any, test,                 // queries: their answers come from the simulator
    now,                            // query: the node's time (answer in picoseconds)
    probe,                          // wait for a message a receive would take (not take it)
    iprobe,                         // query: is there one now (the answer names it)
    mprobe,                         // wait for a message and bind it to `request`
    improbe,                        // query: bind one to `request` if there is one now
    cancel,                         // query: withdraw the receive `request` if unmatched
    test_list,                      // query: which requests of the list may complete now
    sync,                           // wait, at no cost, for every member of a group (below)
    fail,                           // the node stopped here (MachineConfig::failures)
  };
  Kind kind = Kind::compute;
  Work work = Work::compute;     // compute: which kind of local work
  // A receive whose match the node waits for the simulation to name (a wildcard, or one
  // posted behind such a receive): the pass publishes its choice (NodeState::decisions), and
  // the node then writes the source and tag it took into this record, so that the replay
  // after the run takes the same message.
  bool report : 1 = false;
  bool recorded : 1 = false;     // the node has written in what its receive took or found
  bool cancelled : 1 = false;    // irecv: withdrawn by a cancel that succeeded
  bool all : 1 = false;          // test_list: whether every request must be ready (else any)
  // test, test_list: answered by the node itself, the same question as the query before it,
  // the first failed query in a row (NodeState::repeatable): its answer is in the log already
  // and the run's pass publishes none.
  bool known : 1 = false;
  // send, sendrecv, isend: it may start only once its receive is posted (MPI_Ssend); a
  // failed link lost it (MachineConfig::link_failures): it completes at its start, using no
  // port or link, and its receive completes at the later of its posting and that time.
  bool synchronous : 1 = false;
  bool lost : 1 = false;
  // Every request of the node below this id was completed by an operation logged before this
  // one (its first open request when it was logged): the simulation lets go of them.
  std::uint32_t done_below = 0;
  // recv, sendrecv, irecv, the probes: what the receive matches (the k-th receive a node
  // posts for (comm, source, tag) takes the k-th message the source sent it with that comm
  // and tag). Source kAnySource or tag kAnyTag: the message is the simulation's to choose.
  std::uint32_t recv_comm = 0;
  int recv_src = -1;             // world rank, or kAnySource
  Tag recv_tag = 0;              // or kAnyTag (a user tag, never a collective's)
  std::uint32_t request = 0;     // isend, irecv: the request posted; test: the one tested
  // send, sendrecv, isend: the message (its destination, comm, tag, size, and the route:
  // `around`, it routes around failed links (MachineConfig::fail_routes): the links down at
  // this index of MachineImpl::down_index, which MachineImpl::route_around_down avoids; -1:
  // its own route, Topology::route). Its index among the node's sends is its place among the
  // send records of the log (the pass counts them).
  union {
    int dst = 0;
    std::uint32_t list_size;     // wait, wait_any, test_list: NodeLog::request_lists
  };                             //   [list_begin, +list_size); sync: the group's members
  std::int32_t around = -1;
  std::uint32_t comm = 0;
  union {
    std::uint64_t items = 0;
    Picos duration;              // compute
  };
  union {
    std::uint64_t bytes = 0;
    std::uint64_t work_items;    // compute: items combined or rearranged
  };
  union {
    Tag tag = 0;
    std::uint64_t list_begin;    // wait, wait_any, test_list
    std::uint64_t sync_seq;      // sync (below)
  };
  // sync: a communicator constructor (split, create_group) meets its other members: the node
  // goes on once every one of the list_size members of group recv_comm has reached its
  // sync number sync_seq on that group, at the latest of their times (docs/model.md,
  // "Communicator constructors").
};
static_assert(sizeof(OpRecord) == 64);
// One of a log's sequences: indexed from the start of the run, while the simulation drops
// what every pass over it has consumed (the first `base` entries), so that a run's log holds
// what the passes have not reached yet, not the whole run (simulator.cpp). A ring of a power
// of two entries: entry i is at slot i mod capacity, so an index is a mask (where a deque's
// was a division), a drop moves `base` in one step (where a deque popped each entry), and
// the ring grows (doubling) only when it is full, so a run whose passes keep up with its
// nodes appends into the same memory again and again. Growing moves the entries: a
// reference into it holds until the next push_back, grow_to, append or assign. For
// trivially copyable entries (log records): dropped ones are not destroyed.
template <class T>
class LogVector {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  LogVector() = default;
  LogVector(const LogVector& o) { *this = o; }
  LogVector(LogVector&& o) noexcept
      : slots_(std::exchange(o.slots_, nullptr)),
        mask_(std::exchange(o.mask_, 0)),
        base_(std::exchange(o.base_, 0)),
        end_(std::exchange(o.end_, 0)) {}
  LogVector& operator=(const LogVector& o) {
    if (this == &o) return *this;
    clear();
    if (o.slots_ != nullptr) {
      slots_ = std::make_unique<T[]>(o.capacity());
      std::copy(o.slots_.get(), o.slots_.get() + o.capacity(), slots_.get());
      mask_ = o.mask_;
    }
    base_ = o.base_;
    end_ = o.end_;
    return *this;
  }
  LogVector& operator=(LogVector&& o) noexcept {
    slots_ = std::exchange(o.slots_, nullptr);
    mask_ = std::exchange(o.mask_, 0);
    base_ = std::exchange(o.base_, 0);
    end_ = std::exchange(o.end_, 0);
    return *this;
  }

  std::uint64_t size() const { return end_; }
  std::uint64_t base() const { return base_; }
  bool holds(std::uint64_t i) const { return i >= base_ && i < end_; }
  T& operator[](std::uint64_t i) { return slots_[i & mask_]; }
  const T& operator[](std::uint64_t i) const { return slots_[i & mask_]; }
  T& back() { return (*this)[end_ - 1]; }
  void push_back(const T& x) {
    if (end_ - base_ == capacity()) grow();
    slots_[end_ & mask_] = x;
    ++end_;
  }
  // Entry i, checked (std::out_of_range when not held).
  T& at(std::uint64_t i) {
    if (!holds(i)) throw std::out_of_range("vmc: log entry " + std::to_string(i) + " not held");
    return (*this)[i];
  }
  const T& at(std::uint64_t i) const { return const_cast<LogVector&>(*this).at(i); }
  // Default entries up to index n - 1 (none dropped may be asked for again).
  void grow_to(std::uint64_t n) {
    while (end_ < n) push_back(T{});
  }
  template <class It>
  void append(It first, It last) {
    for (; first != last; ++first) push_back(*first);
  }
  // Forgets the entries before i (consumed).
  void drop_before(std::uint64_t i) { base_ = std::max(base_, std::min(i, end_)); }
  void clear() {
    slots_.reset();
    mask_ = 0;
    base_ = end_ = 0;
  }
  // The whole sequence, none dropped (a spread machine's logs travel after the run).
  std::vector<T> to_vector() const {
    std::vector<T> v;
    v.reserve(end_ - base_);
    for (std::uint64_t i = base_; i < end_; ++i) v.push_back((*this)[i]);
    return v;
  }
  void assign(const std::vector<T>& v) {
    clear();
    append(v.begin(), v.end());
  }

 private:
  std::uint64_t capacity() const { return slots_ == nullptr ? 0 : mask_ + 1; }
  // Twice the slots (16 at first), the held entries moved to their new places.
  void grow() {
    const std::uint64_t size = std::max<std::uint64_t>(16, 2 * capacity());
    auto bigger = std::make_unique<T[]>(size);
    const std::uint64_t mask = size - 1;
    for (std::uint64_t i = base_; i < end_; ++i) bigger[i & mask] = (*this)[i];
    slots_ = std::move(bigger);
    mask_ = mask;
  }

  // Four words (a std::vector took six): the pass reads a node's rings at each of its steps
  // (NodeState, the lines it reads).
  std::unique_ptr<T[]> slots_;  // a power of two of them, or none
  std::uint64_t mask_ = 0;      // their count - 1
  std::uint64_t base_ = 0;      // the first entry held
  std::uint64_t end_ = 0;       // one past the last
};

// The lock of a node's log: the node appends a record under it and the pass copies one out,
// each for a few dozen instructions, so it is seldom contended. Uncontended, its lock and its
// unlock are one atomic instruction each, inline (std::mutex called into the C library twice,
// about 65 instructions a record, four records a message); contended, the waiter sleeps
// (std::atomic::wait: a futex, after libstdc++'s bounded look of 16 rounds, pauses and
// yields) until the holder's unlock wakes it.
// Lockable: std::lock_guard and std::unique_lock take it.
class LogMutex {
 public:
  void lock() {
    if (try_lock()) return;
    // Held: say that someone may sleep (2), and sleep until it is let go.
    while (state_.exchange(2, std::memory_order_acquire) != 0) {
      state_.wait(2, std::memory_order_relaxed);
    }
  }
  bool try_lock() {
    int free = 0;
    return state_.compare_exchange_strong(free, 1, std::memory_order_acquire,
                                          std::memory_order_relaxed);
  }
  void unlock() {
    if (state_.exchange(0, std::memory_order_release) == 2) state_.notify_one();
  }

 private:
  std::atomic<int> state_{0};  // 0: free; 1: held; 2: held, and someone may sleep on it
};

// A node's log. Its first member is what the node writes at each append and the pass reads
// at each fetch (NodeState, first members).
struct NodeLog {
  LogVector<OpRecord> ops;
  LogVector<std::uint32_t> request_lists;
  // The answers the node got to its queries (wait_any, test), in order: the contention-
  // free replay (simulator.cpp) follows them.
  LogVector<std::int64_t> answers;
  // Lines of output the node marked (mark_output), each as the number of operations it had
  // logged then: the run's pass hands a line on when it reaches that operation (or the end).
  std::deque<std::uint64_t> output_marks;
  // Real time only: what happened, measured.
  std::vector<MessageEvent> messages;
  std::vector<CombineEvent> combines;
  Picos finish = 0;
  void clear() {
    ops.clear();
    request_lists.clear();
    answers.clear();
    output_marks.clear();
    messages.clear();
    combines.clear();
    finish = 0;
  }
};

// --- requests ------------------------------------------------------------------------------

// A message a probe found (or that a receive took): its sender, tag and size.
struct Found {
  bool found = false;
  int src = -1;  // world rank
  Tag tag = 0;
  std::uint64_t bytes = 0;
  std::uint64_t items = 0;
  // A blocking probe (or an iprobe) told that no message will come: the failed node (world
  // rank) it needed (docs/model.md, "Failed nodes"); -1: none.
  int failed = -1;
};

// The tag a receive the simulation failed writes into its log (record_match) with the failed
// node as its source: no message has it, so the replay after the run completes that receive
// when the failed node stops, as it does one from the node by name (simulator.cpp).
constexpr Tag kFailedTag = -2;

// The simulation's choice for a deferred receive of a node: the message of (comm, src, tag)
// that is next in the node's mailbox. request: the irecv's id, or -1 for the blocking
// receive the node is in.
// failed >= 0: no message; the receive fails, as node `failed` (world rank) has stopped
// (docs/model.md, "Failed nodes"), and `any`: by the rule of a receive from any source (the
// first member of its comm to stop).
struct Decision {
  std::int64_t request = -1;
  std::uint32_t comm = 0;
  int src = 0;  // world rank
  Tag tag = 0;
  int failed = -1;
  bool any = false;
};

// A nonblocking transfer as its node sees it (Request is a handle to one). Kept in a
// RequestTable, so its address stays put while the node posts more.
struct RequestState {
  bool send = false;
  bool retired = false;            // completed by wait, wait_any or test (handles are null)
  int handle = -1;                 // the transport's own handle of the transfer, if it keeps one
  std::uint32_t comm = 0;
  int peer = 0;                    // comm rank
  int peer_world = 0;
  // An irecv waiting for its message: the next of its match key (PostedReceives). Here, in
  // the entry's first 64 bytes with what a message that arrives writes (filled), not a cache
  // line of its own: a node's entries are cold when its messages come.
  std::uint32_t next_posted = 0;
  Tag tag = 0;
  // irecv: where the message goes; filled once it has been copied there.
  void* buffer = nullptr;
  std::size_t capacity = 0;
  std::size_t item_size = 1;
  bool filled = false;
  // While open: its place in the node's list of open buffers (OpenBuffers; -1: none, its
  // buffer has no bytes or it is not open).
  std::int32_t open_buffer = -1;
  std::size_t received = 0;        // bytes
  std::string error;               // irecv: the message did not fit (reported at completion)
  // irecv: what the message it took was (its status), once filled.
  int matched_src = -1;            // world rank
  Tag matched_tag = 0;
  std::size_t matched_items = 0;
  bool cancelled = false;          // withdrawn before a message matched it (filled, empty)
  // A freed irecv whose node has returned: it still takes its message, but copies nothing,
  // as its buffer may have gone with the node's stack (LocalNodes::run_node).
  bool abandoned = false;
  bool truncated = false;          // the message did not fit (error says so)
  int failed = -1;                 // irecv: completed without a message, its source failed;
                                   // synchronous isend: its receiver stopped first
  bool failed_any = false;         // irecv: ... by the rule of a receive from any source
  int lost_link = -1;              // irecv: took a message lost on this failed link; a
                                   // synchronous isend: its message was lost there
  // Let go of by Comm::free while its transfer goes on: the transport may still write it.
  bool freed = false;
  // Virtual clock: its operation in the node's log, and whether its match is the
  // simulation's to name (a wildcard, or posted behind one); matched_only: bound to a
  // message by mprobe, whose bytes wait in `held` until a buffer is given.
  std::size_t log_index = 0;
  bool deferred = false;
  bool matched_only = false;
  Message* held = nullptr;
  // Virtual clock, a synchronous isend: its place among the node's sends, and whether the
  // simulation has said that its receive is posted (it completes no earlier).
  bool synchronous = false;
  bool sync_done = false;
  std::uint64_t send_index = 0;
  // isend: the caller's buffer and a hash of it at posting, checked at completion.
  const void* send_buffer = nullptr;
  std::size_t send_bytes = 0;
  std::uint64_t send_hash = 0;
  // Virtual clock, an isend of SendMode::lent: its message, while a receiver may copy from
  // the buffer (taken back at completion or withdrawal; loan.hpp).
  Message* lent = nullptr;
  // Real clock isend: the transfer thread sets done when the message has been delivered.
  std::atomic<bool> done{false};
  MessageEvent event;
};

// A node's requests by id (indices from 0, in the order posted). Each stays at its address
// while the node posts more (real-clock transfer threads write `done` and `event` of isends
// in flight). Ids are never reused; the entries below an id the node is done with
// (release_below) are freed, so a run that completes its requests as it goes holds only
// those in flight, however many it posts.
class RequestTable {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Whether request i is still kept (false once released, or never posted).
  bool held(std::size_t i) const { return i >= first_held() && i < size_; }
  // The first id still kept.
  std::size_t first_held() const { return first_chunk_ * kChunk; }
  RequestState& operator[](std::size_t i) { return *chunk(i).at[i % kChunk]; }
  const RequestState& operator[](std::size_t i) const { return *chunk(i).at[i % kChunk]; }
  RequestState& emplace_back() {
    if (size_ == (first_chunk_ + chunks_.size()) * kChunk) {
      chunks_.push_back(std::make_unique<Chunk>());
    }
    const std::size_t i = size_++;
    return chunk(i).at[i % kChunk].emplace();
  }
  // Frees the entries of ids below `id` (whole chunks of them): the node will not read them
  // again.
  void release_below(std::size_t id) {
    while (!chunks_.empty() && (first_chunk_ + 1) * kChunk <= id) {
      chunks_.pop_front();
      ++first_chunk_;
    }
  }
  // Entries kept: those from first_held() on.
  std::size_t kept() const { return size_ - std::min(size_, first_held()); }
  void clear() {
    chunks_.clear();
    first_chunk_ = 0;
    size_ = 0;
  }

  template <class Table, class T>
  struct Iterator {
    Table* table;
    std::size_t i;
    T& operator*() const { return (*table)[i]; }
    Iterator& operator++() {
      ++i;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i == o.i; }
  };
  // The entries still kept, in id order.
  Iterator<RequestTable, RequestState> begin() { return {this, first_held()}; }
  Iterator<RequestTable, RequestState> end() { return {this, size_}; }
  Iterator<const RequestTable, const RequestState> begin() const {
    return {this, first_held()};
  }
  Iterator<const RequestTable, const RequestState> end() const { return {this, size_}; }

 private:
  static constexpr std::size_t kChunk = 16;
  struct Chunk {
    std::optional<RequestState> at[kChunk];
  };
  Chunk& chunk(std::size_t i) const { return *chunks_[i / kChunk - first_chunk_]; }
  std::deque<std::unique_ptr<Chunk>> chunks_;
  std::size_t first_chunk_ = 0;  // the chunk index of chunks_.front()
  std::size_t size_ = 0;
};

// A node's irecvs waiting for their message, by match key, oldest first (a message that
// arrives goes to the oldest): the keys in a KeyedLists, each key's irecvs a list of ids
// linked through RequestState::next_posted, so that posting, matching and withdrawing one
// allocates nothing (a std::unordered_map of std::deque allocated an entry and a deque's
// block for every key, and a collective's receives come under a fresh tag each call). The
// ids are of open requests, which the table keeps. Only the owner uses it.
class PostedReceives {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  bool empty() const { return keys_.empty(); }
  bool contains(const MatchKey& key) { return keys_.find(key) != nullptr; }
  // Irecv `id` waits for a message of key, after those already waiting.
  void push_back(const MatchKey& key, std::uint32_t id, RequestTable& requests) {
    requests[id].next_posted = kNone;
    Ids* ids = keys_.find(key);
    if (ids == nullptr) {
      ids = &keys_.add(key);
      ids->head = id;
    } else {
      requests[ids->tail].next_posted = id;
    }
    ids->tail = id;
  }
  // Key's oldest irecv, taken off its list; kNone when none waits.
  std::uint32_t pop_front(const MatchKey& key, RequestTable& requests) {
    Ids* ids = keys_.find(key);
    if (ids == nullptr) return kNone;
    const std::uint32_t id = ids->head;
    ids->head = requests[id].next_posted;
    if (ids->head == kNone) keys_.erase(ids);
    return id;
  }
  // Takes irecv r off key's list, where it waits there.
  void remove(const MatchKey& key, const RequestState& r, RequestTable& requests) {
    Ids* ids = keys_.find(key);
    if (ids == nullptr) return;
    for (std::uint32_t k = ids->head, before = kNone; k != kNone;
         before = k, k = requests[k].next_posted) {
      if (&requests[k] != &r) continue;
      const std::uint32_t after = requests[k].next_posted;
      (before == kNone ? ids->head : requests[before].next_posted) = after;
      if (ids->tail == k) ids->tail = before;
      if (ids->head == kNone) keys_.erase(ids);
      return;
    }
  }
  // f(id) for every irecv waiting.
  template <class F>
  void for_each(F&& f, RequestTable& requests) const {
    keys_.for_each([&](const MatchKey&, const Ids& ids) {
      for (std::uint32_t k = ids.head; k != kNone; k = requests[k].next_posted) f(k);
    });
  }
  void clear() { keys_.clear(); }

 private:
  struct Ids {
    std::uint32_t head = kNone, tail = kNone;
    bool empty() const { return head == kNone; }
  };
  KeyedLists<Ids> keys_;
};

// The buffers of a node's open requests (posted, not yet retired) that have bytes, the
// receives' and the isends' apart, each a compact list in no order: what every post checks its
// buffer against (Comm::check_receive_buffer, Comm::isend_raw). A post reads two words per
// open transfer here, where it read every request entry from the oldest open one on (a few
// cache lines each): a node that posts k transfers before it completes them, as a broadcast's
// forwarding node does, paid that k times over. Kept where a request opens and where it is
// retired (comm.cpp), so that a list holds exactly the buffers those scans would find.
class OpenBuffers {
 public:
  // r opens with [data, data + bytes): a receive's buffer, or (r.send) an isend's.
  void add(RequestState& r, const void* data, std::size_t bytes) {
    if (bytes == 0) return;  // overlaps nothing
    std::vector<Span>& list = r.send ? sends_ : receives_;
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    r.open_buffer = static_cast<std::int32_t>(list.size());
    list.push_back({begin, begin + bytes, &r});
  }
  // r is retired: its buffer leaves its list (the last one takes its place).
  void remove(RequestState& r) {
    if (r.open_buffer < 0) return;
    std::vector<Span>& list = r.send ? sends_ : receives_;
    const auto at = static_cast<std::size_t>(std::exchange(r.open_buffer, -1));
    const Span last = list.back();
    list.pop_back();
    if (at < list.size()) {
      list[at] = last;
      last.request->open_buffer = static_cast<std::int32_t>(at);
    }
  }
  // Whether [data, data + bytes) overlaps the buffer of an open receive, or of an open isend
  // (as Comm's overlap test tells: an empty range overlaps nothing).
  bool receive_overlaps(const void* data, std::size_t bytes) const {
    return overlaps(receives_, data, bytes);
  }
  bool send_overlaps(const void* data, std::size_t bytes) const {
    return overlaps(sends_, data, bytes);
  }
  void clear() {
    receives_.clear();
    sends_.clear();
  }

 private:
  struct Span {
    std::uintptr_t begin, end;  // end: one past the last byte
    RequestState* request;      // its entry stays put (RequestTable)
  };
  static bool overlaps(const std::vector<Span>& list, const void* data, std::size_t bytes) {
    if (bytes == 0) return false;
    const auto begin = reinterpret_cast<std::uintptr_t>(data), end = begin + bytes;
    bool any = false;  // no branch per entry: the loop runs to the end, as it mostly does
    for (const Span& s : list) any |= begin < s.end && s.begin < end;
    return any;
  }
  std::vector<Span> receives_, sends_;
};

// Why a message of `bytes` bytes (`items` items) cannot be received into `capacity` bytes of
// items of `item_size` bytes, or "".
std::string receive_problem(std::size_t bytes, std::uint64_t items, std::size_t capacity,
                            std::size_t item_size);
// Whether such a message can be received there (receive_problem is ""): inline, so that a
// receive that fits, every one but a wrong one, makes and moves no string.
inline bool receive_fits(std::size_t bytes, std::size_t capacity, std::size_t item_size) {
  return bytes <= capacity && item_size != 0 && bytes % item_size == 0;
}
// Copies a message into the buffer of the irecv it matched (a message that does not fit is
// noted, and reported when the request completes) and frees it.
void fill_request(RequestState& r, Message* m);
// At the end of a node's function: a UsageError when requests were never completed (comm.cpp).
void check_requests_completed(NodeState& n);

// --- groups --------------------------------------------------------------------------------

// What a transport keeps of its own for a group (the MPI transport: its communicators).
// A count per comm id (a node's collective calls, splits or meetings on each comm): the next
// number for `id`, counting from 0. Comm ids are the machine's, in the order comms were made,
// so a node's own ids can be large and few: under vmc mpirun rank r's MPI_COMM_SELF has an id
// near r. Ids below kDense are counted in place (the world, 0, is the hot one); the others
// in a sorted list, so that p nodes with a comm each hold a few entries each, not p (a vector
// by id held p^2/2 of them over the machine).
class CountsById {
 public:
  std::uint64_t next(std::uint32_t id) {
    if (id < kDense) {
      if (dense_.size() <= id) dense_.resize(id + 1, 0);
      return dense_[id]++;
    }
    auto at = std::lower_bound(sparse_.begin(), sparse_.end(), id,
                               [](const auto& e, std::uint32_t k) { return e.first < k; });
    if (at == sparse_.end() || at->first != id) at = sparse_.insert(at, {id, 0});
    return at->second++;
  }
  // The numbers given out for `id` so far: what next(id) would return.
  std::uint64_t count(std::uint32_t id) const {
    if (id < kDense) return id < dense_.size() ? dense_[id] : 0;
    auto at = std::lower_bound(sparse_.begin(), sparse_.end(), id,
                               [](const auto& e, std::uint32_t k) { return e.first < k; });
    return at == sparse_.end() || at->first != id ? 0 : at->second;
  }
  void clear() {
    dense_.clear();
    sparse_.clear();
  }

 private:
  static constexpr std::uint32_t kDense = 64;
  std::vector<std::uint64_t> dense_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> sparse_;  // by id
};

struct GroupChannels {
  virtual ~GroupChannels() = default;
};

// A copy of a CallSignature that owns its texts, kept by a transport for the members that
// arrive later. Assigning a new call to a kept copy reuses its texts' storage, so the
// signatures of a run's calls cost no allocation once the first few are made.
struct KeptSignature {
  std::string operation, op, type, algorithm;
  CallSignature fields;  // the numbers; its views are set by view()
  void keep(const CallSignature& s) {
    // A loop repeats its call: a text already equal is left as it is (a comparison costs
    // less than an assignment).
    const auto set = [](std::string& kept, std::string_view text) {
      if (!same_text(kept, text)) kept.assign(text);
    };
    set(operation, s.operation);
    set(op, s.op);
    set(type, s.type);
    set(algorithm, s.algorithm);
    fields = s;
  }
  // Whether a member's call s agrees with the one kept: everything compare_signatures
  // (transport.hpp) compares, which then has nothing to say. Inline, on every collective.
  bool agrees_with(const CallSignature& s) const {
    return s.root == fields.root && s.item_size == fields.item_size &&
           s.check_count == fields.check_count && (!s.check_count || s.count == fields.count) &&
           s.layout == fields.layout && same_text(operation, s.operation) &&
           same_text(op, s.op) && same_text(type, s.type) && same_text(algorithm, s.algorithm);
  }
  static bool same_text(std::string_view a, std::string_view b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
  }
  CallSignature view() const {
    CallSignature s = fields;
    s.operation = operation;
    s.op = op;
    s.type = type;
    s.algorithm = algorithm;
    return s;
  }
};

// A collective call whose members' calls differ (the slow path of
// MailboxTransport::compare_call): the calls that differ from the first member's, kept until
// every member has come, so that the report depends on the calls alone. The members that came
// before the first difference agreed with the first member's call.
struct DifferingCalls {
  std::vector<std::pair<int, KeptSignature>> calls;  // (comm rank, call) differing from the first's
  std::vector<int> waiting;  // comm ranks that came since the first difference: they wait
  bool complete = false;     // every member has come: the report below is made
  int blamed = -1;           // comm rank the report blames
  std::string operation;     // its call's operation
  std::string report;
};

// Shared state of one group of nodes. Created by the machine (world) or by split.
struct CommGroup {
  std::uint32_t id = 0;
  std::vector<int> world;             // comm rank -> world rank
  std::unordered_map<int, int> rank_of;  // world rank -> comm rank
  MachineImpl* machine = nullptr;
  std::shared_ptr<GroupChannels> channels;  // the transport's, if it keeps any
  // Whether the group is the whole machine, rank r on node r; else a hash of `world`
  // (selection's key for the group, computed once).
  bool whole = false;
  std::uint64_t world_hash = 0;
  // Members that run in this process (all but on a spread machine): the collective call
  // signatures are compared among them.
  int local_members = 0;
  void describe_members();  // sets whole and world_hash from world
  // The comm rank of world rank w, or -1 when w is not a member.
  int comm_rank(int w) const {
    if (whole) return w;
    auto it = rank_of.find(w);
    return it == rank_of.end() ? -1 : it->second;
  }

  // Control plane: splits and collective signatures, agreed through shared memory.
  struct SplitCall {
    std::vector<std::pair<int, int>> color_key;  // per comm rank
    std::vector<bool> arrived;
    int arrivals = 0;
    int departures = 0;
    bool ready = false;
    std::vector<std::shared_ptr<CommGroup>> result;  // per comm rank (null: no group)
    std::vector<int> new_rank;
  };
  // A collective call whose signature the members are comparing (the first one's, kept).
  struct SignatureCall {
    std::uint64_t seq = 0;  // the comm's call number
    bool open = false;      // some member has yet to compare its call
    KeptSignature sig;
    int first_rank = 0;
    int seen = 0;
    // Once a member's call differs (the call stays open then: its entry lives to the run's end).
    std::unique_ptr<DifferingCalls> differ;
  };
  // A group made by create_group, until every member of it has taken it.
  struct GroupCall {
    std::shared_ptr<CommGroup> group;
    int departures = 0;
  };
  std::mutex control_mutex;
  std::map<std::uint64_t, SplitCall> splits;
  // create_group's calls by (members' hash, tag, the members' count of such calls)
  std::map<std::tuple<std::uint64_t, std::int64_t, std::uint64_t>, GroupCall> groups_made;
  // The calls being compared: call number seq in slot seq % kSignatureSlots (made at the
  // comm's first collective), or, while that slot holds an earlier call still open, in
  // more_signatures. A slot keeps its texts' storage for the call kSignatureSlots later,
  // which a loop makes the same (the MPI layer's calls and vmc's alternate, each in slots of
  // its own), so a repeated call assigns no text, and finding a call is an index.
  static constexpr std::size_t kSignatureSlots = 4;
  std::vector<SignatureCall> signature_slots;
  std::map<std::uint64_t, SignatureCall> more_signatures;
};

// --- nodes ---------------------------------------------------------------------------------

// What a blocked node waits for, for the deadlock report.
struct WaitDescription {
  const char* operation = "";
  int peer = -1;
  int peer_world = -1;
  Tag tag = 0;
  std::uint32_t comm = 0;
};

// Thrown inside a node when the run is being ended (another node threw, a deadlock).
// Not a std::exception, so user code catching std::exception does not swallow it.
struct RunAborted {};
// Thrown inside a node that fails on purpose, at its first call at or after its time
// (MachineConfig::failures): its function ends, the run goes on (LocalNodes::run_node).
struct NodeStopped {};
inline constexpr Picos kNoFailure = -1;

struct alignas(64) NodeState {
  // What the discrete-event pass reads of the node at each of its steps (Simulator::fetch),
  // what the node writes at each operation it logs (VirtualClock::log_op), and what a sender
  // writes (its mailbox) and reads (its rank, to wake it), first and together in this first
  // cache line: the log's lock, whether the node has finished, the head of its operations'
  // ring (the other rings' heads, in the next line, are read only after operations that use
  // them). Spread over the state, they were seven of its lines, each cold when the pass, the
  // node or a sender comes back to it on a large machine (written meanwhile on the other
  // core, or long before). Virtual time: the log is appended under log_mutex, since the
  // simulator may read it while the node runs.
  LogMutex log_mutex;
  std::atomic<bool> finished{true};
  // Operations logged since the node last offered to advance the simulation (the pass runs
  // while the nodes do: virtual_clock.cpp, log_op).
  std::uint32_t since_advance = 0;
  int rank = 0;  // world rank
  // Mailbox: any thread enqueues, only the owner takes.
  Inbox incoming;
  // Every request below this index is retired (kept up lazily by the scans of the open ones,
  // comm.cpp, so that a node that has posted many need not walk them all at each post).
  std::size_t first_open = 0;
  NodeLog log;

  std::uint64_t sends = 0;  // sends made in this run
  MachineImpl* machine = nullptr;
  // The Node the user's function was given, during its call (vmc::this_node()).
  Node* handle = nullptr;
  // The stack the node runs on (vmc::this_node_stack, for a crash report): set once, by the
  // executor that gives it (a fiber's slab slot, a node thread's own stack).
  const char* stack_low = nullptr;
  std::size_t stack_size = 0;
  UnexpectedMessages unexpected;
  // Threads engine: where a blocked node sleeps. The executor spins before it sleeps, and
  // only while the awake nodes do not outnumber the cores (executor_threads.cpp), so the
  // semaphore itself does not spin. Unused by the fibers engine.
  moodycamel::LightweightSemaphore wake{0, 0};
  moodycamel::LightweightSemaphore start{0, 64};

  // Deadlock detection: 0 when running, activity stamp + 1 while blocked.
  std::atomic<std::uint64_t> blocked_stamp{0};
  std::atomic<std::uint64_t> parks{0};  // times this node parked in this machine's life
  std::uint64_t parks_at_nudge = 0;     // controller only: `parks` at its last nudge
  std::mutex wait_mutex;
  WaitDescription waiting;  // guarded by wait_mutex
  // A blocking receive's wait: a message from its source on its comm under another tag, if
  // one waits in the mailbox (written by the node under wait_mutex, so the node reads it
  // without the lock and others with it).
  Found waiting_other;
  std::string call_context;  // guarded by wait_mutex: the front door's call (CallContext)
  // The same, made when asked (CallContext's lazy form): the text is
  // call_describe(call_describe_arg) when call_describe is set. Set by the node without the
  // lock (the argument first, the function released after it), cleared under wait_mutex, so
  // that a report that holds the lock reads a context whose argument outlives its reading.
  std::atomic<std::string (*)(const void*)> call_describe{nullptr};
  std::atomic<const void*> call_describe_arg{nullptr};
  std::string context_text() const {  // under wait_mutex
    const auto describe = call_describe.load(std::memory_order_acquire);
    return describe != nullptr ? describe(call_describe_arg.load(std::memory_order_relaxed))
                               : call_context;
  }

  // Nonblocking requests of this run (ids are indices), and the irecvs waiting for their
  // message per match key, oldest first (a message that arrives goes to the oldest).
  RequestTable requests;
  PostedReceives posted;
  std::size_t open_requests = 0;  // posted, not yet retired
  OpenBuffers open_buffers;       // theirs that have bytes
  // A query's answer (wait_any, test) is published here.
  std::atomic<bool> answered{false};
  std::int64_t answer = 0;  // written by the simulator before `answered`
  // ... and, for a probe, the message it found; for test_list, a value per request.
  Found found;
  std::vector<std::int64_t> answer_list;
  // The pass's rule for failed queries (docs/model.md: the second in a row moves the node on
  // to the next instant), mirrored here: whether the last operation logged but clock reads
  // was a query that failed, and whether the one before it was. After the first failed query
  // in a row the pass waits for this node's next operation and nothing changes meanwhile, so
  // the same test or test_list asked again gets the same answer: the node gives it itself
  // (OpRecord::known) instead of waiting for the pass (VirtualClock::test_list).
  bool failed_last = false;
  bool failed_before = false;
  // That first failed query, when it was a test or a test_list: its requests (empty: none to
  // answer here), its kind, its `all`, and its answer.
  std::vector<std::uint32_t> repeatable;
  OpRecord::Kind repeatable_kind = OpRecord::Kind::test;
  bool repeatable_all = false;
  std::vector<std::int64_t> repeatable_answer;
  // The simulation's choices of the messages that deferred receives take, in the order it
  // made them (it appends under decisions_mutex; the node applies them in order).
  std::mutex decisions_mutex;
  std::vector<Decision> decisions;
  int deferred_open = 0;              // deferred receives not yet matched in the node
  // Synchronous sends whose receive the simulation has found posted (their send indices,
  // guarded by decisions_mutex), and how many of the node's are still waiting for that.
  std::vector<std::uint64_t> sync_acks;
  int sync_open = 0;
  Message* blocking_match = nullptr;  // a deferred blocking receive's message, once taken
  // ... or the simulation's word that it fails (Decision::failed, any), -1: none.
  int blocking_failed = -1;
  bool blocking_failed_any = false;
  // Synchronous sends whose receiver stopped before a receive took the message: (send
  // index, the receiver), guarded by decisions_mutex.
  std::vector<std::pair<std::uint64_t, int>> sync_failures;
  // A communicator constructor's meeting (virtual clock, while the machine has failures): its
  // (group id, sync number), and the simulation's word on it: 0 while it has not said, 1
  // met, -2 - k failed for node k (guarded by decisions_mutex).
  std::pair<std::uint32_t, std::uint64_t> meeting{~0u, 0};
  int meeting_word = 0;
  std::size_t blocking_log_index = 0;
  CountsById collective_seq;  // per comm id: collective calls made
  std::unique_ptr<CallMemo> call_memo;        // the layer above's (Comm::call_memo)
  int collective_depth = 0;  // collective calls the node is inside (Comm::CollectiveScope)
  CountsById split_seq;       // per comm id: splits made
  CountsById group_sync_seq;  // per comm id: sync operations logged on it
  // Groups made by create_group, per (comm id, members' hash, tag): how many this node made.
  std::map<std::tuple<std::uint32_t, std::uint64_t, std::int64_t>, std::uint64_t> group_seq;
  std::chrono::steady_clock::time_point run_start;
  std::uint64_t perturb_state = 0;  // splitmix64 state of the schedule perturbation

  // Failures on purpose (MachineConfig::failures; docs/model.md, "Failed nodes"). The node's
  // own: the virtual time at which it stops (kNoFailure: never), set before its run starts.
  Picos fail_at = kNoFailure;
  // Set by the node when it stops (its function ended there), before it wakes the others, and
  // read by nodes that wait for a message from it; stop_time (its virtual time then) and
  // stop_cause (-1: a failure it was given; else the failed node whose error it ended on) are
  // written before it.
  std::atomic<bool> stopped{false};
  Picos stop_time = 0;
  int stop_cause = -1;
  int stop_cause_link = -1;  // or the failed link whose lost message it ended on
  // The node's calls that failed because they needed a failed node or took a lost message,
  // and the messages it sent that a failed link lost (its own; the report reads them after
  // the run).
  std::vector<FailureReport::Affected> affected;
  std::vector<FailureReport::Lost> lost;
  // How many of its messages routed around each failed link (by index into
  // MachineConfig::link_failures; empty until the first).
  std::vector<int> rerouted;
  // Its last synchronous send's message was lost (MachineConfig::link_failures): the failed
  // link, for the call to report once its receive matched; -1: none.
  int sync_lost_link = -1;
  // ... or its receiver stopped before a receive took it: that node; -1: none.
  int sync_failed_node = -1;

  // Takes everything in `incoming`: a message for which an irecv is posted is copied into
  // its buffer, the others go to `unexpected`. Returns how many it took.
  std::size_t drain();
  // Finds and removes the first message matching key; nullptr if none has arrived.
  Message* take(const MatchKey& key);
  // Whether this node is blocked waiting for a message of (comm, world source, tag): a
  // hint, as it may wake at any moment.
  bool waits_for(std::uint32_t comm, int src, Tag tag);
  // Frees every message in the mailbox (between runs).
  void discard_all();
  // Between runs: no requests, no sequence numbers, no log (the mailbox stays).
  void clear_run();
};

inline bool NodeState::waits_for(std::uint32_t comm, int src, Tag tag) {
  if (blocked_stamp.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(wait_mutex);
  return waiting.comm == comm && waiting.peer_world == src && waiting.tag == tag;
}

// The node whose thread (or fiber) is calling, or null outside node functions. constinit:
// initialised without code, so no file calls a guard for it on each access. (GCC 12 under
// -fsanitize=undefined tests a guarded access's address against null with the guard's flags:
// every fiber's first store after a switch was reported as a store to a null pointer.)
extern constinit thread_local NodeState* current_node;
// Gives the calling thread (one that runs nodes) a stack for signal handlers, freed when the
// thread ends (node.cpp).
void give_thread_a_signal_stack();

}  // namespace vmc::detail
