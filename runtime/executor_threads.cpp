// The threads executor (executor.hpp): one OS thread per node, created once and parked on
// its `start` semaphore between runs; a waiting node parks on its `wake` semaphore.
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "runtime/detail.hpp"
#include "runtime/executor.hpp"

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
  explicit ThreadExecutor(MachineImpl& m) : m_(m) {
    threads_.reserve(m.p);
    int r = 0;
    try {
      for (; r < m.p; ++r) {
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
                       "could create only " + std::to_string(r) +
                       "; use the fibers engine (the default on the virtual clock) or a "
                       "machine of fewer nodes (on Linux a process gets about half of "
                       "vm.max_map_count threads: 32,765 by default, as every thread's stack "
                       "takes two memory mappings)");
    }
  }
  ~ThreadExecutor() override { stop(); }

  void start_run() override {
    for (auto& n : m_.nodes) n->start.signal();
  }
  void park(NodeState& n, long timeout_us) override { n.wake.wait(timeout_us); }
  void unpark(NodeState& n) override { n.wake.signal(); }
  void yield(NodeState&) override { std::this_thread::yield(); }
  void reset() override {
    for (auto& n : m_.nodes) {
      while (n->wake.tryWait()) {
      }
    }
  }
  int os_threads() const override { return static_cast<int>(threads_.size()); }

 private:
  void thread_main(int rank) {
    NodeState& self = *m_.nodes[rank];
#ifdef __linux__
    // Real time: the kernel may let a sleep overrun by its timer slack (50 us by default),
    // which would read as model error; ask for the tightest wake-ups it offers.
    if (m_.config.clock == Clock::real_time) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
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
    for (auto& n : m_.nodes) n->start.signal();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  MachineImpl& m_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
};

}  // namespace

std::unique_ptr<Executor> make_thread_executor(MachineImpl& m) {
  return std::make_unique<ThreadExecutor>(m);
}

}  // namespace vmc::detail
