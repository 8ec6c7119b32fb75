// A message between nodes of one process, in flight or waiting in a mailbox, and the memory
// its bytes live in. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
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
inline void* message_malloc(std::size_t n) { return std::malloc(n); }
inline void message_free(void* p) noexcept { std::free(p); }
template <class T>
using PoolAllocator = std::allocator<T>;
#else
inline void* message_malloc(std::size_t n) { return scalable_malloc(n); }
inline void message_free(void* p) noexcept { scalable_free(p); }
template <class T>
using PoolAllocator = tbb::scalable_allocator<T>;
#endif
struct PayloadFree {
  void operator()(std::byte* p) const noexcept { message_free(p); }
};
using Payload = std::unique_ptr<std::byte[], PayloadFree>;
inline Payload make_payload(std::size_t bytes) {
  auto* p = static_cast<std::byte*>(message_malloc(bytes));
  if (p == nullptr) throw std::bad_alloc();
  return Payload(p);
}

struct Message {
  static void* operator new(std::size_t n) {
    void* p = message_malloc(n);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void operator delete(void* p) noexcept { message_free(p); }

  std::uint32_t comm = 0;
  int src = 0;                      // world rank
  Tag tag = 0;
  std::uint64_t items = 0;
  std::uint64_t send_index = 0;     // position among the sender's sends in this run
  std::size_t bytes = 0;
  Payload payload;                  // its bytes, unless they are lent (or carry none)
  Message* next = nullptr;          // the mailbox's FIFO of messages with one match key
  Loan loan;                        // loan.hpp
};

struct MessageRelease {
  void operator()(Message* m) const noexcept { release(m); }
};
using OwnedMessage = std::unique_ptr<Message, MessageRelease>;

}  // namespace vmc::detail
