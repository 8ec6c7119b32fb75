// The README's library example: a whole program, compiled and run by the test suite
// (tests/tools), which also checks that the README shows this file as it is.
#include <cstdio>
#include <span>
#include <vector>

#include "collectives/collectives.hpp"
#include "runtime/machine.hpp"

int main() {
  const std::size_t n = 1000;
  vmc::Machine m({.topology = vmc::parse_topology("mesh:6x5"),
                  .model = {.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6,
                            .port = vmc::Port::exchange, .routing = vmc::Routing::wormhole}});
  std::vector<float> got(m.size());
  vmc::RunResult r = m.run([&](vmc::Node& node) {
    std::vector<float> x(n, float(node.rank())), all_of_row(4 * 6);
    vmc::allreduce(node.world(), std::span(x), vmc::ops::sum<float>());  // algorithm: auto
    vmc::broadcast(node.world(), std::span(x), /*root=*/3, {.algorithm = "binomial"});
    vmc::Comm row = node.world().split(node.rank() / 6, node.rank());  // sub-groups of 6
    vmc::allgather(row, std::span<const float>(x.data(), 4), std::span(all_of_row));
    got[node.rank()] = all_of_row.back();
  });
  std::printf("%s, %llu messages, node 0 has %g\n", vmc::format_duration(r.time()).c_str(),
              static_cast<unsigned long long>(r.stats().messages), got[0]);
  r.trace().write_chrome_json("run.json");  // open it in ui.perfetto.dev
  return got == std::vector<float>(m.size(), 435.0f) ? 0 : 1;  // 0 + 1 + ... + 29
}
