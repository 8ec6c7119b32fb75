// What a collective costs the host, as ratios against baselines measured in the same run
// (docs/performance.md; tools/bench.sh writes docs/bench.md from it). Virtual clock, the
// default zero-cost model unless stated.
//
//   allreduce      K calls of one allreduce inside one run, per call, on each engine:
//                  16 MiB of floats on 8 nodes (auto and recursive_halving_doubling), and
//                  8 bytes on 2, 16 and 64 nodes: on 2 nodes 20,000 calls per run, as the
//                  Open MPI peer makes them (one process, a warm-up call, then 20,000 per
//                  round), so a run's own start and end (the run rows) are not counted as
//                  a call's; on 16 and 64 nodes 200;
//   memcpy_bound   memcpy of the bytes recursive halving/doubling must move for the 16 MiB
//                  case (2 (p-1)/p n per node, p nodes), one thread: the bound;
//   run            Machine::run of an empty function (waking and joining p nodes);
//   timing_only    Data::none: broadcast on 65,536 nodes, allreduce and alltoall on 16,384
//                  (fibers), with the memory per node (the peak resident memory the
//                  benchmark added, over p);
//   Open MPI       with VMC_PEERS=FILE (lines "openmpi/allreduce/P/SIZE us-per-call", which
//                  tools/bench.sh measures with bench/peers/peer_allreduce.c): the same
//                  allreduce rows over Open MPI's MPI_Allreduce on this host; and
//                  "vmc_mpirun/allreduce/2/8B", the same program through vmc's MPI
//                  interface (vmcc, vmc mpirun: whole processes, their difference per call).
//
//   ./build/bench/bench_collectives                 (tools/bench.sh runs it and writes the
//   ./build/bench/bench_collectives --benchmark_filter=allreduce     table in docs/)
//
// Never part of the tests: a benchmark asserts nothing about time.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench/process_memory.hpp"
#include "collectives/collectives.hpp"
#include "runtime/machine.hpp"
#include "runtime/scratch.hpp"

namespace {

using vmc::Engine;

const char* engine_name(Engine e) { return e == Engine::threads ? "threads" : "fibers"; }

// K allreduce calls of n floats per run, per call.
void BM_allreduce(benchmark::State& state, Engine engine, int p, std::size_t n,
                  const char* algorithm, int calls) {
  vmc::Machine m({.nodes = p, .trace = false, .engine = engine});
  std::vector<std::vector<float>> x(p, std::vector<float>(n, 1.0f));
  auto body = [&](vmc::Node& node) {
    for (int k = 0; k < calls; ++k) {
      vmc::allreduce(node.world(), std::span(x[node.rank()]), vmc::ops::sum<float>(),
                     {.algorithm = algorithm});
    }
  };
  m.run(body);  // warm up: selection's simulations, memory
  for (auto _ : state) m.run(body);
  state.counters["per_call"] = benchmark::Counter(
      double(state.iterations()) * calls, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// One thread copying what recursive halving/doubling moves for an allreduce of n floats on
// p nodes: 2 (p-1)/p n items out of every node.
void BM_memcpy_bound(benchmark::State& state, int p, std::size_t n) {
  const std::size_t per_node = 2 * (std::size_t(p) - 1) * n / std::size_t(p) * sizeof(float);
  std::vector<char> from(per_node, 1), to(per_node);
  for (auto _ : state) {
    for (int r = 0; r < p; ++r) std::memcpy(to.data(), from.data(), per_node);
    benchmark::DoNotOptimize(to.data());
  }
  state.counters["per_call"] = benchmark::Counter(
      double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_run(benchmark::State& state, Engine engine, int p) {
  vmc::Machine m({.nodes = p, .trace = false, .engine = engine});
  for (auto _ : state) m.run([](vmc::Node&) {});
  state.counters["per_call"] = benchmark::Counter(
      double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

using vmc::bench::reset_peak_rss;
using vmc::bench::status_kib;

// A timing-only run on a large machine: time per call and peak memory per node.
void BM_timing_only(benchmark::State& state, vmc::Operation op, int p, std::size_t n) {
  const long before = status_kib("VmRSS");
  reset_peak_rss();
  vmc::Machine m({.topology = vmc::parse_topology("hypercube:" + std::to_string(p)),
                  .model = {.alpha = 1e-6, .beta = 1e-9},
                  .trace = false,
                  .data = vmc::Data::none});
  for (auto _ : state) {
    m.run([&](vmc::Node& node) {
      const vmc::Comm& c = node.world();
      // Nowhere memory (runtime/scratch.hpp): buffers that cost nothing and are never touched.
      auto items = [](std::size_t len) {
        return std::span<float>(reinterpret_cast<float*>(vmc::nowhere(len * sizeof(float)).data()),
                                len);
      };
      std::span<float> x = items(op == vmc::Operation::alltoall ? n * std::size_t(p) : n);
      std::span<float> y = items(op == vmc::Operation::alltoall ? n * std::size_t(p) : 0);
      switch (op) {
        case vmc::Operation::broadcast: vmc::broadcast(c, x, 0); break;
        case vmc::Operation::allreduce:
          vmc::allreduce(c, x, vmc::ops::sum<float>());
          break;
        default:
          vmc::alltoall(c, std::span<const float>(x), y);
          break;
      }
    });
  }
  state.counters["per_call"] = benchmark::Counter(
      double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  // The peak resident memory this benchmark added (machine, stacks, messages), per node.
  state.counters["kib_per_node"] = double(status_kib("VmHWM") - before) / p;
}

void register_all() {
  constexpr std::size_t kLong = std::size_t{4} << 20;  // 16 MiB of floats
  for (Engine e : {Engine::fibers, Engine::threads}) {
    const std::string en = engine_name(e);
    benchmark::RegisterBenchmark(("allreduce/" + en + "/8/16MiB/auto").c_str(), BM_allreduce, e,
                                 8, kLong, "auto", 1)
        ->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("allreduce/" + en + "/8/16MiB/rhd").c_str(), BM_allreduce, e,
                                 8, kLong, "recursive_halving_doubling", 1)
        ->UseRealTime()->Unit(benchmark::kMillisecond);
    for (int p : {2, 16, 64}) {
      benchmark::RegisterBenchmark(("allreduce/" + en + "/" + std::to_string(p) + "/8B/auto")
                                       .c_str(),
                                   BM_allreduce, e, p, std::size_t{2}, "auto",
                                   p == 2 ? 20000 : 200)
          ->UseRealTime()->Unit(benchmark::kMicrosecond);
    }
    for (int p : {2, 64, 1024}) {
      benchmark::RegisterBenchmark(("run/" + en + "/" + std::to_string(p)).c_str(), BM_run, e, p)
          ->UseRealTime()->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::RegisterBenchmark("memcpy_bound/8/16MiB", BM_memcpy_bound, 8, kLong)
      ->UseRealTime()->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("timing_only/broadcast/65536", BM_timing_only,
                               vmc::Operation::broadcast, 65536, std::size_t{256})
      ->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(1);
  benchmark::RegisterBenchmark("timing_only/allreduce/16384", BM_timing_only,
                               vmc::Operation::allreduce, 16384, std::size_t{256})
      ->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(1);
  benchmark::RegisterBenchmark("timing_only/alltoall/16384", BM_timing_only,
                               vmc::Operation::alltoall, 16384, std::size_t{1})
      ->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(1);
}

// Collects each benchmark's per-call time so main() can print the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> per_call, kib_per_node;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      auto it = r.counters.find("per_call");
      const bool usable = r.run_type == Run::RT_Iteration ||
                          (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median");
      if (it != r.counters.end() && usable) {
        // "allreduce/fibers/8/16MiB/auto/real_time" (or its "_median"): the registered name.
        std::string name = r.run_name.function_name;
        per_call[name] = it->second.value;
        auto kib = r.counters.find("kib_per_node");
        if (kib != r.counters.end()) kib_per_node[name] = kib->second.value;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

// Figures of the peers (lines "name microseconds-per-call") from the file VMC_PEERS names,
// if any, into `per_call` (seconds).
bool read_peers(std::map<std::string, double>& per_call) {
  const char* path = std::getenv("VMC_PEERS");
  if (path == nullptr) return false;
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  char name[128];
  double us = 0;
  bool any = false;
  while (std::fscanf(f, "%127s %lf", name, &us) == 2) {
    per_call[name] = us * 1e-6;
    any = true;
  }
  std::fclose(f);
  return any;
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto& t = reporter.per_call;
  // The table tools/bench.sh writes to docs/bench.md: everything after the marker line.
  std::printf("\n<!-- bench_collectives table -->\n");
  std::printf("| case | vmc | baseline | ratio |\n|---|---:|---:|---:|\n");
  auto ratio = [&](const std::string& what, const std::string& a, const std::string& b) {
    auto x = t.find(a), y = t.find(b);
    if (x == t.end() || y == t.end()) return;
    std::printf("| %s | %.3f us | %.3f us | %.2f |\n", what.c_str(), x->second * 1e6,
                y->second * 1e6, x->second / y->second);
  };
  for (const char* e : {"fibers", "threads"}) {
    const std::string en = e;
    ratio("16 MiB allreduce, 8 nodes, auto (" + en + ") / memcpy bound",
          "allreduce/" + en + "/8/16MiB/auto", "memcpy_bound/8/16MiB");
    ratio("16 MiB allreduce, 8 nodes, recursive_halving_doubling (" + en + ") / memcpy bound",
          "allreduce/" + en + "/8/16MiB/rhd", "memcpy_bound/8/16MiB");
  }
  for (int p : {2, 16, 64}) {
    const std::string ps = std::to_string(p);
    ratio("8 B allreduce, " + ps + " nodes: threads / fibers", "allreduce/threads/" + ps + "/8B/auto",
          "allreduce/fibers/" + ps + "/8B/auto");
  }
  // The peers tools/bench.sh measured just before, when Open MPI is installed.
  if (read_peers(reporter.per_call)) {
    ratio("16 MiB allreduce, 8 nodes, auto (fibers) / Open MPI MPI_Allreduce",
          "allreduce/fibers/8/16MiB/auto", "openmpi/allreduce/8/16MiB");
    for (int p : {2, 16, 64}) {
      const std::string ps = std::to_string(p);
      ratio("8 B allreduce, " + ps + " nodes, auto (fibers) / Open MPI MPI_Allreduce",
            "allreduce/fibers/" + ps + "/8B/auto", "openmpi/allreduce/" + ps + "/8B");
    }
    // The same program as Open MPI's, through vmc's MPI interface (vmcc, vmc mpirun).
    ratio("8 B allreduce, 2 nodes, MPI_Allreduce under vmc mpirun / Open MPI MPI_Allreduce",
          "vmc_mpirun/allreduce/2/8B", "openmpi/allreduce/2/8B");
  }
  for (int p : {2, 64, 1024}) {
    const std::string ps = std::to_string(p);
    ratio("empty Machine::run, " + ps + " nodes: threads / fibers", "run/threads/" + ps,
          "run/fibers/" + ps);
  }
  std::printf("\n| timing-only run (Data::none, fibers, hypercube) | time per run | memory per node |\n"
              "|---|---:|---:|\n");
  for (const auto& [name, kib] : reporter.kib_per_node) {
    std::printf("| %s | %.1f ms | %.1f KiB |\n", name.c_str(), t.at(name) * 1e3, kib);
  }
  benchmark::Shutdown();
  return 0;
}
