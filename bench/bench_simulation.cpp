// How fast the virtual clock simulates, and the host memory it keeps per message: alltoall
// (pairwise_xor), allreduce (recursive_doubling) and broadcast (binomial) on hypercubes of
// 64, 1,024 and 16,384 nodes (alltoall stops at 1,024: p(p-1) messages per call), timing-only
// (Data::none) and with data (messages of 8 bytes: 2 floats), the default model.
//
// Each case runs enough calls in one Machine::run to simulate about VMC_BENCH_MESSAGES
// messages (default 300,000), and prints
//   messages/s    simulated messages per second of the run's wall time (the machine made
//                 beforehand), and its ratio to the baseline below;
//   bytes/msg     the peak resident memory the run added (VmHWM, reset before it, minus
//                 VmRSS before it) over the messages: what the run keeps grows with what is
//                 in flight and the nodes (their stacks, mailboxes), not with the run's
//                 length, so it falls as the run grows; KiB/node is the same growth over p;
// and the baseline, measured in the same process just before: a single thread's loop of as
// many moodycamel ConcurrentQueue enqueue/dequeue pairs as the case has messages (the cost of
// handing one message over, nothing simulated).
//
//   ./build/bench/bench_simulation              (VMC_BENCH_MESSAGES=N for longer runs,
//                                               VMC_BENCH_CASE=allreduce:1024 for one case,
//                                               VMC_BENCH_DATA=none or 8 for one of the two)
//
// Never part of the tests: a benchmark asserts nothing about time.
#include <chrono>
#include <concurrentqueue/concurrentqueue.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "bench/process_memory.hpp"
#include "collectives/collectives.hpp"
#include "runtime/machine.hpp"
#include "runtime/scratch.hpp"

namespace {

using Clock = std::chrono::steady_clock;

using vmc::bench::status_kib;

// Seconds for `pairs` enqueue/dequeue pairs of one pointer on one thread.
double queue_baseline(std::uint64_t pairs) {
  moodycamel::ConcurrentQueue<void*> q;
  moodycamel::ProducerToken token(q);
  int x = 0;
  void* out = nullptr;
  std::uint64_t taken = 0;
  const auto start = Clock::now();
  for (std::uint64_t i = 0; i < pairs; ++i) {
    q.enqueue(token, &x);
    taken += q.try_dequeue(out) ? 1 : 0;
  }
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  if (taken != pairs) std::fprintf(stderr, "queue baseline lost items\n");
  return s;
}

enum class Op { alltoall, allreduce, broadcast };
const char* name(Op op) {
  return op == Op::alltoall ? "alltoall" : op == Op::allreduce ? "allreduce" : "broadcast";
}

std::uint64_t messages_per_call(Op op, int p) {
  int d = 0;
  while ((1 << d) < p) ++d;
  const auto up = static_cast<std::uint64_t>(p);
  switch (op) {
    case Op::alltoall: return up * (up - 1);
    case Op::allreduce: return up * static_cast<std::uint64_t>(d);
    default: return up - 1;
  }
}

void run_case(Op op, int p, bool data, std::uint64_t target) {
  constexpr std::size_t n = 2;  // floats: 8-byte messages
  const std::uint64_t per_call = messages_per_call(op, p);
  const std::uint64_t calls = std::max<std::uint64_t>(1, target / per_call);
  vmc::Machine m({.topology = vmc::parse_topology("hypercube:" + std::to_string(p)),
                  .trace = false,
                  .data = data ? vmc::Data::full : vmc::Data::none});
  const double base_s = queue_baseline(per_call * calls);
  const long rss_before = status_kib("VmRSS");
  vmc::bench::reset_peak_rss();
  const auto start = Clock::now();
  vmc::RunResult r = m.run([&](vmc::Node& node) {
    const vmc::Comm& c = node.world();
    const std::size_t len = op == Op::alltoall ? n * static_cast<std::size_t>(p) : n;
    std::vector<float> own_x, own_y;
    std::span<float> x, y;
    if (data) {
      own_x.assign(len, 1.0f);
      own_y.assign(op == Op::alltoall ? len : 0, 0.0f);
      x = own_x;
      y = own_y;
    } else {
      x = std::span<float>(reinterpret_cast<float*>(vmc::nowhere(len * sizeof(float)).data()),
                           len);
      y = std::span<float>(reinterpret_cast<float*>(vmc::nowhere(len * sizeof(float)).data()),
                           op == Op::alltoall ? len : 0);
    }
    for (std::uint64_t k = 0; k < calls; ++k) {
      switch (op) {
        case Op::alltoall:
          vmc::alltoall(c, std::span<const float>(x), y, {.algorithm = "pairwise_xor"});
          break;
        case Op::allreduce:
          vmc::allreduce(c, x, vmc::ops::sum<float>(), {.algorithm = "recursive_doubling"});
          break;
        case Op::broadcast:
          vmc::broadcast(c, x, 0, {.algorithm = "binomial"});
          break;
      }
    }
  });
  const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  const long peak_kib = status_kib("VmHWM") - rss_before;
  const auto messages = static_cast<double>(r.stats().messages);
  const double rate = messages / wall_s;
  const double base_rate = static_cast<double>(per_call * calls) / base_s;
  std::printf("| %-9s | %6d | %-4s | %12.0f | %8.0f | %10.5f | %9.0f | %9.1f | %8.1f |\n",
              name(op), p, data ? "8 B" : "none", messages, rate, rate / base_rate,
              base_rate / 1e6,
              messages > 0 ? static_cast<double>(peak_kib) * 1024.0 / messages : 0.0,
              static_cast<double>(peak_kib) / p);
  std::fflush(stdout);
}

}  // namespace

int main() {
  std::uint64_t target = 300'000;
  if (const char* env = std::getenv("VMC_BENCH_MESSAGES")) target = std::strtoull(env, nullptr, 10);
  const char* only = std::getenv("VMC_BENCH_CASE");  // e.g. allreduce:1024
  const char* data_only = std::getenv("VMC_BENCH_DATA");  // none, or 8 (bytes)
  std::printf("| operation | p      | data | messages     | msgs/s   | vs queue   | queue M/s | bytes/msg | KiB/node |\n"
              "|-----------|--------|------|--------------|----------|------------|-----------|-----------|----------|\n");
  for (const bool data : {false, true}) {
    if (data_only != nullptr && std::string(data_only) != (data ? "8" : "none")) continue;
    for (const int p : {64, 1024, 16384}) {
      for (const Op op : {Op::alltoall, Op::allreduce, Op::broadcast}) {
        if (op == Op::alltoall && p > 1024) continue;
        if (only != nullptr && std::string(only) != std::string(name(op)) + ":" + std::to_string(p)) {
          continue;
        }
        run_case(op, p, data, target);
      }
    }
  }
  return 0;
}
