// The real clock: tokens held for real and delays injected as real waits. Only what holds
// under any load is asserted here: a run is never faster than the model (every delay is a
// real wait of at least its modelled time), events happen in the order the program and the
// tokens impose, and results are correct. How closely the wall clock follows the model is a
// measurement, not a test: bench/bench_realtime reports the ratio of real to virtual time.
#include <gtest/gtest.h>

#include <chrono>
#include <span>
#include <vector>

#include "runtime/machine.hpp"
#include "tests/runtime/programs.hpp"

namespace vmc {
namespace {

// steady_clock reads nanoseconds; one microsecond covers its rounding at both ends.
constexpr double kTimerResolution = 1e-6;

TEST(Model, RealTimeBroadcastIsNeverFasterThanTheModelAndKeepsItsOrder) {
  Model model{.alpha = 2e-3, .beta = 0, .gamma = 0, .port = Port::exchange,
              .routing = Routing::wormhole};
  Machine v({.topology = parse_topology("hypercube:64"), .model = model});
  Machine real({.topology = parse_topology("hypercube:64"), .model = model,
                .clock = Clock::real_time});
  std::vector<int> correct(64, 0);
  auto program = [&](Node& node) {
    std::vector<int> data(16, node.rank() == 0 ? 3 : 0);
    broadcast(node.world(), data, 0);
    bool ok = true;
    for (int x : data) ok = ok && x == 3;
    correct[node.rank()] = ok;
  };
  const double virtual_time = v.run(program).time();
  EXPECT_DOUBLE_EQ(virtual_time, 6 * 2e-3);
  RunResult r = real.run(program);
  for (int rank = 0; rank < 64; ++rank) EXPECT_TRUE(correct[rank]) << "node " << rank;
  EXPECT_GE(r.time(), virtual_time - kTimerResolution) << "real " << r.time() << " s";
  EXPECT_EQ(r.stats().messages, 63u);
  // Order: every node other than the root sends only after its own receive has ended, and
  // every message lasts at least alpha.
  const std::vector<MessageEvent>& messages = r.trace().messages;
  ASSERT_EQ(messages.size(), 63u);
  std::vector<Picos> received(64, -1);
  for (const MessageEvent& m : messages) received[m.dst] = m.end;
  for (const MessageEvent& m : messages) {
    EXPECT_GE(m.end - m.start, to_picos(2e-3 - kTimerResolution)) << m.src << "->" << m.dst;
    if (m.src == 0) continue;
    ASSERT_GE(received[m.src], 0) << "node " << m.src << " sent before it received";
    EXPECT_LE(received[m.src], m.start) << m.src << "->" << m.dst;
  }
}

// Two messages whose x-first routes share a link on mesh:4x3 (0 -> 6 and 1 -> 3) hold it one
// after the other, whichever comes first: the second takes the link only after the first has
// held it for alpha. (A message's end is when its receiver has the data, which on the real
// clock includes the receiver's wake-up, after the link is free again.)
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
  EXPECT_GE(r.time(), 2 * 2e-3 - kTimerResolution);  // one after the other
  const std::vector<MessageEvent>& messages = r.trace().messages;
  ASSERT_EQ(messages.size(), 2u);
  const MessageEvent& first = messages[0].start <= messages[1].start ? messages[0] : messages[1];
  const MessageEvent& second = &first == &messages[0] ? messages[1] : messages[0];
  EXPECT_GE(second.start - first.start, to_picos(2e-3 - kTimerResolution))
      << "the shared link was held twice at once";
}

// Real work a node's own code does between its calls takes real time on the real clock: a
// node that computes before its first send starts it no earlier than that computation's end,
// and one that computes between a receive and a send starts the send no earlier than the
// receive's end plus the computation. So the last receiver finishes no earlier than both
// computations plus both messages' modelled time.
TEST(Model, RealTimeCountsANodesOwnWorkBetweenCalls) {
  constexpr double kAlpha = 2e-3;
  constexpr double kWork = 20e-3;
  Model model{.alpha = kAlpha, .beta = 0, .port = Port::duplex, .routing = Routing::wormhole};
  Machine m({.topology = parse_topology("hypercube:4"), .model = model,
             .clock = Clock::real_time});
  // Real work: the thread spins on the clock (no vmc call) for `seconds`.
  auto work = [](double seconds) {
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double>(seconds));
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  auto r = m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(4, 1);
    if (c.rank() == 0) {
      work(kWork);
      c.send(std::span<const int>(data), 1, 0);
    }
    if (c.rank() == 1) {
      c.recv(std::span<int>(data), 0, 0);
      work(kWork);
      c.send(std::span<const int>(data), 3, 0);
    }
    if (c.rank() == 3) c.recv(std::span<int>(data), 1, 0);
  });
  EXPECT_GE(r.time(), 2 * kWork + 2 * kAlpha - kTimerResolution) << "real " << r.time() << " s";
  const std::vector<MessageEvent>& messages = r.trace().messages;
  ASSERT_EQ(messages.size(), 2u);
  const MessageEvent& first = messages[0].src == 0 ? messages[0] : messages[1];
  const MessageEvent& second = &first == &messages[0] ? messages[1] : messages[0];
  EXPECT_EQ(second.src, 1);
  EXPECT_GE(first.start, to_picos(kWork - kTimerResolution)) << "node 0's work was hidden";
  EXPECT_GE(second.start - first.end, to_picos(kWork - kTimerResolution))
      << "node 1's work between its receive and its send was hidden";
}

}  // namespace
}  // namespace vmc
