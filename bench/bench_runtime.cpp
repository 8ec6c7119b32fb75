// The runtime's overhead as a ratio against raw threads, measured in one process run.
//
// (a) ping-pong: two virtual nodes bounce a message 1000 times per run, next to two raw
//     std::threads doing the same with std::atomic::wait/notify;
// (b) token ring: one lap of a token around 64 virtual nodes, 20 laps per run, next to 64
//     raw threads passing a token with atomic wait/notify.
// Each benchmark reports time per hop; main() prints vmc/raw ratios at the end.
//
//   ./build/bench/bench_runtime            (add --benchmark_repetitions=5 for medians)
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "runtime/machine.hpp"

namespace {

constexpr int kPingPongs = 1000;
constexpr int kRingNodes = 64;
constexpr int kLaps = 20;

void BM_vmc_pingpong(benchmark::State& state) {
  vmc::Machine m({.nodes = 2});
  for (auto _ : state) {
    m.run([](vmc::Node& node) {
      const vmc::Comm& c = node.world();
      int x = 0;
      for (int i = 0; i < kPingPongs; ++i) {
        if (c.rank() == 0) {
          c.send(std::span<const int>(&x, 1), 1, 0);
          c.recv(std::span<int>(&x, 1), 1, 0);
        } else {
          c.recv(std::span<int>(&x, 1), 0, 0);
          ++x;
          c.send(std::span<const int>(&x, 1), 0, 0);
        }
      }
    });
  }
  state.counters["per_hop"] = benchmark::Counter(
      double(state.iterations()) * 2 * kPingPongs,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_vmc_pingpong)->UseRealTime()->Unit(benchmark::kMillisecond);

// A one-slot mailbox with atomic wait/notify: the least a thread hand-off can cost.
struct Slot {
  std::atomic<int> full{0};
  int value = 0;
  void put(int v) {
    value = v;
    full.store(1, std::memory_order_release);
    full.notify_one();
  }
  int take() {
    full.wait(0, std::memory_order_acquire);
    int v = value;
    full.store(0, std::memory_order_relaxed);
    return v;
  }
};

void BM_raw_pingpong(benchmark::State& state) {
  for (auto _ : state) {
    Slot to_b, to_a;
    std::thread b([&] {
      for (int i = 0; i < kPingPongs; ++i) to_a.put(to_b.take() + 1);
    });
    int x = 0;
    for (int i = 0; i < kPingPongs; ++i) {
      to_b.put(x);
      x = to_a.take();
    }
    b.join();
    benchmark::DoNotOptimize(x);
  }
  state.counters["per_hop"] = benchmark::Counter(
      double(state.iterations()) * 2 * kPingPongs,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_raw_pingpong)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_vmc_ring64(benchmark::State& state) {
  vmc::Machine m({.nodes = kRingNodes});
  for (auto _ : state) {
    m.run([](vmc::Node& node) {
      const vmc::Comm& c = node.world();
      const int me = c.rank(), p = c.size();
      int token = 0;
      for (int lap = 0; lap < kLaps; ++lap) {
        if (me == 0) {
          c.send(std::span<const int>(&token, 1), 1, 0);
          c.recv(std::span<int>(&token, 1), p - 1, 0);
        } else {
          c.recv(std::span<int>(&token, 1), me - 1, 0);
          ++token;
          c.send(std::span<const int>(&token, 1), (me + 1) % p, 0);
        }
      }
    });
  }
  state.counters["per_hop"] = benchmark::Counter(
      double(state.iterations()) * kLaps * kRingNodes,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_vmc_ring64)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_raw_ring64(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<Slot> slots(kRingNodes);
    std::vector<std::thread> threads;
    for (int me = 1; me < kRingNodes; ++me) {
      threads.emplace_back([&, me] {
        for (int lap = 0; lap < kLaps; ++lap) {
          slots[(me + 1) % kRingNodes].put(slots[me].take() + 1);
        }
      });
    }
    int token = 0;
    for (int lap = 0; lap < kLaps; ++lap) {
      slots[1].put(token);
      token = slots[0].take();
    }
    for (auto& t : threads) t.join();
    benchmark::DoNotOptimize(token);
  }
  state.counters["per_hop"] = benchmark::Counter(
      double(state.iterations()) * kLaps * kRingNodes,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_raw_ring64)->UseRealTime()->Unit(benchmark::kMillisecond);

// Collects each benchmark's per-hop time so main() can print the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> per_hop;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      auto it = r.counters.find("per_hop");
      // A single run, or the median of repetitions (--benchmark_repetitions=N).
      const bool usable = r.run_type == Run::RT_Iteration ||
                          (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median");
      if (it != r.counters.end() && usable) {
        std::string name = r.benchmark_name();
        per_hop[name.substr(0, name.find('/'))] = it->second.value;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  auto ratio = [&](const char* what, const char* vmc_name, const char* raw_name) {
    auto v = reporter.per_hop.find(vmc_name), r = reporter.per_hop.find(raw_name);
    if (v == reporter.per_hop.end() || r == reporter.per_hop.end()) return;
    std::printf("%-10s vmc %.2f us/hop, raw threads %.2f us/hop: ratio %.2f\n", what,
                v->second * 1e6, r->second * 1e6, v->second / r->second);
  };
  std::printf("\nruntime overhead (vmc / raw std::thread + atomic wait/notify):\n");
  ratio("ping-pong", "BM_vmc_pingpong", "BM_raw_pingpong");
  ratio("ring of 64", "BM_vmc_ring64", "BM_raw_ring64");
  benchmark::Shutdown();
  return 0;
}
