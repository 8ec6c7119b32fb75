// The protocol (docs/model.md, item 2): eager sends may overlap the receiver's work;
// rendezvous sends start only once the receive is posted (000 §2 assumption 4). Held on a
// hand-computed schedule on both clocks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/machine.hpp"

namespace vmc {
namespace {

// T is the time of one message: alpha + n beta with alpha = 1 ms, beta = 0, so T = 1 ms;
// gamma is chosen so that combining n = 100 items also takes T.
constexpr double kT = 1e-3;
constexpr std::size_t kN = 100;

Model model(Protocol protocol) {
  return {.alpha = kT, .beta = 0, .gamma = kT / kN, .port = Port::exchange,
          .routing = Routing::direct, .protocol = protocol};
}

// Node 1 computes for 2T while node 0 sends it a message of duration T; node 1 then
// receives it and combines it (T).
void overlap_program(Node& node) {
  const Comm& c = node.world();
  std::vector<int> data(kN, 1);
  if (c.rank() == 0) c.send(std::span<const int>(data), 1, 0);
  if (c.rank() == 1) {
    c.charge_compute(2 * kT);
    c.recv(std::span<int>(data), 0, 0);
    c.charge_combine(kN);
  }
}

TEST(Protocol, EagerOverlapsTheReceiversWorkRendezvousDoesNot) {
  const Picos T = to_picos(kT);
  {
    Machine m({.nodes = 2, .model = model(Protocol::eager)});
    auto r = m.run(overlap_program);
    // The message runs over [0, T] during node 1's computation: 2T + T.
    EXPECT_EQ(r.stats().node_time[0], T);
    EXPECT_EQ(r.stats().node_time[1], 3 * T);
    ASSERT_EQ(r.trace().messages.size(), 1u);
    EXPECT_EQ(r.trace().messages[0].start, 0);
  }
  {
    Machine m({.nodes = 2, .model = model(Protocol::rendezvous)});
    auto r = m.run(overlap_program);
    // The message waits for the receive posted at 2T: 2T + T + T; the sender is held
    // until its message has gone. Waiting for the receiver is not a token wait.
    EXPECT_EQ(r.stats().node_time[0], 3 * T);
    EXPECT_EQ(r.stats().node_time[1], 4 * T);
    ASSERT_EQ(r.trace().messages.size(), 1u);
    EXPECT_EQ(r.trace().messages[0].request, 0);
    EXPECT_EQ(r.trace().messages[0].start, 2 * T);
    EXPECT_EQ(r.stats().token_wait, 0);
    EXPECT_EQ(r.stats().contention_delay, 0);
  }
}

// A ring shift with sendrecv and a binomial-like chain of plain sends: nothing overlaps
// computation there, so both protocols give the same times.
TEST(Protocol, ProgramsWithoutOverlapTakeTheSameTime) {
  auto program = [](Node& node) {
    const Comm& c = node.world();
    const int p = c.size(), r = c.rank();
    std::vector<int> out(50, r), in(50);
    c.sendrecv(std::span<const int>(out), (r + 1) % p, std::span<int>(in), (r + p - 1) % p, 1);
    if (r > 0) c.recv(std::span<int>(in), r - 1, 2);
    if (r + 1 < p) c.send(std::span<const int>(out), r + 1, 2);
  };
  for (Port port : {Port::exchange, Port::duplex, Port::half, Port::all}) {
    Model eager{.alpha = 1e-4, .beta = 1e-6, .port = port, .routing = Routing::direct};
    Model rendezvous = eager;
    rendezvous.protocol = Protocol::rendezvous;
    Machine a({.nodes = 6, .model = eager}), b({.nodes = 6, .model = rendezvous});
    EXPECT_EQ(a.run(program).stats().node_time, b.run(program).stats().node_time)
        << to_string(port);
  }
}

// Two nodes that both send before they receive complete eagerly and deadlock under
// rendezvous: a clear report, and the machine stays usable.
TEST(Protocol, RendezvousSendSendIsADeadlock) {
  auto program = [](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(4, 1);
    c.send(std::span<const int>(data), 1 - c.rank(), 0);
    c.recv(std::span<int>(data), 1 - c.rank(), 0);
  };
  Machine eager({.nodes = 2, .model = model(Protocol::eager)});
  EXPECT_NO_THROW(eager.run(program));
  Machine m({.nodes = 2, .model = model(Protocol::rendezvous)});
  try {
    m.run(program);
    ADD_FAILURE() << "expected a deadlock";
  } catch (const RunError& e) {
    EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
    EXPECT_NE(std::string(e.what()).find("rendezvous"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("node 0: send tag 0 to node 1"), std::string::npos)
        << e.what();
  }
  auto r = m.run(overlap_program);
  EXPECT_EQ(r.stats().node_time[1], 4 * to_picos(kT));
}

TEST(Protocol, ParseAndName) {
  EXPECT_EQ(parse_protocol("eager"), Protocol::eager);
  EXPECT_EQ(parse_protocol("rendezvous"), Protocol::rendezvous);
  EXPECT_EQ(to_string(Protocol::rendezvous), "rendezvous");
  EXPECT_THROW(parse_protocol("lazy"), std::invalid_argument);
  EXPECT_EQ(Model{}.protocol, Protocol::eager);
}

// The real clock: the same schedule, measured. Only what holds under any load is asserted:
// real times are at least the modelled ones, and under rendezvous the message does not
// start before the receive is posted (2T).
TEST(Protocol, RealClockRendezvousWaitsForTheReceive) {
  const Picos T = to_picos(kT);
  for (Protocol protocol : {Protocol::eager, Protocol::rendezvous}) {
    Machine m({.nodes = 2, .model = model(protocol), .clock = Clock::real_time});
    auto r = m.run(overlap_program);
    ASSERT_EQ(r.trace().messages.size(), 1u);
    const MessageEvent& e = r.trace().messages[0];
    EXPECT_GE(e.end - e.start, T * 999 / 1000);
    EXPECT_GE(r.stats().node_time[1], (protocol == Protocol::eager ? 3 : 4) * T * 999 / 1000);
    if (protocol == Protocol::rendezvous) {
      EXPECT_GE(e.start, 2 * T * 999 / 1000) << to_string(protocol);
      EXPECT_GE(r.stats().node_time[0], 3 * T * 999 / 1000);
    }
  }
}

// sendrecv under rendezvous on the real clock: each side posts its receive before its
// send waits for the partner's, so an exchange completes.
TEST(Protocol, RealClockRendezvousExchangeCompletes) {
  Model m0 = model(Protocol::rendezvous);
  m0.port = Port::duplex;
  Machine m({.nodes = 4, .model = m0, .clock = Clock::real_time});
  auto r = m.run([](Node& node) {
    const Comm& c = node.world();
    const int p = c.size(), rank = c.rank();
    std::vector<int> out(8, rank), in(8, -1);
    c.sendrecv(std::span<const int>(out), (rank + 1) % p, std::span<int>(in), (rank + p - 1) % p,
               3);
    if (in[0] != (rank + p - 1) % p) throw std::runtime_error("wrong data");
  });
  EXPECT_EQ(r.stats().messages, 4u);
  EXPECT_GE(r.stats().time, to_picos(kT) * 999 / 1000);
}

// On the real clock the same send-send program is found by the deadlock check (the sends
// wait on the network, counted as blocked), not left to the watchdog.
TEST(Protocol, RealClockRendezvousSendSendIsADeadlock) {
  Machine m({.nodes = 2, .model = model(Protocol::rendezvous), .clock = Clock::real_time,
             .watchdog_seconds = 120});
  try {
    m.run([](Node& node) {
      const Comm& c = node.world();
      std::vector<int> data(4, 1);
      c.send(std::span<const int>(data), 1 - c.rank(), 0);
      c.recv(std::span<int>(data), 1 - c.rank(), 0);
    });
    ADD_FAILURE() << "expected a deadlock";
  } catch (const RunError& e) {
    EXPECT_EQ(e.kind(), RunError::Kind::deadlock) << e.what();
    EXPECT_NE(std::string(e.what()).find("node 0: send (rendezvous: its receive is not posted) "
                                         "to node 1"),
              std::string::npos)
        << e.what();
  }
  auto r = m.run(overlap_program);  // still usable
  EXPECT_EQ(r.stats().messages, 1u);
}

}  // namespace
}  // namespace vmc
