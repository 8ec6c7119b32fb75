// Scratch and nowhere memory (scratch.hpp).
#include "runtime/scratch.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include "runtime/machine_impl.hpp"
#include "runtime/message.hpp"
#include "runtime/node.hpp"

namespace vmc {

namespace {

// The nowhere reservation: PROT_NONE, MAP_NORESERVE, so it costs neither memory nor swap;
// made at the first nowhere() call.
constexpr std::size_t kNowhereBytes = std::size_t{64} << 30;

std::once_flag nowhere_once;
std::atomic<char*> nowhere_base{nullptr};
std::atomic<std::size_t> nowhere_next{0};

// nullptr where the reservation cannot be made (a limit on address space: ulimit -v).
char* nowhere_region() {
  std::call_once(nowhere_once, [] {
    void* p = mmap(nullptr, kNowhereBytes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) nowhere_base.store(static_cast<char*>(p), std::memory_order_release);
  });
  return nowhere_base.load(std::memory_order_acquire);
}

// Buffers larger than a quarter of the reservation, and every buffer where it could not be
// made, take addresses from a far range that no mapping has: [2^52, 2^55), above the 47 bits
// of user space of x86-64's four-level paging (and the 48 of arm64's usual layout), with the
// top byte (which arm64 ignores) zero. Never mapped, so never read or written, as the
// reservation. 28 PiB, handed out one after the other and from the start again past the end.
constexpr std::uintptr_t kFarFirst = std::uintptr_t{1} << 52;
constexpr std::uintptr_t kFarEnd = std::uintptr_t{1} << 55;
std::atomic<std::size_t> far_next{0};

// A lap of `span` bytes handed out from `next`, one buffer after the other: the offset of a
// buffer of `size` bytes (a buffer that would run past the end starts the next lap).
std::size_t hand_out(std::atomic<std::size_t>& next, std::size_t span, std::size_t size) {
  std::size_t seen = next.load(std::memory_order_relaxed);
  std::size_t at = 0;
  do {
    at = seen % span;
    if (at + size > span) at = 0;
  } while (!next.compare_exchange_weak(seen, at + size, std::memory_order_relaxed));
  return at;
}

bool timing_only() {
  const detail::NodeState* node = detail::current_node;
  return node != nullptr && node->machine->config.data == Data::none;
}

}  // namespace

bool data_moves_here() noexcept { return !timing_only(); }

void copy_data(void* dst, const void* src, std::size_t bytes) noexcept {
  if (bytes == 0 || dst == src || timing_only()) return;
  std::memmove(dst, src, bytes);
}

std::span<std::byte> nowhere(std::size_t bytes) {
  constexpr std::size_t kFarBytes = kFarEnd - kFarFirst;
  if (bytes > kFarBytes / 4) {
    throw std::length_error("a timing-only buffer of " + std::to_string(bytes) +
                            " bytes: beyond the " + std::to_string(kFarBytes / 4) +
                            " bytes of address space vmc hands out for one");
  }
  const std::size_t size = (bytes + 63) / 64 * 64;
  // Handed out one after the other, from the start again when a range is used up (nothing
  // is ever there), so two buffers overlap only when one is still alive a whole lap (64 GiB
  // of buffers, or 28 PiB far) later: live buffers must not overlap, or a call would see its
  // send and receive buffers alias.
  char* base = nowhere_region();
  if (base != nullptr && bytes <= kNowhereBytes / 4) {
    return {reinterpret_cast<std::byte*>(base + hand_out(nowhere_next, kNowhereBytes, size)),
            bytes};
  }
  const std::uintptr_t at = kFarFirst + hand_out(far_next, kFarBytes, size);
  return {reinterpret_cast<std::byte*>(at), bytes};
}

bool is_nowhere(const void* p) noexcept {
  const char* base = nowhere_base.load(std::memory_order_acquire);
  const auto* c = static_cast<const char*>(p);
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  return (base != nullptr && c >= base && c < base + kNowhereBytes) ||
         (address >= kFarFirst && address < kFarEnd);
}

void* scratch_allocate(std::size_t bytes) {
  if (timing_only()) return nowhere(bytes).data();
  void* p = detail::sized_malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void scratch_free(void* p, std::size_t bytes) noexcept {
  if (p == nullptr || is_nowhere(p)) return;
  detail::sized_free(p, bytes == 0 ? 1 : bytes);
}

}  // namespace vmc
