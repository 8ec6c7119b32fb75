// Shared allocations for timing-only jobs (`vmc mpirun --data none --shared-malloc BYTES`,
// docs/mpi.md "Shared allocations"): the __wrap_ functions that vmcc's link options send a
// program's malloc, calloc, realloc and free to. Without the option (the threshold 0) they are
// libc's. With it, a malloc or calloc of at least BYTES returns a block of its own addresses
// whose pages all map one piece of memory (kChunk bytes, mapped again and again), shared by
// every such block of every rank: the job's large buffers then take no memory of their own and
// stay in the host's caches, as SimGrid's SMPI does for its shared mallocs. Their contents
// are undefined (every rank writes the same bytes), calloc's too. A timing-only job moves no
// payload, so vmc reads none of it; a program that reads what it wrote there gets another
// rank's bytes.
//
// The blocks come from one range of address space reserved at the first (kRegion bytes,
// mapped to nothing until used; if the process cannot have that much, half of it, and so on
// down to kMinRegion), so that free knows a shared block by its address without a lock; a
// freed block is kept for the next of its length. A block that cannot be made (the range
// used up, a mapping refused) is libc's instead. The blocks outlive jobs: a program's
// destructors may free theirs after its job.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <map>
#include <mutex>
#include <unordered_map>

#include "mpi/job.hpp"

namespace vmc::mpi {
namespace {

constexpr std::size_t kRegion = std::size_t{1} << 40;  // 1 TiB of addresses
// The least range tried: a process whose address space has no free 1 TiB (ulimit -v; under
// ThreadSanitizer, whose own mappings leave little room, mmap refused it with ENOMEM in about
// a quarter of vmc mpirun's runs) gets a smaller range, not libc's blocks.
constexpr std::size_t kMinRegion = std::size_t{1} << 30;
// The memory every block maps: 16 MiB, so that a block of a few GiB takes few mappings (the
// kernel allows a process about 65,000).
constexpr std::size_t kChunk = std::size_t{16} << 20;

std::atomic<std::size_t> g_threshold{0};  // 0: off
// This job's shared blocks handed out (malloc, calloc, realloc), and their bytes asked for.
std::atomic<std::uint64_t> g_blocks{0}, g_bytes{0};
std::atomic<std::uint64_t> g_refused{0};  // asked for but not made: the program's own instead
std::atomic<char*> g_base{nullptr};       // the reserved range, once made
std::atomic<std::size_t> g_region{0};     // its length (set before g_base)

struct SharedBlocks {
  std::mutex mutex;
  int fd = -1;
  std::size_t used = 0;
  bool failed = false;  // the range or the memory could not be made: libc's blocks from then on
  std::unordered_map<char*, std::size_t> live;    // block -> its mapped length
  std::multimap<std::size_t, char*> freed;         // mapped length -> a block to use again
};

// Never destroyed: a program's destructors may free their blocks at the process's exit.
SharedBlocks& blocks() {
  static SharedBlocks* b = new SharedBlocks;
  return *b;
}

bool is_shared(const void* p) {
  const char* base = g_base.load(std::memory_order_acquire);
  const char* at = static_cast<const char*>(p);
  return base != nullptr && at >= base &&
         at < base + g_region.load(std::memory_order_relaxed);
}

// The range and the memory, at the first block (under the mutex).
bool make_region(SharedBlocks& b) {
  if (g_base.load(std::memory_order_relaxed) != nullptr) return true;
  if (b.failed) return false;
  b.failed = true;  // until both are made
  b.fd = memfd_create("vmc-shared-malloc", MFD_CLOEXEC);
  if (b.fd < 0) return false;
  if (ftruncate(b.fd, static_cast<off_t>(kChunk)) != 0) return false;
  std::size_t region = kRegion;
  void* range = MAP_FAILED;
  for (; region >= kMinRegion; region /= 2) {
    range = mmap(nullptr, region, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range != MAP_FAILED) break;
  }
  if (range == MAP_FAILED) return false;
  b.failed = false;
  g_region.store(region, std::memory_order_relaxed);
  g_base.store(static_cast<char*>(range), std::memory_order_release);
  return true;
}

void* made_block(std::size_t bytes);

// A shared block of `bytes`, counted for shared_malloc_note, or nullptr (counted as refused).
void* shared_block(std::size_t bytes) {
  void* p = made_block(bytes);
  if (p == nullptr) {
    g_refused.fetch_add(1, std::memory_order_relaxed);
  } else {
    g_blocks.fetch_add(1, std::memory_order_relaxed);
    g_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  return p;
}

void* made_block(std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t length = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
  SharedBlocks& b = blocks();
  std::lock_guard lock(b.mutex);
  if (!make_region(b)) return nullptr;
  if (const auto it = b.freed.find(length); it != b.freed.end()) {
    char* at = it->second;
    b.freed.erase(it);
    b.live.emplace(at, length);
    return at;
  }
  if (length > g_region.load(std::memory_order_relaxed) - b.used) return nullptr;
  char* at = g_base.load(std::memory_order_relaxed) + b.used;
  for (std::size_t off = 0; off < length; off += kChunk) {
    const std::size_t part = std::min(kChunk, length - off);
    if (mmap(at + off, part, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, b.fd, 0) ==
        MAP_FAILED) {
      // What was mapped goes back to the reserved range's nothing; the range stays used.
      mmap(at, off, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
      b.used += length;
      return nullptr;
    }
  }
  b.used += length;
  b.live.emplace(at, length);
  return at;
}

std::size_t release_shared(void* p) {
  SharedBlocks& b = blocks();
  std::lock_guard lock(b.mutex);
  const auto it = b.live.find(static_cast<char*>(p));
  if (it == b.live.end()) return 0;  // not a block's start: as libc, undefined; ignored here
  const std::size_t length = it->second;
  b.freed.emplace(length, it->first);
  b.live.erase(it);
  return length;
}

std::size_t shared_length(void* p) {
  SharedBlocks& b = blocks();
  std::lock_guard lock(b.mutex);
  const auto it = b.live.find(static_cast<char*>(p));
  return it == b.live.end() ? 0 : it->second;
}

}  // namespace

void set_shared_malloc(std::size_t threshold) {
  g_threshold.store(threshold, std::memory_order_release);
  g_blocks.store(0, std::memory_order_relaxed);
  g_bytes.store(0, std::memory_order_relaxed);
  g_refused.store(0, std::memory_order_relaxed);
}

std::string shared_malloc_note() {
  const std::size_t threshold = g_threshold.load(std::memory_order_acquire);
  if (threshold == 0) return {};
  const std::uint64_t blocks = g_blocks.load(), bytes = g_bytes.load(), refused = g_refused.load();
  const std::string head = "--shared-malloc " + std::to_string(threshold) + ": ";
  // Blocks the host's address space or mappings refused (a ThreadSanitizer build can leave no
  // room for the range): the program's own, from libc.
  const std::string not_shared =
      refused == 0 ? std::string()
                   : "; " + std::to_string(refused) + (refused == 1 ? " block" : " blocks") +
                         " could not be shared (the host refused the address space or the "
                         "mappings) and are the program's own";
  if (blocks == 0 && refused != 0) return head + "no block was shared" + not_shared;
  if (blocks == 0) {
    return head + "the program asked for no block of " + std::to_string(threshold) +
           " bytes or more: nothing was shared";
  }
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f", static_cast<double>(bytes) / (1 << 20));
  return head + std::to_string(blocks) + (blocks == 1 ? " block" : " blocks") +
         " of the program (" + mib + " MiB asked for) shared one memory of " +
         std::to_string(kChunk >> 20) + " MiB" + not_shared;
}

}  // namespace vmc::mpi

using vmc::mpi::g_threshold;

extern "C" {

void* __wrap_malloc(std::size_t bytes) {
  const std::size_t threshold = g_threshold.load(std::memory_order_acquire);
  if (threshold != 0 && bytes >= threshold) {
    if (void* p = vmc::mpi::shared_block(bytes)) return p;
  }
  return std::malloc(bytes);
}

void* __wrap_calloc(std::size_t count, std::size_t size) {
  const std::size_t threshold = g_threshold.load(std::memory_order_acquire);
  if (threshold != 0 && size != 0 && count <= static_cast<std::size_t>(-1) / size &&
      count * size >= threshold) {
    if (void* p = vmc::mpi::shared_block(count * size)) return p;
  }
  return std::calloc(count, size);
}

void* __wrap_realloc(void* p, std::size_t bytes) {
  if (p == nullptr) return __wrap_malloc(bytes);
  if (!vmc::mpi::is_shared(p)) return std::realloc(p, bytes);
  // A shared block's contents are undefined: a longer one is another block, nothing copied.
  if (bytes <= vmc::mpi::shared_length(p)) return p;
  void* q = __wrap_malloc(bytes);
  if (q != nullptr) vmc::mpi::release_shared(p);
  return q;
}

void __wrap_free(void* p) {
  if (vmc::mpi::is_shared(p)) {
    vmc::mpi::release_shared(p);
  } else {
    std::free(p);
  }
}

}  // extern "C"
