// How closely the real clock follows the model: each case runs once on the virtual clock
// and several times on the real clock, and the ratio of real to virtual time is reported
// (best and median). Not a test: the ratio depends on the load of the machine and on how
// fast its threads wake up (tens of microseconds across cores), which is why the test suite
// only asserts what holds under any load (tests/runtime/realtime_test.cpp). The last two
// cases are `vmc run --op broadcast --algorithm binomial|auto --topology hypercube:16
// --n 1000 --alpha 1ms --beta 1us --clock real` (the first run of `auto` also pays for its
// selection in wall time; the median is of runs after it has decided).
//
//   ./build/bench/bench_realtime [repetitions] [case]    (default 5; case: the cases whose
//                                                         name contains this text)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "runtime/machine.hpp"

namespace {

struct Case {
  std::string name;
  std::string topology;
  vmc::Model model;
  double time_scale;
  std::function<void(vmc::Node&)> program;
};

void broadcast(vmc::Node& node) {
  std::vector<float> data(16, node.rank() == 0 ? 1.0f : 0.0f);
  vmc::broadcast(node.world(), std::span(data), 0, {.algorithm = "binomial"});
}

void allreduce(vmc::Node& node) {
  std::vector<float> data(1024, 1.0f);
  vmc::allreduce(node.world(), std::span(data), vmc::ops::sum<float>(),
                 {.algorithm = "recursive_doubling"});
}

// vmc run's broadcast: n floats from node 0, by `algorithm` (auto: the selection's choice).
std::function<void(vmc::Node&)> broadcast_n(std::size_t n, std::string algorithm) {
  return [n, algorithm](vmc::Node& node) {
    std::vector<float> data(n, node.rank() == 0 ? 1.0f : 0.0f);
    vmc::broadcast(node.world(), std::span(data), 0, {.algorithm = algorithm});
  };
}

void ring_shift(vmc::Node& node) {
  const vmc::Comm& c = node.world();
  const int p = c.size();
  std::vector<int> out(64, c.rank()), in(64);
  for (int step = 0; step + 1 < p; ++step) {
    c.sendrecv(std::span<const int>(out), (c.rank() + 1) % p, std::span<int>(in),
               (c.rank() + p - 1) % p, 0);
    out.swap(in);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int repetitions = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const std::string only = argc > 2 ? argv[2] : "";
  const vmc::Model ipsc{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6,
                        .port = vmc::Port::exchange, .routing = vmc::Routing::wormhole};
  const vmc::Model slow{.alpha = 2e-3, .beta = 0, .gamma = 0, .port = vmc::Port::exchange,
                        .routing = vmc::Routing::wormhole};
  vmc::Model duplex = ipsc;
  duplex.port = vmc::Port::duplex;
  // vmc run's defaults with --alpha 1ms --beta 1us.
  const vmc::Model run_1ms{.alpha = 1e-3, .beta = 1e-6, .gamma = 0.35e-6,
                           .port = vmc::Port::exchange, .routing = vmc::Routing::wormhole};
  const std::vector<Case> cases = {
      {"binomial broadcast, alpha 2 ms", "hypercube:64", slow, 1.0, broadcast},
      {"recursive doubling allreduce n 1024, 000 Fig. 7", "hypercube:64", ipsc, 1.0, allreduce},
      {"the same at time scale 8", "hypercube:64", ipsc, 8.0, allreduce},
      {"ring shift n 64, duplex", "ring:16", duplex, 1.0, ring_shift},
      {"recursive doubling allreduce on a mesh (contended)", "mesh:4x4", ipsc, 1.0, allreduce},
      {"vmc run: binomial broadcast n 1000, alpha 1 ms", "hypercube:16", run_1ms, 1.0,
       broadcast_n(1000, "binomial")},
      {"vmc run: auto broadcast n 1000, alpha 1 ms", "hypercube:16", run_1ms, 1.0,
       broadcast_n(1000, "auto")},
  };
  std::printf("real clock against the model, %d real runs per case (ratio = real / virtual)\n\n",
              repetitions);
  std::printf("%-52s %-13s %6s %11s %8s %8s\n", "case", "topology", "scale", "virtual",
              "best", "median");
  for (const Case& c : cases) {
    if (c.name.find(only) == std::string::npos) continue;
    vmc::Machine v({.topology = vmc::parse_topology(c.topology), .model = c.model,
                    .trace = false});
    vmc::Machine real({.topology = vmc::parse_topology(c.topology), .model = c.model,
                       .clock = vmc::Clock::real_time, .time_scale = c.time_scale,
                       .trace = false});
    const double virtual_time = v.run(c.program).time();
    std::vector<double> ratios;
    for (int i = 0; i < repetitions; ++i) ratios.push_back(real.run(c.program).time() / virtual_time);
    std::sort(ratios.begin(), ratios.end());
    std::printf("%-52s %-13s %6g %11s %8.4f %8.4f\n", c.name.c_str(), c.topology.c_str(),
                c.time_scale, vmc::format_duration(virtual_time).c_str(), ratios.front(),
                ratios[ratios.size() / 2]);
  }
  return 0;
}
