// A message between nodes of one process, in flight or waiting in a mailbox, and the memory
// its bytes live in. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <tbb/scalable_allocator.h>

#include "runtime/loan.hpp"
#include "runtime/trace.hpp"

namespace vmc::detail {

// Payloads and messages come from oneTBB's scalable allocator: it keeps freed memory per
// thread and for large blocks, so steady-state messages reuse memory already touched
// instead of faulting fresh pages in (about 12 us per 4 KiB page on the machines vmc is
// tested on, against 26 GB/s for memory in use).
// Under the sanitizers, which cannot see into oneTBB's allocator (a block it hands from one
// thread to another would read as a data race, a use after free would go unseen), plain
// malloc and free.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline void* sized_malloc(std::size_t n) { return std::malloc(n); }
inline void sized_free(void* p, std::size_t) noexcept { std::free(p); }
#else

// Small blocks freed by a caller that knows their size (messages, the mailboxes' and the
// simulator's map and set nodes, collectives' scratch buffers) are kept by the thread that
// freed them, a few of each size, and handed out again before oneTBB is asked: a short
// collective makes about 17 of them per call, and oneTBB's per-thread path costs about 160
// instructions per allocation and free, this list about 20 (docs/performance.md, "Host
// cost"). Every block is an ordinary oneTBB block of its class's size, so whichever thread
// frees it may keep it or give it back. A node's fiber never leaves its worker thread and
// nothing here switches fibers, so a thread's lists are never shared.
class SmallBlocks {
 public:
  static constexpr std::size_t kGrain = 32, kClasses = 8, kKeep = 16;  // at most 18 KiB kept
  static constexpr std::size_t kLargest = kGrain * kClasses;
  static std::size_t size_class(std::size_t n) { return n == 0 ? 0 : (n - 1) / kGrain; }
  void* take(std::size_t c) noexcept {
    Free* f = head_[c];
    if (f == nullptr) return scalable_malloc((c + 1) * kGrain);
    head_[c] = f->next;
    --count_[c];
    return f;
  }
  void keep(void* p, std::size_t c) noexcept {
    if (count_[c] == kKeep) {
      scalable_free(p);
      return;
    }
    head_[c] = new (p) Free{head_[c]};
    ++count_[c];
  }
  // At the thread's end: the blocks go back, and a free after this (a static destructor on
  // the main thread) goes straight to oneTBB.
  ~SmallBlocks() {
    for (std::size_t c = 0; c < kClasses; ++c) {
      while (head_[c] != nullptr) scalable_free(std::exchange(head_[c], head_[c]->next));
      count_[c] = kKeep;
    }
  }

 private:
  struct Free {
    Free* next;
  };
  Free* head_[kClasses] = {};
  std::size_t count_[kClasses] = {};
};
inline thread_local SmallBlocks small_blocks;

// `n` bytes, to be freed with sized_free(p, n).
inline void* sized_malloc(std::size_t n) {
  return n <= SmallBlocks::kLargest ? small_blocks.take(SmallBlocks::size_class(n))
                                    : scalable_malloc(n);
}
inline void sized_free(void* p, std::size_t n) noexcept {
  if (p == nullptr) return;
  if (n <= SmallBlocks::kLargest) {
    small_blocks.keep(p, SmallBlocks::size_class(n));
  } else {
    scalable_free(p);
  }
}
#endif

// The allocator of the runtime's node-based containers: sized_malloc and sized_free.
template <class T>
struct PoolAllocator {
  static_assert(alignof(T) <= 16, "oneTBB's small blocks are 16-byte aligned");
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    void* p = sized_malloc(n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept { sized_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept {
    return true;
  }
};
// A payload knows its size, so that a short one goes back to the freeing thread's small
// blocks (sized_free) like its message.
struct PayloadFree {
  std::size_t bytes = 0;
  void operator()(std::byte* p) const noexcept { sized_free(p, bytes); }
};
using Payload = std::unique_ptr<std::byte[], PayloadFree>;
inline Payload make_payload(std::size_t bytes) {
  auto* p = static_cast<std::byte*>(sized_malloc(bytes));
  if (p == nullptr) throw std::bad_alloc();
  return Payload(p, PayloadFree{bytes});
}

struct Message {
  static void* operator new(std::size_t n) {
    void* p = sized_malloc(n);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void operator delete(void* p, std::size_t n) noexcept { sized_free(p, n); }

  std::uint32_t comm = 0;
  int src = 0;                      // world rank
  // A failed link lost it (MachineConfig::link_failures; docs/model.md, "Failed links"): a
  // marker without data, matched as the message would have been; the failed link's index.
  // Beside the fields every receive reads; the message stays within its 96-byte block.
  std::int32_t lost_link = -1;
  Tag tag = 0;
  std::uint64_t items = 0;
  std::uint64_t send_index = 0;     // position among the sender's sends in this run
  std::size_t bytes = 0;
  Payload payload;                  // its bytes, unless they are lent (or carry none)
  Message* next = nullptr;          // the mailbox's FIFO of messages with one match key
  Loan loan;                        // loan.hpp
};

static_assert(sizeof(Message) <= 96, "a message fits the small blocks' 96-byte class");

struct MessageRelease {
  void operator()(Message* m) const noexcept { release(m); }
};
using OwnedMessage = std::unique_ptr<Message, MessageRelease>;

}  // namespace vmc::detail
