// The threads executor (executor.hpp): one OS thread per node, created once and parked on
// its `start` semaphore between runs; a waiting node parks on its `wake` semaphore.
//
// Spinning: a node about to wait first spins on its semaphore, but only
// while the node threads awake do not outnumber the cores; otherwise it sleeps at once, so
// that a spinning node never holds a core that a runnable node needs. A hand-off between
// two spinning nodes costs a cache-line transfer instead of a kernel wake-up of a halted
// core (25-35 us on the 2-core machines vmc is tested on). The budget, kSpins rounds of a
// pause, was chosen with bench_collectives (8-byte allreduce on 2, 16 and 64 nodes) and
// bench_runtime (a ring of 64 passing a token); VMC_SPINS=N overrides it, to measure again.
// On 2 cores: no spinning, 16.8 / 327 / 1,782 us per allreduce and 15.4 us per ring hop;
// 100 rounds, 13.1 us at 2 nodes (too short to bridge a hand-off); 200, 5.1 / 329 / 1,815
// and 19.8; 2,000, 5.0 / 335 / 1,954 and 54; 20,000, 5.8 / 417 / 2,050 and 83.
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "runtime/executor.hpp"
#include "runtime/local_nodes.hpp"

#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace vmc::detail {

namespace {
// Testing: the node whose thread creation fails as if the system refused it (-1: none).
std::atomic<int> refused_thread_node{-1};
}  // namespace

void refuse_thread_creation_at(int node) { refused_thread_node.store(node); }

namespace {

class ThreadExecutor final : public Executor {
 public:
  ThreadExecutor(LocalNodes& m, bool tight_timers) : m_(m), tight_timers_(tight_timers) {
    threads_.reserve(m.hi - m.lo);
    int r = m.lo;
    try {
      for (; r < m.hi; ++r) {
        if (r == refused_thread_node.load()) {
          throw std::system_error(
              std::make_error_code(std::errc::resource_unavailable_try_again),
              "thread creation refused (test)");
        }
        threads_.emplace_back([this, r] { thread_main(r); });
      }
    } catch (const std::system_error& e) {
      // Release and join the node threads made so far, so nothing outlives the failure.
      stop();
      throw UsageError("Machine: the system refused to create the thread of node " +
                       std::to_string(r) + " of " + std::to_string(m.p) + " (" + e.what() +
                       "): under the threads engine every node is a thread, and this process "
                       "could create only " + std::to_string(r - m.lo) +
                       "; use the fibers engine (the default on the virtual clock) or a "
                       "machine of fewer nodes (on Linux a process gets about half of "
                       "vm.max_map_count threads: 32,765 by default, as every thread's stack "
                       "takes two memory mappings)");
    }
  }
  ~ThreadExecutor() override { stop(); }

  void start_run() override {
    for (auto& n : m_.local()) n->start.signal();
  }
  void park(NodeState& n, long timeout_us) override {
    if (m_.running.load(std::memory_order_relaxed) - asleep_.load(std::memory_order_relaxed) <=
        cores_) {
      for (int i = 0; i < spins_; ++i) {
        if (n.wake.tryWait()) return;
        cpu_relax();
      }
    }
    // Counted asleep until woken: the waker uncounts it at once, so a node woken but not yet
    // scheduled counts as runnable and keeps the others from spinning.
    sleeping_[n.rank].store(1, std::memory_order_relaxed);
    asleep_.fetch_add(1, std::memory_order_relaxed);
    n.wake.wait(timeout_us);
    if (sleeping_[n.rank].exchange(0, std::memory_order_relaxed) != 0) {
      asleep_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  void unpark(NodeState& n) override {
    if (sleeping_[n.rank].load(std::memory_order_relaxed) != 0 &&
        sleeping_[n.rank].exchange(0, std::memory_order_relaxed) != 0) {
      asleep_.fetch_sub(1, std::memory_order_relaxed);
    }
    n.wake.signal();
  }
  void yield(NodeState&) override { std::this_thread::yield(); }
  void pause(NodeState&, double seconds) override {
    if (seconds > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    } else {
      std::this_thread::yield();
    }
  }
  void reset() override {
    for (auto& n : m_.local()) {
      while (n->wake.tryWait()) {
      }
    }
  }
  int os_threads() const override { return static_cast<int>(threads_.size()); }

 private:
  void thread_main(int rank) {
    NodeState& self = *m_.nodes[rank];
    give_thread_a_signal_stack();
    {
      // The thread's stack, for a crash handler that tells an overflow (this_node_stack).
      pthread_attr_t attr;
      if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void* low = nullptr;
        std::size_t size = 0;
        if (pthread_attr_getstack(&attr, &low, &size) == 0) {
          self.stack_low = static_cast<const char*>(low);
          self.stack_size = size;
        }
        pthread_attr_destroy(&attr);
      }
    }
#ifdef __linux__
    // Real time: the kernel may let a sleep overrun by its timer slack (50 us by default),
    // which would read as model error; ask for the tightest wake-ups it offers.
    if (tight_timers_) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
    for (;;) {
      while (!self.start.wait(1'000'000)) {
      }
      if (stopping_.load(std::memory_order_acquire)) return;
      current_node = &self;
      m_.run_node(rank);
      current_node = nullptr;
    }
  }
  void stop() {
    stopping_.store(true, std::memory_order_release);
    for (auto& n : m_.local()) n->start.signal();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  static int spin_budget() {
    const char* env = std::getenv("VMC_SPINS");
    if (env != nullptr && *env != '\0') return std::max(0, std::atoi(env));
    return kSpins;
  }

  static constexpr int kSpins = 300;

  LocalNodes& m_;
  const bool tight_timers_;
  const int cores_ = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int spins_ = m_.oversubscribed ? 0 : spin_budget();
  std::atomic<int> asleep_{0};  // node threads asleep in park and not yet woken
  std::unique_ptr<std::atomic<char>[]> sleeping_{new std::atomic<char>[m_.p]()};
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
};

}  // namespace

std::unique_ptr<Executor> make_thread_executor(LocalNodes& nodes, bool tight_timers) {
  return std::make_unique<ThreadExecutor>(nodes, tight_timers);
}

}  // namespace vmc::detail
