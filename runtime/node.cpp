// A node's mailbox and requests, and a group's members (node.hpp).
#include "runtime/node.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "runtime/machine_impl.hpp"

namespace vmc::detail {

constinit thread_local NodeState* current_node = nullptr;

namespace {

// A thread's stack for signal handlers, mapped at its first use and given back at its end.
struct SignalStack {
  void* memory = nullptr;
  std::size_t bytes = 0;
  ~SignalStack() {
    if (memory == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    munmap(memory, bytes);
  }
};

}  // namespace

void give_thread_a_signal_stack() {
  thread_local SignalStack stack;
  if (stack.memory != nullptr) return;
  // One the thread has already (a sanitizer's runtime gives every thread its own) is kept.
  stack_t now{};
  if (sigaltstack(nullptr, &now) == 0 && (now.ss_flags & SS_DISABLE) == 0) return;
  // 64 KiB, or the system's own minimum if larger: a handler's frames and write(2).
  const long least = sysconf(_SC_MINSIGSTKSZ);
  stack.bytes = std::max<std::size_t>(std::size_t{64} << 10,
                                      least > 0 ? 4 * static_cast<std::size_t>(least) : 0);
  void* p =
      mmap(nullptr, stack.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;  // best effort: a crash report is a courtesy
  stack_t alt{};
  alt.ss_sp = p;
  alt.ss_size = stack.bytes;
  if (sigaltstack(&alt, nullptr) != 0) {
    munmap(p, stack.bytes);
    return;
  }
  stack.memory = p;
}

std::string receive_problem(std::size_t bytes, std::uint64_t items, std::size_t capacity,
                            std::size_t item_size) {
  if (receive_fits(bytes, capacity, item_size)) return {};
  if (bytes > capacity) {
    return "message of " + counted(bytes, "byte") + " (" + counted(items, "item") +
           ") does not fit the receive buffer of " + counted(capacity, "byte");
  }
  // It fits the buffer, so it is not whole items (receive_fits).
  return "message of " + counted(bytes, "byte") + " is not a whole number of " +
         std::to_string(item_size) + "-byte items";
}

void fill_request(RequestState& r, Message* m) {
  OwnedMessage owned(m);
  r.filled = true;
  r.received = m->bytes;
  r.matched_src = m->src;
  r.matched_tag = m->tag;
  r.matched_items = m->items;
  if (m->lost_link >= 0) {
    // Its error is made at completion (Comm::finish_request), naming the link.
    r.lost_link = m->lost_link;
    r.received = 0;
    return;
  }
  r.error = receive_problem(m->bytes, m->items, r.capacity, r.item_size);
  r.truncated = m->bytes > r.capacity;
  if (r.error.empty() && !r.abandoned) copy_out(*m, r.buffer);
}

std::size_t NodeState::drain() {
  std::size_t total = 0;
  for (Message* m = incoming.take_all(); m != nullptr; ++total) {
    Message* const after = std::exchange(m->next, nullptr);
    const MatchKey key{m->comm, m->src, m->tag};
    if (!posted.empty()) {
      // The oldest irecv posted for it takes it.
      const std::uint32_t id = posted.pop_front(key, requests);
      if (id != PostedReceives::kNone) {
        fill_request(requests[id], m);
        m = after;
        continue;
      }
    }
    unexpected.push_back(key, m);
    m = after;
  }
  return total;
}

Message* NodeState::take(const MatchKey& key) { return unexpected.take(key); }

void NodeState::discard_all() {
  drain();
  unexpected.for_each([](const MatchKey&, const MessageFifo& fifo) {
    for (Message* m = fifo.head; m != nullptr;) {
      Message* next = m->next;
      release(m);
      m = next;
    }
  });
  unexpected.clear();
}

void NodeState::clear_run() {
  for (RequestState& r : requests) {
    if (r.held != nullptr) release(std::exchange(r.held, nullptr));
    if (r.lent != nullptr) release(std::exchange(r.lent, nullptr));
  }
  if (blocking_match != nullptr) release(std::exchange(blocking_match, nullptr));
  {
    std::lock_guard lock(decisions_mutex);
    decisions.clear();
  }
  deferred_open = 0;
  {
    std::lock_guard lock(decisions_mutex);
    sync_acks.clear();
    sync_failures.clear();
    meeting = {~0u, 0};
    meeting_word = 0;
  }
  blocking_failed = -1;
  blocking_failed_any = false;
  sync_open = 0;
  collective_depth = 0;
  waiting_other = Found{};
  answer_list.clear();
  failed_last = false;
  failed_before = false;
  repeatable.clear();
  repeatable_answer.clear();
  requests.clear();
  open_requests = 0;
  open_buffers.clear();
  first_open = 0;
  answered.store(false);
  sends = 0;
  collective_seq.clear();
  call_memo.reset();
  split_seq.clear();
  group_sync_seq.clear();
  group_seq.clear();
  log.clear();
  since_advance = 0;
  blocked_stamp.store(0);
  fail_at = kNoFailure;
  stopped.store(false);
  stop_time = 0;
  stop_cause = -1;
  stop_cause_link = -1;
  affected.clear();
  lost.clear();
  rerouted.clear();
  sync_lost_link = -1;
  sync_failed_node = -1;
}

void CommGroup::describe_members() {
  const int p = static_cast<int>(world.size());
  whole = p == machine->p;
  for (int r = 0; whole && r < p; ++r) whole = world[r] == r;
  world_hash = whole ? 0 : hash_members(world);
}

}  // namespace vmc::detail
