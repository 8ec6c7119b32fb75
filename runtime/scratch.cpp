// Scratch and nowhere memory (scratch.hpp).
#include "runtime/scratch.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

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

char* nowhere_region() {
  std::call_once(nowhere_once, [] {
    void* p = mmap(nullptr, kNowhereBytes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    nowhere_base.store(static_cast<char*>(p), std::memory_order_release);
  });
  return nowhere_base.load(std::memory_order_acquire);
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
  if (bytes > kNowhereBytes / 4) throw std::bad_alloc();
  char* base = nowhere_region();
  const std::size_t size = (bytes + 63) / 64 * 64;
  // Handed out one after the other, from the start again when the region is used up (nothing
  // is ever there). A buffer that would run past the end starts the next lap, so two
  // buffers overlap only when one is still alive a whole lap (64 GiB of buffers) later:
  // live buffers must not overlap, or a call would see its send and receive buffers alias.
  std::size_t next = nowhere_next.load(std::memory_order_relaxed);
  std::size_t at = 0;
  do {
    at = next % kNowhereBytes;
    if (at + size > kNowhereBytes) at = 0;
  } while (!nowhere_next.compare_exchange_weak(next, at + size, std::memory_order_relaxed));
  return {reinterpret_cast<std::byte*>(base + at), bytes};
}

bool is_nowhere(const void* p) noexcept {
  const char* base = nowhere_base.load(std::memory_order_acquire);
  const auto* c = static_cast<const char*>(p);
  return base != nullptr && c >= base && c < base + kNowhereBytes;
}

void* scratch_allocate(std::size_t bytes) {
  if (timing_only()) return nowhere(bytes).data();
  void* p = detail::message_malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void scratch_free(void* p, std::size_t) noexcept {
  if (p == nullptr || is_nowhere(p)) return;
  detail::message_free(p);
}

}  // namespace vmc
