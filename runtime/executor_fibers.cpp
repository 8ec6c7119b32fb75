// The fibers executor (executor.hpp): every node a Boost.Context fiber pinned to one of a
// few worker threads (node r to worker r mod W).
//
// A worker waits for a run, queues its nodes, and then resumes runnable fibers from its queue
// until all of them have returned. A node's fiber is made when the node is first resumed, on
// a stack the worker takes from its free stacks (the most recently freed first), and its
// stack goes back when the fiber returns: a node that returns without waiting lends its stack
// to the next, so a run touches as many stacks as it has nodes alive at once (two for a
// machine whose nodes do nothing; one per node when every node waits, as in an allreduce).
// A node parks by switching back to its worker; unpark puts it back on its worker's queue.
// A node's state is running, notified (a wake came while it ran: its next park returns at
// once) or parked (switched out, waiting for a wake). Only a node's own worker resumes it,
// so a fiber that has marked itself parked but not yet switched out is never resumed early.
//
// Stacks: one anonymous mapping holds a stack per node, so a machine of 65,536 nodes takes
// one memory mapping, not 65,536 (the kernel allows about 65,000 per process). Pages are
// committed as a stack first touches them, and stay for the machine's life. Machines of up to 16,384 nodes get a guard
// page under every stack (two mappings each), so an overflow faults instead of corrupting
// the neighbouring node's stack.
//
// errno: every fiber of a worker runs on that worker's thread and so shares its errno. A node
// keeps its own: switch_to_worker saves errno before the node switches out and restores it
// when the node is resumed, and a node's fiber starts with errno 0, as a process does. (A
// node's other thread-local variables are its worker's: a node never moves between workers,
// so a program loaded once per node sees its own copies of them.)
//
// Sanitizers: the switches are announced to AddressSanitizer and ThreadSanitizer, which
// otherwise lose track of stacks and happens-before across a context switch.
#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/executor.hpp"
#include "runtime/local_nodes.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define VMC_ASAN_FIBERS 1
extern "C" void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom,
                                               std::size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                                std::size_t* size_old);
extern "C" void __asan_unpoison_memory_region(void const volatile* addr, std::size_t size);
#endif
#if defined(__SANITIZE_THREAD__)
#define VMC_TSAN_FIBERS 1
extern "C" void* __tsan_get_current_fiber();
extern "C" void* __tsan_create_fiber(unsigned flags);
extern "C" void __tsan_destroy_fiber(void* fiber);
extern "C" void __tsan_switch_to_fiber(void* fiber, unsigned flags);
#endif

namespace vmc::detail {

namespace {

namespace ctx = boost::context;

// The most nodes whose stacks get guard pages (each guard splits the mapping in two).
constexpr int kMostGuardedStacks = 16384;

// Every node's stack in one mapping (see the header comment).
class StackSlab {
 public:
  StackSlab(int count, std::size_t bytes) : count_(count) {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    usable_ = (bytes + page_ - 1) / page_ * page_;
    guard_ = count <= kMostGuardedStacks ? page_ : 0;
    slot_ = usable_ + guard_;
    void* p = mmap(nullptr, slot_ * count_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      throw UsageError("Machine: cannot reserve " + std::to_string(slot_ * count_ >> 20) +
                       " MiB of address space for " + std::to_string(count_) +
                       " fiber stacks of " + std::to_string(usable_ >> 10) +
                       " KiB; use fewer nodes or a smaller stack_bytes");
    }
    base_ = static_cast<char*>(p);
    clear_shadow();
    for (int i = 0; guard_ != 0 && i < count_; ++i) {
      mprotect(base_ + i * slot_, guard_, PROT_NONE);  // best effort: a guard is a safeguard
    }
  }
  ~StackSlab() {
    clear_shadow();
    munmap(base_, slot_ * count_);
  }
  StackSlab(const StackSlab&) = delete;
  StackSlab& operator=(const StackSlab&) = delete;

  // Stack i as Boost.Context describes one: sp is its top (stacks grow down).
  ctx::stack_context stack(int i) const {
    ctx::stack_context sc;
    sc.size = usable_;
    sc.sp = base_ + (i + 1) * slot_;
    return sc;
  }

 private:
  // AddressSanitizer keeps the poison of a frame that never returned (Boost.Context's fiber
  // entry frame never does) after munmap, and its mmap does not clear it (GCC 12), so a slab
  // mapped where an older one was would start with stale poison in the middle of a stack and
  // report an overflow that is not there. The slab clears its shadow when it is made and
  // when it goes.
  void clear_shadow() {
#if VMC_ASAN_FIBERS
    __asan_unpoison_memory_region(base_, slot_ * count_);
#endif
  }

  int count_;
  std::size_t page_ = 4096, usable_ = 0, guard_ = 0, slot_ = 0;
  char* base_ = nullptr;
};

// A Boost.Context stack allocator handing out one slot of the slab.
struct SlabStack {
  ctx::stack_context sc;
  ctx::stack_context allocate() { return sc; }
  void deallocate(ctx::stack_context&) noexcept {}
};

enum : int { kRunning = 0, kNotified = 1, kParked = 2 };

struct alignas(64) FiberSlot {
  ctx::fiber fiber;   // the node, while it is switched out
  ctx::fiber worker;  // its worker, while the node runs
  std::atomic<int> state{kRunning};
  bool done = true;
  bool started = false;  // its fiber has been made in this run
  int worker_index = 0;
  int stack_slot = -1;   // the slab's stack it runs on, from its start until it returns
  ctx::stack_context stack;
#if VMC_ASAN_FIBERS
  void* fake_stack = nullptr;
#endif
#if VMC_TSAN_FIBERS
  void* tsan = nullptr;
#endif
};

// How many times an idle worker looks at its queue before it sleeps in the kernel. There
// is one worker per core, so a spinning worker takes no core a runnable node needs; a
// hand-off between nodes on two workers then costs a cache-line transfer, not a 25-35 us
// wake-up of a halted core. Chosen with bench_collectives (8-byte allreduce on 2, 16 and 64
// nodes); VMC_WORKER_SPINS=N overrides it, to measure again. A spinning worker yields its
// core every kYieldEvery looks, so a runnable thread (another worker, another process) is
// not kept waiting by it, and a busy host gets no spinning at all (host_busy).
constexpr int kYieldEvery = 256;

int worker_spins() {
  const char* env = std::getenv("VMC_WORKER_SPINS");
  if (env != nullptr && *env != '\0') return std::max(0, std::atoi(env));
  return 20000;
}

// Whether other work holds the host's cores: the one-minute load average, less the `ours`
// threads this machine may be spinning on, is at least the number of cores. Spinning then
// only takes time slices from runnable threads, ours among them.
bool host_busy(int ours) {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (f == nullptr) return false;
  double load = 0;
  const bool read = std::fscanf(f, "%lf", &load) == 1;
  std::fclose(f);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return read && load - ours >= cores;
}

struct alignas(64) Worker {
  std::thread thread;
  std::atomic<int> running{-1};  // the node it runs now (for reports: running_now), or -1
  moodycamel::ConcurrentQueue<int> queue;       // runnable nodes of this worker
  moodycamel::LightweightSemaphore ready;  // counts pushes to `queue`
  Worker() : ready(0, 0) {}  // the worker spins itself (worker_main), on its queue
  moodycamel::LightweightSemaphore start{0, 64};
  std::vector<int> nodes;                       // the nodes pinned to this worker
  // The slab's stacks this worker lends to its fibers (as many as it has nodes), the next to
  // lend last: the stack freed most recently, whose pages are warm.
  std::vector<int> free_stacks;
#if VMC_ASAN_FIBERS
  void* fake_stack = nullptr;
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
#endif
#if VMC_TSAN_FIBERS
  void* tsan = nullptr;
#endif
};

class FiberExecutor final : public Executor {
 public:
  FiberExecutor(LocalNodes& m, int workers, std::size_t stack_bytes)
      : m_(m),
        lo_(m.lo),
        warms_(m.hi - m.lo >= kWarmFrom),
        slab_(std::max(1, m.hi - m.lo), stack_bytes),
        slots_(m.hi - m.lo) {
    for (int w = 0; w < workers; ++w) workers_.emplace_back();
    for (int r = m.lo; r < m.hi; ++r) {
      const int i = r - lo_;
      slots_[i].worker_index = i % workers;
      workers_[i % workers].nodes.push_back(r);
#if VMC_TSAN_FIBERS
      slots_[i].tsan = __tsan_create_fiber(0);
#endif
    }
    for (Worker& k : workers_) {
      // Its nodes' slots, the lowest lent first.
      for (auto it = k.nodes.rbegin(); it != k.nodes.rend(); ++it) {
        k.free_stacks.push_back(*it - lo_);
      }
    }
    int w = 0;
    try {
      for (; w < workers; ++w) workers_[w].thread = std::thread([this, w] { worker_main(w); });
    } catch (const std::system_error& e) {
      stop();  // joins the workers made so far
      throw UsageError(std::string("Machine: the system refused a worker thread (") + e.what() +
                       ")");
    }
  }
  ~FiberExecutor() override {
    stop();
#if VMC_TSAN_FIBERS
    for (FiberSlot& s : slots_) __tsan_destroy_fiber(s.tsan);
#endif
  }

  void start_run() override {
    // On an oversubscribed host an idle worker sleeps at once. The host's load is looked at
    // again at most every kLoadRecheck, not at every run (a run can take microseconds).
    const auto now = std::chrono::steady_clock::now();
    if (now - load_checked_ >= kLoadRecheck) {
      load_checked_ = now;
      const bool busy = m_.oversubscribed || (workers_.size() > 1 &&
                                              host_busy(static_cast<int>(workers_.size())));
      spins_.store(busy ? 0 : spin_budget_, std::memory_order_relaxed);
    }
    for (Worker& k : workers_) k.start.signal();
  }

  void park(NodeState& n, long) override {
    FiberSlot& s = slots_[n.rank - lo_];
    int st = kRunning;
    if (!s.state.compare_exchange_strong(st, kParked, std::memory_order_acq_rel)) {
      s.state.store(kRunning, std::memory_order_release);  // consume the wake that came
      return;
    }
    switch_to_worker(s);
  }

  void unpark(NodeState& n) override {
    FiberSlot& s = slots_[n.rank - lo_];
    int st = s.state.load(std::memory_order_acquire);
    for (;;) {
      if (st == kNotified) return;
      const int next = st == kParked ? kRunning : kNotified;
      if (s.state.compare_exchange_weak(st, next, std::memory_order_acq_rel)) break;
    }
    if (st == kParked) make_runnable(n.rank);
  }

  void yield(NodeState& n) override {
    FiberSlot& s = slots_[n.rank - lo_];
    make_runnable(n.rank);
    switch_to_worker(s);
  }

  // A fiber's sleep would stall its whole worker: it lets the others run instead.
  void pause(NodeState& n, double) override { yield(n); }

  void reset() override {
    for (FiberSlot& s : slots_) s.state.store(kRunning, std::memory_order_relaxed);
  }

  int os_threads() const override { return static_cast<int>(workers_.size()); }
  bool running_now(const NodeState& n) const override {
    for (const auto& k : workers_) {
      if (k.running.load(std::memory_order_relaxed) == n.rank) return true;
    }
    return false;
  }

 private:
  void make_runnable(int rank) {
    Worker& k = workers_[slots_[rank - lo_].worker_index];
    k.queue.enqueue(rank);
    k.ready.signal();
  }

  // From inside node s's fiber: back to its worker until resumed.
  void switch_to_worker(FiberSlot& s) {
    NodeState* self = current_node;
    const int saved_errno = errno;
    [[maybe_unused]] Worker& k = workers_[s.worker_index];
#if VMC_ASAN_FIBERS
    __sanitizer_start_switch_fiber(&s.fake_stack, k.stack_bottom, k.stack_size);
#endif
#if VMC_TSAN_FIBERS
    __tsan_switch_to_fiber(k.tsan, 0);
#endif
    s.worker = std::move(s.worker).resume();
#if VMC_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(s.fake_stack, &k.stack_bottom, &k.stack_size);
#endif
    current_node = self;
    errno = saved_errno;
  }

  // Asks for the memory node `rank`'s resumption reads first, while the node before it runs
  // (worker_main): the top of its fiber's stack (the registers the switch restores, the frames
  // it returns into) and the first line of its state (its mailbox, its log's head). On a large
  // machine a node is resumed once in a long while and all of it has left the cache meanwhile;
  // asked for a node ahead, these misses overlap that node's run instead of stalling the
  // switch. Hints only: nothing is read but the slot. Where it pays: machines of kWarmFrom
  // nodes and more (their stacks' tops outgrow a core's level 2 cache; below, warm costs about
  // 50 instructions a resume for lines that are there), the kWarmStack bytes from the saved
  // stack pointer up (allreduce 16,384 on one worker: 512 to 1,024 bytes took 17-20% less CPU
  // than none; 4,096 about as much as none, as that many prefetches stall on the core's
  // outstanding misses; docs/performance.md, the eighth round).
  static constexpr int kWarmFrom = 1024;
  static constexpr std::ptrdiff_t kWarmStack = 1024;
  void warm(int rank) const {
    const FiberSlot& s = slots_[rank - lo_];
    static_assert(sizeof(ctx::fiber) == sizeof(void*));  // its saved stack pointer, or null
    const char* sp = nullptr;
    std::memcpy(&sp, &s.fiber, sizeof sp);
    if (sp != nullptr) {
      const char* top = static_cast<const char*>(s.stack.sp);
      const char* end = std::min(top, sp + kWarmStack);
      for (const char* line = sp; line < end; line += 64) ask_for(line);
    }
    ask_for(m_.nodes[rank].get());
  }
  // A prefetch that stays: GCC 12 at -O2 dropped every __builtin_prefetch of warm (its dead
  // code elimination took them for code without effect).
  static void ask_for(const void* p) {
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
    __builtin_prefetch(p);
#endif
  }

  // From the worker: runs node `rank` until it parks, yields or returns.
  void resume([[maybe_unused]] Worker& k, int rank) {
    FiberSlot& s = slots_[rank - lo_];
#if VMC_ASAN_FIBERS
    __sanitizer_start_switch_fiber(&k.fake_stack,
                                   static_cast<char*>(s.stack.sp) - s.stack.size, s.stack.size);
#endif
#if VMC_TSAN_FIBERS
    __tsan_switch_to_fiber(s.tsan, 0);
#endif
    current_node = m_.nodes[rank].get();
    k.running.store(rank, std::memory_order_relaxed);
    s.fiber = std::move(s.fiber).resume();
    k.running.store(-1, std::memory_order_relaxed);
    current_node = nullptr;
#if VMC_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(k.fake_stack, nullptr, nullptr);
#endif
  }

  ctx::fiber make_fiber(int rank) {
    return ctx::fiber(std::allocator_arg, SlabStack{slots_[rank - lo_].stack},
                      [this, rank](ctx::fiber&& worker) {
                        FiberSlot& s = slots_[rank - lo_];
                        s.worker = std::move(worker);
                        errno = 0;
#if VMC_ASAN_FIBERS
                        Worker& k = workers_[s.worker_index];
                        __sanitizer_finish_switch_fiber(nullptr, &k.stack_bottom,
                                                        &k.stack_size);
#endif
                        m_.run_node(rank);
                        s.done = true;
#if VMC_ASAN_FIBERS
                        __sanitizer_start_switch_fiber(nullptr, k.stack_bottom, k.stack_size);
#endif
#if VMC_TSAN_FIBERS
                        __tsan_switch_to_fiber(workers_[s.worker_index].tsan, 0);
#endif
                        return std::move(s.worker);
                      });
  }

  void worker_main(int w) {
    Worker& k = workers_[w];
    give_thread_a_signal_stack();
#if VMC_TSAN_FIBERS
    k.tsan = __tsan_get_current_fiber();
#endif
    for (;;) {
      while (!k.start.wait(1'000'000)) {
      }
      if (stopping_.load(std::memory_order_acquire)) return;
      for (int r : k.nodes) {
        slots_[r - lo_].done = false;
        slots_[r - lo_].started = false;
      }
      k.queue.enqueue_bulk(k.nodes.begin(), k.nodes.size());
      std::size_t live = k.nodes.size();
      // The node to resume after r, taken from the queue one ahead (the order is the queue's)
      // so that its memory is asked for while r runs (warm); -1: none taken.
      int next = -1;
      while (live > 0) {
        int r = std::exchange(next, -1);
        if (r < 0 && !k.queue.try_dequeue(r)) {
          idle(k);
          continue;
        }
        if (warms_ && k.queue.try_dequeue(next)) warm(next);
        FiberSlot& s = slots_[r - lo_];
        if (!s.started) {
          // A node is queued once before it starts (a wake before then is kept in its state).
          s.started = true;
          s.stack_slot = k.free_stacks.back();
          k.free_stacks.pop_back();
          s.stack = slab_.stack(s.stack_slot);
          NodeState& n = *m_.nodes[r];
          n.stack_low = static_cast<const char*>(s.stack.sp) - s.stack.size;
          n.stack_size = s.stack.size;
          s.fiber = make_fiber(r);
        }
        resume(k, r);
        if (s.done) {
          --live;
          // The fiber has left its stack (Boost.Context gives it back on return).
          k.free_stacks.push_back(std::exchange(s.stack_slot, -1));
        }
      }
      while (k.ready.tryWait()) {
      }
    }
  }

  // An idle worker: does the machine's idle work if there is some (LocalNodes::idle_work), else
// looks at its queue up to spins_ times, yielding its core every
  // kYieldEvery looks, then sleeps on its semaphore (bounded: the queue is looked at again
  // either way, the semaphore being a hint).
  void idle(Worker& k) {
    // Work beside the nodes first (the virtual clock's simulation, while another worker runs
    // the nodes that feed it).
    if (m_.idle_work && m_.idle_work()) return;
    const int spins = spins_.load(std::memory_order_relaxed);
    for (int i = 1; i <= spins; ++i) {
      if (k.queue.size_approx() != 0) return;
      if (i % kYieldEvery == 0) std::this_thread::yield();
    }
    k.ready.wait(10'000);
  }

  void stop() {
    stopping_.store(true, std::memory_order_release);
    for (Worker& k : workers_) k.start.signal();
    for (Worker& k : workers_) {
      if (k.thread.joinable()) k.thread.join();
    }
  }

  LocalNodes& m_;
  const int lo_;  // the first node of this process (the slots are its nodes')
  const bool warms_;  // its workers warm the node they resume next (warm)
  StackSlab slab_;
  std::vector<FiberSlot> slots_;
  std::deque<Worker> workers_;  // a deque: a Worker does not move
  std::atomic<bool> stopping_{false};
  static constexpr std::chrono::milliseconds kLoadRecheck{100};
  const int spin_budget_ = worker_spins();
  std::atomic<int> spins_{0};  // this run's (start_run)
  std::chrono::steady_clock::time_point load_checked_{};
};

}  // namespace

std::unique_ptr<Executor> make_fiber_executor(LocalNodes& nodes, int workers,
                                              std::size_t stack_bytes) {
  return std::make_unique<FiberExecutor>(nodes, workers, stack_bytes);
}

}  // namespace vmc::detail
