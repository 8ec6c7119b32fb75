// Failures on purpose (MachineConfig::failures, --fail; docs/model.md, "Failed nodes"): a node
// stops at its first call at or after a virtual time, the calls that need it fail naming it,
// the run ends with a report that is the same on every run and under both engines, and the
// machine is usable after.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/patterns/binomial.hpp"
#include "runtime/machine.hpp"

namespace vmc {
namespace {

using ::testing::HasSubstr;

// 000's iPSC/860 costs on hypercube:8: a message of one item takes 527 us.
MachineConfig cube8(Engine engine, std::vector<NodeFailure> failures) {
  return MachineConfig{.topology = parse_topology("hypercube:8"),
                       .model = {.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6},
                       .engine = engine,
                       .failures = std::move(failures)};
}

// The nodes below `node` in the binomial broadcast tree rooted at 0 (the pattern's own
// functions: patterns/binomial.hpp).
std::set<int> subtree_below(int node, int p) {
  std::set<int> below;
  std::vector<int> todo = patterns::binomial_children(node, p);
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    below.insert(v);
    for (int c : patterns::binomial_children(v, p)) todo.push_back(c);
  }
  return below;
}

struct Outcome {
  std::vector<int> got;  // per node: the value it holds after the broadcast (-1: none)
  std::string report;    // the RunError's text
  FailureReport failures;
  RunError::Kind kind = RunError::Kind::node_threw;
  std::shared_ptr<const RunResult> result;  // the RunError's: what the run did
};

// A binomial broadcast of one int from node 0, each node recording what it holds after it.
Outcome broadcast_with(Machine& m) {
  Outcome out;
  out.got.assign(m.size(), -1);
  try {
    m.run([&](Node& node) {
      int x = node.rank() == 0 ? 42 : -1;
      broadcast(node.world(), std::span<int>(&x, 1), 0, {.algorithm = "binomial"});
      out.got[node.rank()] = x;
    });
    ADD_FAILURE() << "the run did not fail";
  } catch (const RunError& e) {
    out.report = e.what();
    out.failures = e.failures();
    out.kind = e.kind();
    out.result = e.result();
  }
  return out;
}

TEST(Failures, BinomialBroadcastLosesExactlyTheFailedNodesSubtree) {
  // Node 2 receives at 1.054 ms (after 0's messages to 4 and to 2) and stops at its next call,
  // the send to its child 3: it holds the data, 3 does not, everyone else does.
  ASSERT_EQ(subtree_below(2, 8), (std::set<int>{3}));
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m(cube8(engine, {{.node = 2, .at = 1e-3}}));
    const Outcome o = broadcast_with(m);
    EXPECT_EQ(o.kind, RunError::Kind::node_failed);
    for (int r = 0; r < 8; ++r) {
      if (r == 2) continue;  // it stopped before it recorded anything
      EXPECT_EQ(o.got[r], r == 3 ? -1 : 42) << "node " << r;
    }
    EXPECT_EQ(o.got[2], -1);
    ASSERT_EQ(o.failures.stopped.size(), 2u) << o.report;
    EXPECT_EQ(o.failures.stopped[0].node, 2);
    EXPECT_EQ(o.failures.stopped[0].cause, -1);
    EXPECT_EQ(o.failures.stopped[0].at_ps, 1'054'000'000);  // two messages of 527 us
    EXPECT_EQ(o.failures.stopped[1].node, 3);  // it ended on the error
    EXPECT_EQ(o.failures.stopped[1].cause, 2);
    EXPECT_EQ(o.failures.stopped[1].at_ps, 1'054'000'000);
    ASSERT_EQ(o.failures.affected.size(), 1u);
    EXPECT_EQ(o.failures.affected[0].node, 3);
    EXPECT_EQ(o.failures.affected[0].failed, 2);
    EXPECT_EQ(o.failures.affected[0].at_ps, 1'054'000'000);
    EXPECT_THAT(o.failures.affected[0].call, HasSubstr("recv from rank 2"));
    EXPECT_THAT(o.report, HasSubstr("node 2 stopped at 1.054 ms (a failure it was given)"));
    EXPECT_THAT(o.report, HasSubstr("node 3: recv from rank 2"));
    EXPECT_THAT(o.report, HasSubstr("node 2 has failed"));
    // What the run did comes with the error, as a run that returns gives it (vmc show draws
    // it): the failures, and the six messages sent (0 to 4, 2 and 1; 4 to 6 and 5; 6 to 7;
    // not 2's to 3), the last ending at 1.581 ms.
    ASSERT_NE(o.result, nullptr);
    EXPECT_EQ(o.result->failures().text(), o.failures.text());
    EXPECT_EQ(o.result->stats().messages, 6u);
    EXPECT_EQ(o.result->trace().messages.size(), 6u);
    EXPECT_EQ(o.result->time_ps(), 1'581'000'000);
    // The machine is usable after: a run that ends before node 2's time succeeds on it.
    std::vector<int> left(8, -1);
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      c.sendrecv(std::span<const int>(&me, 1), (me + 1) % 8, std::span<int>(&left[me], 1),
                 (me + 7) % 8, 0);
    });
    for (int n = 0; n < 8; ++n) EXPECT_EQ(left[n], (n + 7) % 8);
    EXPECT_TRUE(r.failures().empty());
    // Two messages at a time per node under exchange ports: 1.054 ms, past node 2's time, but
    // node 2 makes no call after it.
    EXPECT_DOUBLE_EQ(r.time(), 1.054e-3);
  }
}

TEST(Failures, ASubtreeFailsInTurnAndTheReportIsTheSameEveryRunAndEngine) {
  // Node 4 fails before it forwards anything (at 0, its first call: the receive from the
  // root): 6 and 5 need it, end on the error and stop, and 7 then needs 6.
  const std::set<int> lost = subtree_below(4, 8);
  ASSERT_EQ(lost, (std::set<int>{5, 6, 7}));
  std::string first;
  for (int run = 0; run < 3; ++run) {
    for (Engine engine : {Engine::threads, Engine::fibers}) {
      SCOPED_TRACE(to_string(engine) + " run " + std::to_string(run));
      Machine m(cube8(engine, {{.node = 4, .at = 0}}));
      const Outcome o = broadcast_with(m);
      for (int r = 0; r < 8; ++r) {
        EXPECT_EQ(o.got[r], r == 4 || lost.count(r) ? -1 : 42) << "node " << r;
      }
      std::set<int> stopped;
      for (const auto& s : o.failures.stopped) stopped.insert(s.node);
      EXPECT_EQ(stopped, (std::set<int>{4, 5, 6, 7}));
      EXPECT_THAT(o.report, HasSubstr("node 7: recv from rank 6"));
      if (first.empty()) first = o.report;
      EXPECT_EQ(o.report, first);
      // A machine's failures hold for every run: the same run fails the same way again.
      const Outcome again = broadcast_with(m);
      EXPECT_EQ(again.report, o.report);
    }
  }
}

TEST(Failures, SeveralFailuresAndAHandledErrorLetTheRunReturn) {
  // Nodes 3 and 5 fail at 0. Every other node receives from its left neighbour on a ring and
  // handles NodeFailedError: the run returns, and its report lists both failures and the two
  // receives that needed them.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m(cube8(engine, {{.node = 3, .at = 0}, {.node = 5, .at = 0}}));
    std::vector<int> failed_peer(8, -2);
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      const int p = c.size(), me = c.rank();
      int x = me, y = -1;
      c.send(std::span<const int>(&x, 1), (me + 1) % p, 0);
      try {
        c.recv(std::span<int>(&y, 1), (me + p - 1) % p, 0);
        failed_peer[me] = -1;
      } catch (const NodeFailedError& e) {
        failed_peer[me] = e.failed_node();
      }
    });
    EXPECT_EQ(failed_peer[4], 3);
    EXPECT_EQ(failed_peer[6], 5);
    for (int n : {0, 1, 2, 7}) EXPECT_EQ(failed_peer[n], -1) << "node " << n;
    ASSERT_EQ(r.failures().stopped.size(), 2u);
    EXPECT_EQ(r.failures().stopped[0].node, 3);
    EXPECT_EQ(r.failures().stopped[1].node, 5);
    ASSERT_EQ(r.failures().affected.size(), 2u);
    EXPECT_EQ(r.failures().affected[0].node, 4);
    EXPECT_EQ(r.failures().affected[1].node, 6);
    EXPECT_FALSE(r.failures().unhandled());
    // Node 4 sent (527 us), then its receive from node 3, stopped at 0, failed at once.
    EXPECT_EQ(r.failures().stopped[0].at_ps, 0);
    EXPECT_EQ(r.failures().affected[0].at_ps, 527'000'000);
    EXPECT_DOUBLE_EQ(r.node_time(4), 527e-6);
  }
}

TEST(Failures, MessagesSentBeforeTheFailureArriveAndIrecvsFailAfter) {
  // Node 1 sends one message at 0, computes 1 ms, and stops at its next call. Node 0's first
  // irecv gets the message; its second fails when node 1 stops, at 1 ms, and its wait says so.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m({.nodes = 2, .engine = engine, .failures = {{.node = 1, .at = 0.5e-3}}});
    int first = -1;
    double failed_at = -1;
    std::string what;
    m.run([&](Node& node) {
      const Comm& c = node.world();
      if (c.rank() == 1) {
        const int x = 7;
        c.send(std::span<const int>(&x, 1), 0, 0);
        node.charge_compute(1e-3);
        c.send(std::span<const int>(&x, 1), 0, 0);  // never made: it stops here
        return;
      }
      int a = -1, b = -1;
      Request ra = c.irecv(std::span<int>(&a, 1), 1, 0);
      Request rb = c.irecv(std::span<int>(&b, 1), 1, 0);
      c.wait(ra);
      first = a;
      try {
        c.wait(rb);
      } catch (const NodeFailedError& e) {
        what = e.what();
        failed_at = c.now();
      }
    });
    EXPECT_EQ(first, 7);
    EXPECT_DOUBLE_EQ(failed_at, 1e-3);
    EXPECT_THAT(what, HasSubstr("node 0: irecv from rank 1"));
    EXPECT_THAT(what, HasSubstr("node 1 has failed (it stopped at 1 ms)"));
  }
}

TEST(Failures, AMachineWithoutFailuresRunsAfterOneWith) {
  Machine failing(cube8(Engine::automatic, {{.node = 2, .at = 1e-3}}));
  broadcast_with(failing);
  Machine healthy(cube8(Engine::automatic, {}));
  std::vector<int> got(8, -1);
  const RunResult r = healthy.run([&](Node& node) {
    int x = node.rank() == 0 ? 42 : -1;
    broadcast(node.world(), std::span<int>(&x, 1), 0, {.algorithm = "binomial"});
    got[node.rank()] = x;
  });
  EXPECT_EQ(got, std::vector<int>(8, 42));
  EXPECT_TRUE(r.failures().empty());
}

TEST(Failures, BadSpecsAreRefusedNamingTheProblem) {
  auto refused = [](const std::string& text) {
    try {
      parse_failures(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(parse_failures("node:3@2ms,node:5@0"),
            (std::vector<NodeFailure>{{.node = 3, .at = 2e-3}, {.node = 5, .at = 0}}));
  EXPECT_THAT(refused("node:3"), HasSubstr("names no time"));
  EXPECT_THAT(refused("node:x@1ms"), HasSubstr("\"x\" is not a node number"));
  EXPECT_THAT(refused("node:3@-1ms"), HasSubstr("negative"));
  EXPECT_THAT(refused("node:3@1ms,node:3@2ms"), HasSubstr("node 3 is given twice"));
  EXPECT_THAT(refused("node:3@1ms,"), HasSubstr("empty item"));
  EXPECT_THAT(refused("link:3-7@1ms"), HasSubstr("not supported"));
  EXPECT_THAT(refused("rack:1@0"), HasSubstr("expected node:K@TIME"));
  EXPECT_EQ(describe_failures(parse_failures("node:3@2ms,node:5@0")), "node:3@2ms,node:5@0");

  auto machine_refuses = [](MachineConfig config) {
    try {
      Machine m(std::move(config));
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(machine_refuses({.nodes = 4, .failures = {{.node = 4, .at = 0}}}),
              HasSubstr("node 4 is not a node of this machine of 4 nodes"));
  EXPECT_THAT(machine_refuses({.nodes = 4, .clock = Clock::real_time,
                               .failures = {{.node = 1, .at = 0}}}),
              HasSubstr("virtual clock only"));
  EXPECT_THAT(machine_refuses({.nodes = 4,
                               .model = {.protocol = Protocol::rendezvous},
                               .failures = {{.node = 1, .at = 0}}}),
              HasSubstr("rendezvous protocol is not supported"));
}

}  // namespace
}  // namespace vmc
