// The real clock: tokens held for real and delays injected as real waits follow the model.
// These tests measure wall time, so ctest runs them alone (RUN_SERIAL): a loaded machine
// delays thread wake-ups and would read as model error.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/machine.hpp"
#include "tests/runtime/programs.hpp"

namespace vmc {
namespace {

TEST(Model, RealTimeBroadcastFollowsTheModel) {
  Model model{.alpha = 2e-3, .beta = 0, .gamma = 0, .port = Port::exchange,
              .routing = Routing::wormhole};
  Machine v({.topology = parse_topology("hypercube:64"), .model = model});
  Machine real({.topology = parse_topology("hypercube:64"), .model = model,
                .clock = Clock::real_time});
  auto program = [&](Node& node) {
    std::vector<int> data(16, node.rank() == 0 ? 3 : 0);
    broadcast(node.world(), data, 0);
    for (int x : data) ASSERT_EQ(x, 3);
  };
  const double virtual_time = v.run(program).time();
  EXPECT_DOUBLE_EQ(virtual_time, 6 * 2e-3);
  double best = 1e9;
  for (int attempt = 0; attempt < 3; ++attempt) {  // the box is shared: take the best of 3
    best = std::min(best, real.run(program).time());
  }
  EXPECT_GE(best, virtual_time * 0.999);
  EXPECT_LE(std::fabs(best - virtual_time) / virtual_time, 0.10)
      << "real " << best << " s, virtual " << virtual_time << " s";
}

TEST(Model, RealTimeTokensSerialiseContendedMessages) {
  Model model{.alpha = 2e-3, .beta = 0, .port = Port::duplex, .routing = Routing::wormhole};
  Machine m({.topology = parse_topology("mesh:4x3"), .model = model, .clock = Clock::real_time});
  auto r = m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(4, 1);
    if (c.rank() == 0) c.send(std::span<const int>(data), 6, 0);
    if (c.rank() == 1) c.send(std::span<const int>(data), 3, 0);
    if (c.rank() == 6) c.recv(std::span<int>(data), 0, 0);
    if (c.rank() == 3) c.recv(std::span<int>(data), 1, 0);
  });
  EXPECT_GE(r.time(), 2 * 2e-3 * 0.999);  // one waited for the other
  EXPECT_GT(r.stats().token_wait, to_picos(1e-3));
}

}  // namespace
}  // namespace vmc
