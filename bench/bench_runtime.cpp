// The runtime's overhead as a ratio against raw threads, measured in one process run.
//
// (a) ping-pong: two virtual nodes bounce a message 1000 times per run, next to two raw
//     std::threads doing the same with std::atomic::wait/notify;
// (b) token ring: one lap of a token around 64 virtual nodes, 20 laps per run, next to 64
//     raw threads passing a token with atomic wait/notify.
// (c) a large machine: making, running and ending a machine of 65,536 nodes whose nodes do
//     nothing, and one whose nodes run a binomial broadcast of 256 floats in timing-only
//     mode (--data none), next to making, running to their end and freeing 65,536 bare
//     Boost.Context fibers, each on its own 256 KiB stack in one mapping (the layout of a
//     fiber per node without a runtime; vmc's stacks are 256 KiB too).
// Each benchmark reports time per hop or per node; main() prints vmc/raw ratios at the end,
// and the resident memory a large machine holds after its run, per node.
//
//   ./build/bench/bench_runtime            (add --benchmark_repetitions=5 for medians)
//   ./build/bench/bench_runtime --benchmark_filter=65536     (the large machine only)
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "collectives/broadcast/broadcast.hpp"
#include "runtime/machine.hpp"
#include "topology/topology.hpp"

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

// --- (c) a large machine -------------------------------------------------------------------

constexpr int kLargeNodes = 65536;

// This process's resident memory in bytes (VmRSS), once the allocator has given back to
// the system what it holds free (so that what an earlier iteration freed is not counted).
double resident_bytes() {
  malloc_trim(0);
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) * 1024.0;
  }
  return 0;
}

// Makes a machine of kLargeNodes nodes, runs `body` once on it and ends it, per iteration;
// reports the time per node and the most resident memory the machine held after its run.
template <class Body>
void large_machine(benchmark::State& state, Body body) {
  double held = 0;
  for (auto _ : state) {
    const double before = resident_bytes();
    vmc::Machine m({.topology = vmc::parse_topology("hypercube:" + std::to_string(kLargeNodes)),
                    .data = vmc::Data::none});
    m.run(body);
    held = std::max(held, resident_bytes() - before);
  }
  state.counters["per_node"] = benchmark::Counter(
      double(state.iterations()) * kLargeNodes,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["bytes_per_node"] = held / kLargeNodes;
}

void BM_vmc_empty65536(benchmark::State& state) {
  large_machine(state, [](vmc::Node&) {});
}
BENCHMARK(BM_vmc_empty65536)->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_vmc_broadcast65536(benchmark::State& state) {
  large_machine(state, [](vmc::Node& node) {
    std::vector<float> x(256);
    vmc::broadcast(node.world(), std::span(x), 0, {.algorithm = "binomial"});
  });
}
BENCHMARK(BM_vmc_broadcast65536)->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(3);

// A Boost.Context stack allocator handing out one given stack.
struct GivenStack {
  boost::context::stack_context sc;
  boost::context::stack_context allocate() { return sc; }
  void deallocate(boost::context::stack_context&) noexcept {}
};

void BM_raw_fibers65536(benchmark::State& state) {
  constexpr std::size_t kStack = 256 << 10;
  double held = 0;
  for (auto _ : state) {
    const double before = resident_bytes();
    void* p = mmap(nullptr, kStack * kLargeNodes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      return;
    }
    char* slab = static_cast<char*>(p);
    std::vector<boost::context::fiber> fibers;
    fibers.reserve(kLargeNodes);
    int ran = 0;
    for (int i = 0; i < kLargeNodes; ++i) {
      boost::context::stack_context sc;
      sc.size = kStack;
      sc.sp = slab + (i + 1) * kStack;
      fibers.emplace_back(std::allocator_arg, GivenStack{sc},
                          [&ran](boost::context::fiber&& back) {
                            ++ran;
                            return std::move(back);
                          });
    }
    for (auto& f : fibers) f = std::move(f).resume();
    held = std::max(held, resident_bytes() - before);
    fibers.clear();
    munmap(slab, kStack * kLargeNodes);
    benchmark::DoNotOptimize(ran);
  }
  state.counters["per_node"] = benchmark::Counter(
      double(state.iterations()) * kLargeNodes,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["bytes_per_node"] = held / kLargeNodes;
}
BENCHMARK(BM_raw_fibers65536)->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(3);

// Collects each benchmark's per-hop (or per-node) time so main() can print the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> per_hop;  // or per node
  std::map<std::string, double> bytes_per_node;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      // A single run, or the median of repetitions (--benchmark_repetitions=N).
      const bool usable = r.run_type == Run::RT_Iteration ||
                          (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median");
      if (!usable) continue;
      std::string name = r.benchmark_name();
      name = name.substr(0, name.find('/'));
      for (const char* counter : {"per_hop", "per_node"}) {
        auto it = r.counters.find(counter);
        if (it != r.counters.end()) per_hop[name] = it->second.value;
      }
      auto bytes = r.counters.find("bytes_per_node");
      if (bytes != r.counters.end()) bytes_per_node[name] = bytes->second.value;
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
  auto large = [&](const char* what, const char* vmc_name) {
    auto v = reporter.per_hop.find(vmc_name), r = reporter.per_hop.find("BM_raw_fibers65536");
    if (v == reporter.per_hop.end() || r == reporter.per_hop.end()) return;
    std::printf("%-22s vmc %.0f ms, bare fibers %.0f ms: ratio %.2f; %.0f bytes per node "
                "held after the run (bare fibers %.0f)\n",
                what, v->second * kLargeNodes * 1e3, r->second * kLargeNodes * 1e3,
                v->second / r->second, reporter.bytes_per_node[vmc_name],
                reporter.bytes_per_node["BM_raw_fibers65536"]);
  };
  std::printf("\n65,536 nodes made, run and ended (vmc / bare Boost.Context fibers made, run, "
              "freed):\n");
  large("nodes that do nothing", "BM_vmc_empty65536");
  large("binomial broadcast", "BM_vmc_broadcast65536");
  benchmark::Shutdown();
  return 0;
}
