// A result buffer that shows what a call wrote: its items are poisoned before the call (or
// preloaded with what an in-place call starts from), and canary items before and after them
// show a write outside it. The public harness (collectives/testing.cpp) and the tests
// (tests/collectives/harness.hpp) pass these to the calls they check.
//
//   reference::GuardedBuffer out(n, item_size);   // untyped: n items of item_size bytes
//   reference::Guarded<int> recv(n);              // typed: recv.span() for the call
//   ... the call ...
//   recv.canaries_intact(); recv.items();
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

namespace vmc::reference {

constexpr unsigned char kPoison = 0xA5;  // every byte of an item not yet written
constexpr unsigned char kCanary = 0x5C;  // not the poison: a stray copy of poison is caught
constexpr std::size_t kCanaryItems = 4;  // on each side

class GuardedBuffer {
 public:
  // `items` items of `item_size` bytes, poisoned; with `preload`, its first bytes (up to the
  // buffer's size) hold preload's instead.
  GuardedBuffer(std::size_t items, std::size_t item_size,
                std::span<const unsigned char> preload = {});

  // The first item (never null: the canaries come before it); aligned for any item type
  // whose size is a multiple of its alignment up to 16 bytes.
  unsigned char* data() { return storage_.data() + guard_bytes(); }
  const unsigned char* data() const { return storage_.data() + guard_bytes(); }
  std::size_t items() const { return items_; }
  std::size_t item_size() const { return item_size_; }
  // What the items hold now.
  std::vector<unsigned char> bytes() const;
  // Whether the canaries on both sides are as they were made.
  bool canaries_intact() const;
  // Whether every item is still poisoned.
  bool untouched() const;

 private:
  std::size_t guard_bytes() const { return kCanaryItems * item_size_; }
  std::size_t items_, item_size_;
  std::vector<unsigned char> storage_;  // canaries, items, canaries
};

// The same with items of type T (trivially copyable).
template <class T>
class Guarded {
 public:
  explicit Guarded(std::size_t n) : buffer_(n, sizeof(T)) {}
  std::span<T> span() { return std::span<T>(reinterpret_cast<T*>(buffer_.data()), buffer_.items()); }
  std::vector<T> items() const {
    std::vector<T> v(buffer_.items());
    if (!v.empty()) std::memcpy(v.data(), buffer_.data(), v.size() * sizeof(T));
    return v;
  }
  T get(std::size_t i) const {
    T x;
    std::memcpy(&x, buffer_.data() + i * sizeof(T), sizeof(T));
    return x;
  }
  const T* data() const { return reinterpret_cast<const T*>(buffer_.data()); }
  bool canaries_intact() const { return buffer_.canaries_intact(); }
  bool untouched() const { return buffer_.untouched(); }
  const GuardedBuffer& buffer() const { return buffer_; }

 private:
  GuardedBuffer buffer_;
};

}  // namespace vmc::reference
