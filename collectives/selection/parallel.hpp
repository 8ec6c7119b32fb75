// Running independent work side by side (selection's simulations of its candidates, a
// hybrid family's simulations of its members).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#include <tbb/parallel_for.h>

namespace vmc::internal {

// fn(0) .. fn(count - 1) side by side: on oneTBB's workers, or under ThreadSanitizer on
// threads of its own (ThreadSanitizer cannot see the synchronisation inside the
// uninstrumented oneTBB library and would report its work stealing as races).
template <class Fn>
void parallel_each(std::size_t count, const Fn& fn) {
#if defined(__SANITIZE_THREAD__)
  std::atomic<std::size_t> next{0};
  std::mutex failed_mutex;
  std::exception_ptr failed;  // the first call that threw, rethrown here as oneTBB would
  auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard lock(failed_mutex);
        if (!failed) failed = std::current_exception();
      }
    }
  };
  const std::size_t helpers =
      std::min<std::size_t>(count, std::max(1u, std::thread::hardware_concurrency())) - 1;
  {
    std::vector<std::jthread> threads;
    for (std::size_t t = 0; t < helpers && count > 0; ++t) threads.emplace_back(work);
    work();
  }  // joined
  if (failed) std::rethrow_exception(failed);
#else
  tbb::parallel_for(std::size_t{0}, count, fn);
#endif
}

}  // namespace vmc::internal
