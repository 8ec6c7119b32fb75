// Scratch memory for code that runs on a node (the collectives' buffers), and memory for
// timing-only runs.
//
// - scratch_allocate/scratch_free: from oneTBB's scalable allocator, which keeps freed
//   blocks for the next call and run instead of handing them back to the system (a page
//   the system hands out fresh costs a fault: about 12 us per 4 KiB on the machines vmc is
//   tested on, against 26 GB/s for memory in use). On a node of a timing-only machine
//   (MachineConfig::data = Data::none) they return nowhere memory instead.
// - nowhere(bytes): address space with no pages behind it (no access allowed). A timing-only
//   run moves no data, so its buffers are never read or written; any access faults at once
//   instead of passing unseen. A user's program hands spans of it to the collectives to run
//   machines too large for their data.
// - Bytes: a buffer of scratch memory, left uninitialised when made, so making one writes
//   nothing.
//
// Under AddressSanitizer and ThreadSanitizer scratch memory is plain malloc: they cannot see
// into oneTBB's allocator.
#pragma once

#include <cstddef>
#include <span>
#include <utility>

namespace vmc {

// Whether the calling code's data is real: false on a node of a timing-only machine (where
// buffers are nowhere memory and every copy and combine must be skipped), true elsewhere.
bool data_moves_here() noexcept;

// memmove of `bytes` bytes where data moves (data_moves_here()); nothing otherwise.
void copy_data(void* dst, const void* src, std::size_t bytes) noexcept;

void* scratch_allocate(std::size_t bytes);
// `bytes`: what scratch_allocate was given (small blocks are kept per size, message.hpp).
void scratch_free(void* p, std::size_t bytes) noexcept;

// `bytes` of address space that must never be read or written (aligned to 64 bytes). Never
// freed; the reservation (64 GiB) is reused from its start once it has been handed out.
// Buffers above 16 GiB (and all where the reservation cannot be made, under a limit on
// address space) are addresses no mapping has, up to 7 PiB each (std::length_error above).
std::span<std::byte> nowhere(std::size_t bytes);
bool is_nowhere(const void* p) noexcept;

// A byte buffer of scratch memory (a node's working space). Made with a size it is left
// uninitialised; copying it copies the bytes where data moves (copy_data), so a copy in a
// timing-only run touches nothing either.
class Bytes {
 public:
  Bytes() = default;
  explicit Bytes(std::size_t size) : data_(allocate(size)), size_(size) {}
  Bytes(const Bytes& other) : Bytes(other.size_) { copy_data(data_, other.data_, size_); }
  Bytes(Bytes&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  Bytes& operator=(Bytes other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~Bytes() { scratch_free(data_, size_); }

  char* data() { return data_; }
  const char* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  char& operator[](std::size_t i) { return data_[i]; }
  const char& operator[](std::size_t i) const { return data_[i]; }
  char* begin() { return data_; }
  char* end() { return data_ + size_; }
  const char* begin() const { return data_; }
  const char* end() const { return data_ + size_; }
  // Keeps the first min(size, new size) bytes; new bytes are uninitialised.
  void resize(std::size_t size) {
    if (size == size_) return;
    Bytes bigger(size);
    copy_data(bigger.data_, data_, size < size_ ? size : size_);
    *this = std::move(bigger);
  }

 private:
  static char* allocate(std::size_t size) {
    return size == 0 ? nullptr : static_cast<char*>(scratch_allocate(size));
  }
  char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace vmc
