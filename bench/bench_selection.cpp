// Selection's share of wall time (docs/algorithms.md "Automatic selection"): for each case,
// one timing-only run (Data::none) of one call with `auto`, against the same run with the
// row and member auto picked forced, both in this process, A/B alternated. Selection's
// choices are remembered per call shape for the process, so each auto run uses a length
// no earlier run used (n, n + 1, ...; the forced run the same length), and pays for its
// choice as a program's first call of a shape does. Prints per case the pick, the time of
// the choice alone (choose() on a fresh shape), the auto and forced wall times (medians)
// and auto / forced - 1 (selection's share), then the same in CPU seconds of the process
// (steadier where other work loads the host).
//
//   ./build/bench/bench_selection                    p = 1,024 and 16,384
//   ./build/bench/bench_selection 1024 16384 65536   the p given (65,536: about a minute)
//   ./build/bench/bench_selection 16 64 mesh ring    on the families named (hypercube, mesh,
//                                                    torus, ring; default hypercube), each p
//                                                    a power of two: mesh:8x8 at 64, 4x8 at 32
//
// Not a test: it asserts nothing about time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <sys/resource.h>

#include "collectives/collectives.hpp"
#include "collectives/selection/selection.hpp"
#include "runtime/machine.hpp"
#include "runtime/scratch.hpp"
#include "topology/topology.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The process's CPU seconds so far (user and system, every thread): on a host other work
// loads, a steadier measure of what a run cost than its wall time.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return s(u.ru_utime) + s(u.ru_stime);
}

struct Cost {
  double wall = 0, cpu = 0;
};

// vmc run's default model (525 us, 2 us, 0.35 us; exchange port, wormhole).
vmc::Model cli_model() { return {.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6}; }

vmc::CostQuery query(vmc::Operation op, const vmc::Topology& t, int p, std::size_t n,
                     const vmc::Options& options) {
  vmc::CostQuery q = vmc::make_query(t, cli_model(), p, n, 0, sizeof(float), true, options);
  if (vmc::traits(op).rank_counts) q.counts.assign(static_cast<std::size_t>(p), n);
  return q;
}

// Wall seconds of one machine made, run once with one call of op by every node through the
// public call (the row `options` names, or auto) and ended: what `vmc run --data none`
// does, without the process. Buffers are nowhere memory (runtime/scratch.hpp).
Cost one_run(vmc::Operation op, const std::string& spec, std::size_t n,
             const vmc::Options& options) {
  const Clock::time_point t0 = Clock::now();
  const double c0 = cpu_seconds();
  vmc::Machine m({.topology = vmc::parse_topology(spec), .model = cli_model(), .trace = false,
                  .data = vmc::Data::none});
  const std::size_t np = n * static_cast<std::size_t>(m.size());
  auto items = [](std::size_t len) {
    return std::span<float>(reinterpret_cast<float*>(vmc::nowhere(len * sizeof(float)).data()),
                            len);
  };
  m.run([&](vmc::Node& node) {
    const vmc::Comm& c = node.world();
    switch (op) {
      case vmc::Operation::broadcast: vmc::broadcast(c, items(n), 0, options); break;
      case vmc::Operation::allreduce:
        vmc::allreduce(c, std::span<const float>(items(n)), items(n), vmc::ops::sum<float>(),
                       options);
        break;
      case vmc::Operation::allgather:
        vmc::allgather(c, std::span<const float>(items(n)), items(np), options);
        break;
      case vmc::Operation::reduce_scatter:
        vmc::reduce_scatter(c, std::span<const float>(items(np)), items(n),
                            vmc::ops::sum<float>(), options);
        break;
      case vmc::Operation::alltoall:
        vmc::alltoall(c, std::span<const float>(items(np)), items(np), options);
        break;
      default: break;
    }
  });
  return {seconds_since(t0), cpu_seconds() - c0};
}

struct Case {
  vmc::Operation op;
  int p;
  std::string family;  // hypercube, mesh, torus or ring
};

// The topology of family f with p nodes: a mesh or torus of two dimensions as near square
// as p, a power of two, allows (the shorter first).
std::string spec_of(const std::string& f, int p) {
  if (f == "hypercube" || f == "ring") return f + ":" + std::to_string(p);
  int a = 1;
  while (a * a * 4 <= p) a *= 2;
  return f + ":" + std::to_string(a) + "x" + std::to_string(p / a);
}

void measure(const Case& c, std::size_t& n, int repeats) {
  const std::string spec = spec_of(c.family, c.p);
  const auto topology = vmc::parse_topology(spec);
  // The choice alone, on a shape not chosen before.
  const Clock::time_point t0 = Clock::now();
  const vmc::Choice pick = vmc::choose(c.op, query(c.op, *topology, c.p, n, {}));
  const double choice_s = seconds_since(t0);
  ++n;
  vmc::Options forced;
  forced.algorithm = pick.row->name;
  if (pick.member >= 0) {
    forced.algorithm = pick.row->member_row;
    forced.hybrid = pick.member;
  }
  std::vector<double> auto_wall, forced_wall, auto_cpu, forced_cpu;
  for (int k = 0; k < repeats; ++k, ++n) {
    const Cost f = one_run(c.op, spec, n, forced);
    const Cost a = one_run(c.op, spec, n, {});  // n not chosen before: selection pays
    forced_wall.push_back(f.wall), forced_cpu.push_back(f.cpu);
    auto_wall.push_back(a.wall), auto_cpu.push_back(a.cpu);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double a = median(auto_wall), f = median(forced_wall);
  const double ac = median(auto_cpu), fc = median(forced_cpu);
  std::printf("%-10s %-14s  %-22s %8.3f %8.3f %8.3f %+7.1f%% %8.3f %8.3f %+7.1f%%\n",
              vmc::to_string(c.op).c_str(), spec.c_str(),
              (forced.algorithm + (pick.member >= 0 ? " " + std::to_string(pick.member) : ""))
                  .c_str(),
              choice_s, a, f, 100.0 * (a / f - 1.0), ac, fc, 100.0 * (ac / fc - 1.0));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> ps;
  std::vector<std::string> families;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "hypercube" || a == "mesh" || a == "torus" || a == "ring") {
      families.push_back(a);
    } else if (const int p = std::atoi(argv[i]); p >= 2 && (p & (p - 1)) == 0) {
      ps.push_back(p);
    } else {
      std::fprintf(stderr, "bench_selection: %s is neither a power of two of at least 2 nor "
                           "hypercube, mesh, torus or ring\n", argv[i]);
      return 2;
    }
  }
  if (ps.empty()) ps = {1024, 16384};
  if (families.empty()) families = {"hypercube"};
  std::printf("selection's share of wall time: timing-only runs of one call on the topology, "
              "n about 256, vmc run's model; auto (a call shape not chosen before) against the "
              "pick forced, medians of 3 alternated runs\n");
  std::printf("%-10s %-14s  %-22s %8s %8s %8s %8s %8s %8s %8s\n", "operation", "topology",
              "pick (member)", "choice s", "auto s", "forced s", "share", "auto cpu",
              "forc cpu", "share");
  std::size_t n = 256;
  const vmc::Operation ops[] = {vmc::Operation::broadcast, vmc::Operation::allreduce,
                                vmc::Operation::allgather, vmc::Operation::reduce_scatter,
                                vmc::Operation::alltoall};
  for (int p : ps) {
    for (const std::string& family : families) {
      for (vmc::Operation op : ops) {
        // An alltoall of 256 items per block moves p^2 messages: 1,024 nodes only.
        if (op == vmc::Operation::alltoall && p > 1024) continue;
        // 65,536 nodes: the broadcast only (the others take minutes).
        if (p > 16384 && op != vmc::Operation::broadcast) continue;
        measure({op, p, family}, n, p > 16384 ? 1 : 3);
      }
    }
  }
}
