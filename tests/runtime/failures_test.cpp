// Failures on purpose (MachineConfig::failures, --fail; docs/model.md, "Failed nodes"): a node
// stops at its first call at or after a virtual time, the calls that need it fail naming it,
// the run ends with a report that is the same on every run and under both engines, and the
// machine is usable after. Failed links (MachineConfig::link_failures; "Failed links"): a
// message sent at or after the link's time whose route crosses it takes another route the
// topology's routing allows, charged as it goes, or when there is none (or under
// FailRoutes::fixed) is lost, the receive that takes it fails naming the link, and the nodes
// that need that node fail in turn.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
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

// A node's part of a binomial broadcast of one int from node 0: `got` holds, per node, what it
// has after it (-1: none).
void broadcast_one(Node& node, std::vector<int>& got) {
  int x = node.rank() == 0 ? 42 : -1;
  broadcast(node.world(), std::span<int>(&x, 1), 0, {.algorithm = "binomial"});
  got[node.rank()] = x;
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
    m.run([&](Node& node) { broadcast_one(node, out.got); });
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

// The waits that name no failed node (docs/model.md, "Failed nodes": receives from any
// source, probes, synchronous sends, constructors) are told too, at exact virtual times. On
// cube8 a message of one int takes alpha + beta = 525 + 2 = 527 us.

// A receive from any source on the world, by node 0, while node 1 stops at 2 ms (its first call
// at or after 2 ms, after 2 ms of work) and nodes 2 and 3 send to it at 0 and at 3 ms.
struct AnySourceRun {
  int first = -1, first_from = -1, last = -1;
  double first_at = -1, failed_at = -1, last_at = -1, irecv_at = -1;
  int failed_node = -1, failed_rank = -1, irecv_failed = -1;
  std::string what, irecv_what;
  FailureReport failures;
};

// `perturb`: the schedule perturbation's seed (0: none), which changes the host's timing only.
AnySourceRun any_source_run(Engine engine, std::uint64_t perturb = 0) {
  MachineConfig config = cube8(engine, {{.node = 1, .at = 2e-3}});
  config.perturb_seed = perturb;
  Machine m(std::move(config));
  AnySourceRun out;
  const RunResult r = m.run([&](Node& node) {
    const Comm& c = node.world();
    const int me = c.rank();
    if (me == 1) {
      node.charge_compute(2e-3);
      c.send(std::span<const int>(&me, 1), 0, 0);  // it stops here, at 2 ms
    }
    if (me == 2) c.send(std::span<const int>(&me, 1), 0, 0);
    if (me == 3) {
      node.charge_compute(3e-3);
      c.send(std::span<const int>(&me, 1), 0, 0);
    }
    if (me != 0) return;
    Status status;
    // Node 2's send is reached at 0, before any failure: it matches, and ends at 527 us.
    c.recv_raw(&out.first, sizeof(int), sizeof(int), kAnySource, 0, &status);
    out.first_from = status.source;
    out.first_at = c.now();
    // Posted at 527 us; nothing matches it before node 1 stops at 2 ms: it fails then (node
    // 3's send, reached at 3 ms, comes after).
    try {
      int x = -1;
      c.recv(std::span<int>(&x, 1), kAnySource, 0);
    } catch (const NodeFailedError& e) {
      out.what = e.what();
      out.failed_node = e.failed_node();
      out.failed_rank = e.failed_rank();
      out.failed_at = c.now();
    }
    // Node 3's message, named: 3 ms + 527 us.
    c.recv(std::span<int>(&out.last, 1), 3, 0);
    out.last_at = c.now();
    // Posted after the failure with no message for it: it fails as it is posted.
    int y = -1;
    Request q = c.irecv(std::span<int>(&y, 1), kAnySource, 1);
    try {
      c.wait(q);
    } catch (const NodeFailedError& e) {
      out.irecv_what = e.what();
      out.irecv_failed = e.failed_node();
      out.irecv_at = c.now();
    }
  });
  out.failures = r.failures();
  return out;
}

TEST(Failures, AReceiveFromAnySourceFailsAtTheFirstFailureOfItsCommUnlessAMessageMatched) {
  std::string first_report;
  for (int run = 0; run < 3; ++run) {
    for (Engine engine : {Engine::threads, Engine::fibers}) {
      SCOPED_TRACE(to_string(engine) + " run " + std::to_string(run));
      // The first run as it comes, the others with the host's timing perturbed.
      const AnySourceRun o = any_source_run(engine, static_cast<std::uint64_t>(run) * 7);
      EXPECT_EQ(o.first, 2);
      EXPECT_EQ(o.first_from, 2);
      EXPECT_DOUBLE_EQ(o.first_at, 527e-6);
      EXPECT_EQ(o.what, "node 0: recv from any rank tag 0: node 1 has failed (it stopped at 2 ms; "
                        "the first member of the comm to fail) and no message had matched this "
                        "receive by then");
      EXPECT_EQ(o.failed_node, 1);
      EXPECT_EQ(o.failed_rank, 1);
      EXPECT_DOUBLE_EQ(o.failed_at, 2e-3);
      EXPECT_EQ(o.last, 3);
      EXPECT_DOUBLE_EQ(o.last_at, 3.527e-3);
      EXPECT_THAT(o.irecv_what, HasSubstr("node 0: irecv from any rank tag 1: node 1 has failed"));
      EXPECT_EQ(o.irecv_failed, 1);
      EXPECT_DOUBLE_EQ(o.irecv_at, 3.527e-3);
      ASSERT_EQ(o.failures.affected.size(), 2u) << o.failures.text();
      EXPECT_EQ(o.failures.affected[0].node, 0);
      EXPECT_EQ(o.failures.affected[0].failed, 1);
      EXPECT_EQ(o.failures.affected[0].at_ps, 2'000'000'000);
      EXPECT_EQ(o.failures.affected[0].call, "recv from any rank tag 0");
      EXPECT_EQ(o.failures.affected[1].at_ps, 3'527'000'000);
      EXPECT_FALSE(o.failures.unhandled());
      // The same report, to the picosecond, on every run and under both engines.
      if (first_report.empty()) first_report = o.failures.text();
      EXPECT_EQ(o.failures.text(), first_report);
    }
  }
  EXPECT_THAT(first_report, HasSubstr("node 0: recv from any rank tag 0 failed at 2 ms: node 1 "
                                      "has failed"));
}

TEST(Failures, ASynchronousSendToANodeThatStoppedBeforeItsReceiveFails) {
  // Node 1 stops at 1 ms, at its receive from 0 (after 1 ms of work): it never posts it. Node
  // 0's synchronous send, reached at 0, fails when node 1 stops, at 1 ms; after 1 ms of work,
  // its next one (and an issend's wait) fail at once, at 2 ms. No message is sent.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m(cube8(engine, {{.node = 1, .at = 1e-3}}));
    std::vector<std::string> what;
    std::vector<double> at;
    std::vector<int> failed;
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      int x = 5;
      if (c.rank() == 1) {
        node.charge_compute(1e-3);
        c.recv(std::span<int>(&x, 1), 0, 0);  // it stops here
      }
      if (c.rank() != 0) return;
      auto attempt = [&](auto call) {
        try {
          call();
        } catch (const NodeFailedError& e) {
          what.push_back(e.what());
          failed.push_back(e.failed_node());
          at.push_back(c.now());
        }
      };
      attempt([&] { c.send_raw(&x, sizeof x, 1, 1, 0, SendMode::synchronous); });
      node.charge_compute(1e-3);
      attempt([&] { c.send_raw(&x, sizeof x, 1, 1, 0, SendMode::synchronous); });
      attempt([&] {
        Request q = c.isend_raw(&x, sizeof x, 1, 1, 0, SendMode::synchronous);
        c.wait(q);
      });
    });
    ASSERT_EQ(what.size(), 3u);
    EXPECT_EQ(what[0], "node 0: send to rank 1 tag 0: node 1 has failed (it stopped at 1 ms) "
                       "before a receive took this message");
    EXPECT_THAT(what[2], HasSubstr("node 0: isend to rank 1 tag 0"));
    EXPECT_EQ(failed, (std::vector<int>{1, 1, 1}));
    EXPECT_EQ(at, (std::vector<double>{1e-3, 2e-3, 2e-3}));
    EXPECT_EQ(r.stats().messages, 0u);
    ASSERT_EQ(r.failures().affected.size(), 3u);
    EXPECT_EQ(r.failures().affected[0].at_ps, 1'000'000'000);
    EXPECT_EQ(r.failures().affected[0].call, "send to rank 1 tag 0");
  }
}

TEST(Failures, UnderRendezvousEverySendToANodeThatStoppedBeforeItsReceiveFails) {
  // Rendezvous: a message starts once its receive is posted. Node 1 stops at 1 ms, at its
  // receive from 0 (after 1 ms of work). Node 0's standard send to it, reached at 0, fails at
  // 1 ms; node 0 then exchanges with node 2 (posted at 0): both messages 1 ms to 1.527 ms;
  // its isend to node 1 then fails at once, at 1.527 ms. Node 2 sends to node 3 (posted at 0)
  // from 1.527 to 2.054 ms. Node 3's sendrecv sends to node 1 (failed at 1 ms) and receives
  // node 2's message: it gets the data and fails, at 2.054 ms, naming its send.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    MachineConfig config = cube8(engine, {{.node = 1, .at = 1e-3}});
    config.model.protocol = Protocol::rendezvous;
    Machine m(std::move(config));
    std::vector<std::string> what(4);
    std::vector<std::vector<double>> at(4);
    int from_2 = -1, got_3 = -1;
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      auto attempt = [&](auto call) {
        try {
          call();
        } catch (const NodeFailedError& e) {
          what[me] = e.what();
          at[me].push_back(c.now());
        }
      };
      if (me == 1) {
        int x = -1;
        node.charge_compute(1e-3);
        c.recv(std::span<int>(&x, 1), 0, 0);  // it stops here
      }
      if (me == 0) {
        attempt([&] { c.send(std::span<const int>(&me, 1), 1, 0); });
        c.sendrecv(std::span<const int>(&me, 1), 2, std::span<int>(&from_2, 1), 2, 0);
        attempt([&] {
          Request q = c.isend(std::span<const int>(&me, 1), 1, 0);
          c.wait(q);
        });
      }
      if (me == 2) {
        int x = -1;
        c.sendrecv(std::span<const int>(&me, 1), 0, std::span<int>(&x, 1), 0, 0);
        c.send(std::span<const int>(&me, 1), 3, 1);
      }
      if (me == 3) {
        attempt([&] {
          c.sendrecv_raw(&me, sizeof me, 1, 1, 0, &got_3, sizeof got_3, sizeof got_3, 2, 1,
                         nullptr);
        });
      }
    });
    EXPECT_THAT(what[0], HasSubstr("node 0: isend to rank 1 tag 0: node 1 has failed (it "
                                   "stopped at 1 ms) before a receive took this message"));
    EXPECT_EQ(at[0], (std::vector<double>{1e-3, 1.527e-3}));
    EXPECT_EQ(from_2, 2);
    EXPECT_EQ(what[3], "node 3: sendrecv to rank 1 tag 0: node 1 has failed (it stopped at 1 "
                       "ms) before a receive took this message");
    EXPECT_EQ(at[3], (std::vector<double>{2.054e-3}));
    EXPECT_EQ(got_3, 2);
    EXPECT_EQ(r.stats().messages, 3u);  // 0 to 2, 2 to 0, 2 to 3
    EXPECT_EQ(r.failures().affected.size(), 3u) << r.failures().text();
  }
}

TEST(Failures, AConstructorWithAMemberThatStoppedFailsAndTheLiveMembersGoOn) {
  // Node 3 stops at 1 ms, at its split (after 1 ms of work). Nodes 1 and 2 reach the split at
  // 0 and fail when node 3 stops, at 1 ms; node 0 reaches it after 2 ms of work, and fails at
  // once. A create_group with node 3 fails as it is made; one of the live nodes succeeds,
  // all of them going on at node 0's 2 ms.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m({.nodes = 4, .engine = engine, .failures = {{.node = 3, .at = 1e-3}}});
    std::vector<std::string> split_what(4), group_what(4);
    std::vector<double> split_at(4, -1), group_at(4, -1), live_at(4, -1);
    std::vector<int> live_size(4, -1);
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      if (me == 3) node.charge_compute(1e-3);
      if (me == 0) node.charge_compute(2e-3);
      try {
        c.split(0, me);
      } catch (const NodeFailedError& e) {
        split_what[me] = e.what();
        split_at[me] = c.now();
      }
      const int all[] = {0, 1, 2, 3};
      try {
        c.create_group(all, 7);
      } catch (const NodeFailedError& e) {
        group_what[me] = e.what();
        group_at[me] = c.now();
      }
      const int live[] = {0, 1, 2};
      live_size[me] = c.create_group(live, 8).size();
      live_at[me] = c.now();
    });
    EXPECT_EQ(split_what[1], "node 1: split: node 3 has failed (it stopped at 1 ms) and never "
                             "reached this call of its group");
    EXPECT_EQ(split_at, (std::vector<double>{2e-3, 1e-3, 1e-3, -1}));
    EXPECT_THAT(group_what[2], HasSubstr("node 2: create_group: node 3 has failed"));
    EXPECT_EQ(group_at, (std::vector<double>{2e-3, 1e-3, 1e-3, -1}));
    EXPECT_EQ(live_size, (std::vector<int>{3, 3, 3, -1}));
    EXPECT_EQ(live_at, (std::vector<double>{2e-3, 2e-3, 2e-3, -1}));
    ASSERT_EQ(r.failures().affected.size(), 6u) << r.failures().text();
    EXPECT_EQ(r.failures().affected[0].node, 0);
    EXPECT_EQ(r.failures().affected[0].call, "split");
    EXPECT_EQ(r.failures().affected[0].at_ps, 2'000'000'000);
  }
}

TEST(Failures, ProbesFromAStoppedNodeOrFromAnySourceFail) {
  // Node 1 stops at 1 ms. Node 0's probe from any source finds node 2's message (sent at 0);
  // once it has taken it (at 527 us), a second probe waits, and fails when node 1 stops, at 1
  // ms; an iprobe from node 1 then fails at once, and one from node 2 finds nothing.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m(cube8(engine, {{.node = 1, .at = 1e-3}}));
    Status found;
    std::string probe_what, iprobe_what, mprobe_what;
    double probe_at = -1, iprobe_at = -1, mprobe_at = -1;
    bool from_2 = true;
    m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      if (me == 1) {
        node.charge_compute(1e-3);
        c.send(std::span<const int>(&me, 1), 0, 0);  // it stops here
      }
      if (me == 2) c.send(std::span<const int>(&me, 1), 0, 0);
      if (me != 0) return;
      found = c.probe(kAnySource, 0);
      int x = -1;
      c.recv(std::span<int>(&x, 1), found.source, 0);
      try {
        c.probe(kAnySource, 0);
      } catch (const NodeFailedError& e) {
        probe_what = e.what();
        probe_at = c.now();
      }
      try {
        c.iprobe(1, 0, nullptr);
      } catch (const NodeFailedError& e) {
        iprobe_what = e.what();
        iprobe_at = c.now();
      }
      from_2 = c.iprobe(2, 0, nullptr);
      try {
        c.mprobe(kAnySource, 0, nullptr);
      } catch (const NodeFailedError& e) {
        mprobe_what = e.what();
        mprobe_at = c.now();
      }
    });
    EXPECT_EQ(found.source, 2);
    EXPECT_THAT(probe_what, HasSubstr("node 0: probe from any rank tag 0: node 1 has failed (it "
                                      "stopped at 1 ms; the first member of the comm to fail)"));
    EXPECT_DOUBLE_EQ(probe_at, 1e-3);
    EXPECT_EQ(iprobe_what, "node 0: iprobe from rank 1 tag 0: node 1 has failed (it stopped at "
                           "1 ms) and sent no message for this receive");
    EXPECT_DOUBLE_EQ(iprobe_at, 1e-3);
    EXPECT_FALSE(from_2);
    EXPECT_THAT(mprobe_what, HasSubstr("node 0: mprobe from any rank tag 0: node 1 has failed"));
    EXPECT_DOUBLE_EQ(mprobe_at, 1e-3);
  }
}

TEST(Failures, AReceivePostedBehindOneFromAnySourceFailsAsItWouldAlone) {
  // Node 0 posts an irecv from any source, then one from node 1 (whose match the pass names,
  // as it is posted behind the first). Node 2's message, sent at 0, takes the first (527 us);
  // node 1 stops at 1 ms without sending: the second fails then, and so does a wait_any on it.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m(cube8(engine, {{.node = 1, .at = 1e-3}}));
    int a = -1, b = -1;
    double a_at = -1, b_at = -1;
    std::string what;
    m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      if (me == 1) {
        node.charge_compute(1e-3);
        c.send(std::span<const int>(&me, 1), 0, 0);  // it stops here
      }
      if (me == 2) c.send(std::span<const int>(&me, 1), 0, 0);
      if (me != 0) return;
      Request rs[2] = {c.irecv(std::span<int>(&a, 1), kAnySource, 0),
                       c.irecv(std::span<int>(&b, 1), 1, 0)};
      c.wait(rs[0]);
      a_at = c.now();
      try {
        c.wait_any(rs);
      } catch (const NodeFailedError& e) {
        what = e.what();
        b_at = c.now();
      }
    });
    EXPECT_EQ(a, 2);
    EXPECT_DOUBLE_EQ(a_at, 527e-6);
    EXPECT_EQ(b, -1);
    EXPECT_THAT(what, HasSubstr("node 0: irecv from rank 1 tag 0: node 1 has failed (it stopped "
                                "at 1 ms) and sent no message for this receive"));
    EXPECT_DOUBLE_EQ(b_at, 1e-3);
  }
}

TEST(Failures, AMachineWithoutFailuresRunsAfterOneWith) {
  Machine failing(cube8(Engine::automatic, {{.node = 2, .at = 1e-3}}));
  broadcast_with(failing);
  Machine healthy(cube8(Engine::automatic, {}));
  std::vector<int> got(8, -1);
  const RunResult r = healthy.run([&](Node& node) { broadcast_one(node, got); });
  EXPECT_EQ(got, std::vector<int>(8, 42));
  EXPECT_TRUE(r.failures().empty());
}

// The error of making a machine of `config`, or "accepted".
std::string machine_refuses(MachineConfig config) {
  try {
    Machine m(std::move(config));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "accepted";
}

// parse_failures' error for `text`, or "accepted".
std::string refused(const std::string& text) {
  try {
    parse_failures(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Failures, BadSpecsAreRefusedNamingTheProblem) {
  EXPECT_EQ(parse_failures("node:3@2ms,node:5@0").nodes,
            (std::vector<NodeFailure>{{.node = 3, .at = 2e-3}, {.node = 5, .at = 0}}));
  EXPECT_THAT(refused("node:3"), HasSubstr("names no time"));
  EXPECT_THAT(refused("node:x@1ms"), HasSubstr("\"x\" is not a node number"));
  EXPECT_THAT(refused("node:3@-1ms"), HasSubstr("negative"));
  EXPECT_THAT(refused("node:3@1"), HasSubstr("the time \"1\" has no unit"));
  EXPECT_EQ(parse_failures("node:3@0").nodes.at(0).at, 0.0);  // 0 needs none
  EXPECT_THAT(refused("node:3@1ms,node:3@2ms"), HasSubstr("node 3 is given twice"));
  EXPECT_THAT(refused("node:3@1ms,"), HasSubstr("empty item"));
  EXPECT_THAT(refused("rack:1@0"), HasSubstr("expected node:K@TIME"));
  EXPECT_EQ(describe_failures(parse_failures("node:3@2ms,node:5@0").nodes), "node:3@2ms,node:5@0");

  EXPECT_THAT(machine_refuses({.nodes = 4, .failures = {{.node = 4, .at = 0}}}),
              HasSubstr("node 4 is not a node of this machine of 4 nodes"));
  EXPECT_THAT(machine_refuses({.nodes = 4, .clock = Clock::real_time,
                               .failures = {{.node = 1, .at = 0}}}),
              HasSubstr("virtual clock only"));
  EXPECT_EQ(machine_refuses({.nodes = 4,
                             .model = {.protocol = Protocol::rendezvous},
                             .failures = {{.node = 1, .at = 0}}}),
            "accepted");
}

// Random failures (MachineConfig::random_failures, --fail random:...).

// The run's failure report, whether the run threw it or returned it ("" when nothing failed).
FailureReport broadcast_report(Machine& m) {
  std::vector<int> got(m.size(), -1);
  try {
    return m.run([&](Node& node) { broadcast_one(node, got); }).failures();
  } catch (const RunError& e) {
    return e.failures();
  }
}

MachineConfig cube8_random(Engine engine, RandomFailures random) {
  MachineConfig c = cube8(engine, {});
  c.random_failures = random;
  return c;
}

TEST(RandomFailures, TheDrawDependsOnTheSpecAlone) {
  const RandomFailures one{.count = 1, .before = 5e-3, .seed = 7};
  EXPECT_EQ(draw_failures(one, 8), draw_failures(one, 8));
  // Different seeds differ: over 20 seeds, more than one draw.
  std::set<std::pair<int, double>> draws;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto d = draw_failures({.count = 1, .before = 5e-3, .seed = seed}, 8);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_GE(d[0].node, 0);
    EXPECT_LT(d[0].node, 8);
    EXPECT_GE(d[0].at, 0);
    EXPECT_LT(d[0].at, 5e-3);
    EXPECT_EQ(to_picos(d[0].at) % 1000, 0) << "whole nanoseconds";
    draws.insert({d[0].node, d[0].at});
  }
  EXPECT_GT(draws.size(), 10u);
  // count=K: K distinct nodes, none of those given failures of their own, in order of time.
  const std::vector<NodeFailure> given{{.node = 3, .at = 0}};
  const auto seven = draw_failures({.count = 7, .before = 1e-3, .seed = 2}, 8, given);
  std::set<int> nodes;
  for (std::size_t i = 0; i < seven.size(); ++i) {
    nodes.insert(seven[i].node);
    if (i > 0) {
      EXPECT_LE(seven[i - 1].at, seven[i].at);
    }
  }
  EXPECT_EQ(nodes, (std::set<int>{0, 1, 2, 4, 5, 6, 7}));
  EXPECT_THROW(draw_failures({.count = 8, .before = 1e-3, .seed = 2}, 8, given),
               std::invalid_argument);
  // rate=R: every node once, at a mean time of 1/R; before=T keeps the draws before T.
  const auto all = draw_failures({.rate = 1000, .seed = 5}, 4096);
  ASSERT_EQ(all.size(), 4096u);
  double sum = 0;
  for (const NodeFailure& f : all) sum += f.at;
  EXPECT_NEAR(sum / 4096, 1e-3, 0.1e-3);
  const auto early = draw_failures({.rate = 1000, .before = 1e-3, .seed = 5}, 4096);
  std::size_t below = 0;
  for (const NodeFailure& f : all) below += f.at < 1e-3 ? 1 : 0;
  EXPECT_EQ(early.size(), below);
  for (const NodeFailure& f : early) EXPECT_LT(f.at, 1e-3);
}

TEST(RandomFailures, TheSameSeedGivesTheSameReportOnEveryRunAndBothEnginesAndReplays) {
  int failed_runs = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const RandomFailures random{.count = 1, .before = 1.2e-3, .seed = seed};
    std::string first;
    for (Engine engine : {Engine::threads, Engine::fibers}) {
      Machine m(cube8_random(engine, random));
      ASSERT_EQ(m.failures(), draw_failures(random, 8));
      for (int run = 0; run < 2; ++run) {
        const FailureReport r = broadcast_report(m);
        EXPECT_EQ(r.drawn, describe(random) + " drew " + describe_failures(m.failures()));
        if (first.empty()) first = r.text();
        EXPECT_EQ(r.text(), first);
      }
    }
    // The drawn failures as node: items give the same report, less the draw's line.
    const std::string replay = describe_failures(draw_failures(random, 8));
    Machine explicit_failures(cube8(Engine::automatic, parse_failures(replay).nodes));
    const FailureReport r = broadcast_report(explicit_failures);
    EXPECT_EQ(r.drawn, "");
    const std::size_t line = first.find('\n');
    EXPECT_EQ(r.text(), line == std::string::npos ? "" : first.substr(line + 1));
    if (!r.stopped.empty()) ++failed_runs;
  }
  EXPECT_GT(failed_runs, 0) << "no seed's failure stopped a node: the test compared nothing";
}

TEST(RandomFailures, TheDocumentedDrawLosesNode4AndItsSubtree) {
  // docs/model.md, "Random failures": the draw is the same on every platform, and replays.
  const FailureSpec spec = parse_failures("random:count=1,before=1.5ms,seed=8");
  Machine m(cube8_random(Engine::automatic, *spec.random));
  EXPECT_EQ(describe_failures(m.failures()), "node:4@435.071us");
  const FailureReport r = broadcast_report(m);
  EXPECT_EQ(r.drawn, "random:count=1,before=1.5ms,seed=8 drew node:4@435.071us");
  std::set<int> stopped;
  for (const auto& s : r.stopped) stopped.insert(s.node);
  std::set<int> lost = subtree_below(4, 8);
  lost.insert(4);
  EXPECT_EQ(stopped, lost);
  ASSERT_FALSE(r.stopped.empty());
  EXPECT_EQ(r.stopped[0].at_ps, 527'000'000);
}

TEST(RandomFailures, SpecsReadBackAndBadOnesAreRefused) {
  const FailureSpec both = parse_failures("node:3@1ms,random:count=2,before=4.5ms,seed=9");
  EXPECT_EQ(both.nodes, (std::vector<NodeFailure>{{.node = 3, .at = 1e-3}}));
  ASSERT_TRUE(both.random);
  EXPECT_EQ(both.random->count, 2);
  EXPECT_EQ(to_picos(both.random->before), 4'500'000'000);
  EXPECT_EQ(both.random->seed, 9u);
  EXPECT_EQ(describe(*both.random), "random:count=2,before=4.5ms,seed=9");
  // Back to the picosecond (times are compared as picoseconds: 4.5 * 1e-3 need not be 4.5e-3).
  const RandomFailures rate{.rate = 250.5, .before = 2.25e-3, .seed = 1};
  EXPECT_EQ(describe(*parse_failures(describe(rate)).random), "random:rate=250.5,before=2.25ms,seed=1");
  EXPECT_EQ(parse_failures("random:seed=1,rate=3,node:2@0").nodes.size(), 1u);
  // Times back to the picosecond.
  const std::vector<NodeFailure> odd{{.node = 1, .at = 3.217456e-3}, {.node = 2, .at = 7e-12},
                                     {.node = 4, .at = 2.5}};
  EXPECT_EQ(describe_failures(odd), "node:1@3.217456ms,node:2@7ps,node:4@2.5s");
  EXPECT_EQ(describe_failures(parse_failures(describe_failures(odd)).nodes), describe_failures(odd));

  EXPECT_THAT(refused("random:count=1,seed=3"), HasSubstr("count=K needs before=TIME"));
  EXPECT_THAT(refused("random:before=1ms,seed=3"), HasSubstr("give either count=K"));
  EXPECT_THAT(refused("random:count=1,rate=2,before=1ms,seed=3"), HasSubstr("give either"));
  EXPECT_THAT(refused("random:count=0,before=1ms,seed=3"), HasSubstr("at least 1"));
  EXPECT_THAT(refused("random:rate=-1,seed=3"), HasSubstr("not a rate above 0"));
  EXPECT_THAT(refused("random:count=1,before=1ms"), HasSubstr("give seed=S"));
  EXPECT_THAT(refused("random:count=1,before=1ms,seed=1,seed=2"), HasSubstr("seed: is given twice"));
  EXPECT_THAT(refused("random:count=1,before=1ms,seed=x"), HasSubstr("\"x\" is not a whole"));
  EXPECT_THAT(refused("random:count=1,before=0,seed=1"), HasSubstr("at least 1ns"));
  EXPECT_THAT(refused("random:count=1,before=2,seed=1"), HasSubstr("has no unit"));
  EXPECT_THAT(refused("random:count=1,before=1ms,seed=1,colour=red"),
              HasSubstr("\"colour=red\" is not understood"));
  EXPECT_THAT(refused("random:rate=1,seed=1,random:rate=2,seed=2"), HasSubstr("given twice"));

  try {
    Machine m(cube8_random(Engine::automatic, {.count = 9, .before = 1e-3, .seed = 1}));
    ADD_FAILURE() << "a machine of 8 nodes drew 9";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("asks for 9 nodes, and the machine has 8"));
  }
}

// --- failed links (MachineConfig::link_failures; docs/model.md, "Failed links") -------------

MachineConfig cube8_links(Engine engine, std::vector<LinkFailure> links) {
  MachineConfig c = cube8(engine, {});
  c.link_failures = std::move(links);
  return c;
}

TEST(FailedLinks, ABroadcastLosesExactlyTheSubtreeBelowTheLostMessage) {
  // link:0-4@0: node 0's first send (to 4, at 0) is lost and completes at its start; 4's
  // receive takes the marker and fails at 0, 4 stops, and 6 and 5 (then 7) need it. Node 0
  // sends to 2 at 0 (ends 527 us) and to 1 (ends 1.054 ms); 2 sends to 3 (ends 1.054 ms).
  std::string first;
  for (int run = 0; run < 3; ++run) {
    for (Engine engine : {Engine::threads, Engine::fibers}) {
      SCOPED_TRACE(to_string(engine) + " run " + std::to_string(run));
      Machine m(cube8_links(engine, {{.a = 0, .b = 4, .at = 0}}));
      const Outcome o = broadcast_with(m);
      EXPECT_EQ(o.kind, RunError::Kind::node_failed);
      for (int r = 0; r < 8; ++r) EXPECT_EQ(o.got[r], r < 4 ? 42 : -1) << "node " << r;
      const FailureReport& f = o.failures;
      ASSERT_EQ(f.links.size(), 1u) << o.report;
      EXPECT_EQ(f.links[0].a, 0);
      EXPECT_EQ(f.links[0].b, 4);
      EXPECT_EQ(f.links[0].at_ps, 0);
      EXPECT_EQ(f.links[0].lost, 1);
      ASSERT_EQ(f.lost.size(), 1u);
      EXPECT_EQ(f.lost[0].sender, 0);
      EXPECT_EQ(f.lost[0].receiver, 4);
      EXPECT_EQ(f.lost[0].sent_ps, 0);
      EXPECT_EQ(f.lost[0].link, 0);
      ASSERT_EQ(f.stopped.size(), 4u);
      EXPECT_EQ(f.stopped[0].node, 4);
      EXPECT_EQ(f.stopped[0].cause, -1);
      EXPECT_EQ(f.stopped[0].cause_link, 0);
      EXPECT_EQ(f.stopped[0].at_ps, 0);
      for (std::size_t k = 1; k < 4; ++k) {
        EXPECT_EQ(f.stopped[k].node, static_cast<int>(k) + 4);
        EXPECT_EQ(f.stopped[k].cause, k == 3 ? 6 : 4);
        EXPECT_EQ(f.stopped[k].at_ps, 0);
      }
      ASSERT_EQ(f.affected.size(), 4u);
      EXPECT_EQ(f.affected[0].node, 4);
      EXPECT_EQ(f.affected[0].link, 0);
      EXPECT_EQ(f.affected[0].failed, -1);
      EXPECT_EQ(f.affected[0].at_ps, 0);
      EXPECT_THAT(o.report, HasSubstr("link 0-4 down at 0 s rerouted none, lost 1 message\n"
                                      "message lost: node 0 to node 4 tag 0 of collective call 0, "
                                      "sent at 0 s, on link 0-4\n"
                                      "node 4 stopped at 0 s (it ended on the error of a receive "
                                      "whose message was lost on link 0-4)"));
      EXPECT_THAT(o.report, HasSubstr("node 4: recv from rank 0 tag 0 of collective call 0 failed "
                                      "at 0 s: the message was lost on link 0-4"));
      // Three messages delivered (0 to 2 and 1, 2 to 3); the lost one holds nothing.
      ASSERT_NE(o.result, nullptr);
      EXPECT_EQ(o.result->stats().messages, 3u);
      EXPECT_EQ(o.result->trace().messages.size(), 3u);
      EXPECT_EQ(o.result->time_ps(), 1'054'000'000);
      EXPECT_EQ(o.result->stats().node_time[0], 1'054'000'000);
      EXPECT_EQ(o.result->stats().node_time[3], 1'054'000'000);
      if (first.empty()) first = o.report;
      EXPECT_EQ(o.report, first);
    }
  }
}

TEST(FailedLinks, ALinkDownAfterItsLastMessageLosesNothing) {
  // Node 0's send to 4 is the only message of the broadcast whose route crosses 0-4 (e-cube:
  // 0 to 2 and 0 to 1 cross 0-2 and 0-1; 4 to 6 and 5 start at 4): sent at 0, it arrives.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m(cube8_links(engine, {{.a = 4, .b = 0, .at = 1e-9}}));
    std::vector<int> got(8, -1);
    const RunResult r = m.run([&](Node& node) { broadcast_one(node, got); });
    EXPECT_EQ(got, std::vector<int>(8, 42));
    EXPECT_TRUE(r.failures().empty());
    ASSERT_EQ(r.failures().links.size(), 1u);
    EXPECT_EQ(r.failures().links[0].lost, 0);
    EXPECT_EQ(r.failures().text(), "link 4-0 down at 1 ns rerouted none, lost none");
    EXPECT_EQ(r.time_ps(), 1'581'000'000);
    EXPECT_EQ(r.stats().messages, 7u);
  }
}

TEST(FailedLinks, UnderFixedRoutesAMessageIsLostWhereverItsRouteCrossesTheLink) {
  // mesh:4x4 routes x first: 0 -> 5 crosses 0-1 and then 1-5. With link:1-5@0.5ms and
  // --fail-routes fixed node 0's message, sent at 1 ms, is lost though neither end is 0; node
  // 4's, sent at 0 over 4-5, arrives at 527 us. Node 5 catches the error at 1 ms, receives 4's
  // message and answers 4: 4 has it at 1.527 ms, the later times as if the lost message had
  // never been sent.
  const auto mesh = parse_topology("mesh:4x4");
  const std::vector<LinkId> route = mesh->route(0, 5);
  ASSERT_EQ(route.size(), 2u);
  EXPECT_EQ(mesh->link(route[0]).to, 1);
  EXPECT_EQ(mesh->link(route[1]).to, 5);
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m({.topology = mesh,
               .model = {.alpha = 525e-6, .beta = 2e-6},
               .engine = engine,
               .link_failures = {{.a = 1, .b = 5, .at = 0.5e-3}},
               .fail_routes = FailRoutes::fixed});
    std::string what;
    double failed_at = -1;
    int from_4 = -1, answer = -1, peer = -1;
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      const int seven = 7;
      if (c.rank() == 0) {
        node.charge_compute(1e-3);
        c.send(std::span<const int>(&seven, 1), 5, 3);
      } else if (c.rank() == 4) {
        c.send(std::span<const int>(&seven, 1), 5, 4);
        c.recv(std::span<int>(&answer, 1), 5, 5);
      } else if (c.rank() == 5) {
        int x = -1;
        try {
          c.recv(std::span<int>(&x, 1), 0, 3);
        } catch (const LinkFailedError& e) {
          what = e.what();
          failed_at = c.now();
          peer = e.peer_node();
          EXPECT_EQ(e.link_a(), 1);
          EXPECT_EQ(e.link_b(), 5);
        }
        c.recv(std::span<int>(&from_4, 1), 4, 4);
        c.send(std::span<const int>(&from_4, 1), 4, 5);
      }
    });
    EXPECT_EQ(what, "node 5: recv from rank 0 tag 3: the message was lost on link 1-5, down "
                    "since 500 us");
    EXPECT_DOUBLE_EQ(failed_at, 1e-3);
    EXPECT_EQ(peer, 0);
    EXPECT_EQ(from_4, 7);
    EXPECT_EQ(answer, 7);
    EXPECT_EQ(r.stats().node_time[0], 1'000'000'000);  // the lost send: at its start
    EXPECT_EQ(r.stats().node_time[4], 1'527'000'000);
    EXPECT_EQ(r.stats().node_time[5], 1'527'000'000);
    EXPECT_EQ(r.stats().messages, 2u);
    EXPECT_FALSE(r.failures().unhandled());
    ASSERT_EQ(r.failures().lost.size(), 1u);
    EXPECT_EQ(r.failures().lost[0].sent_ps, 1'000'000'000);
    ASSERT_EQ(r.failures().affected.size(), 1u);
    EXPECT_EQ(r.failures().affected[0].at_ps, 1'000'000'000);
    EXPECT_TRUE(r.failures().stopped.empty());
    EXPECT_EQ(r.failures().text().substr(0, 33), "link 1-5 down at 500 us lost 1 me");
  }
}

// --- routing around failed links (FailRoutes::around, the default) ---------------------------

// The links of a route as the nodes it enters: {4, 5} for 0-4-5.
std::vector<int> path_of(const Topology& t, const std::vector<LinkId>& route) {
  std::vector<int> nodes;
  for (const LinkId l : route) nodes.push_back(t.link(l).to);
  return nodes;
}

// One message of one int from `from` to `to` at `at` seconds on `spec`, with `down` failed at
// 0, alpha 525 us and beta 2 us (a message of one item: 527 us per hop); the trace keeps its
// route.
struct OneMessage {
  RunResult result;
  int got = -1;
  std::string error;
};
OneMessage one_message(const std::string& spec, int from, int to, std::vector<LinkFailure> down,
                       Engine engine, Routing routing = Routing::wormhole) {
  Machine m({.topology = parse_topology(spec),
             .model = {.alpha = 525e-6, .beta = 2e-6, .routing = routing},
             .trace = true,
             .engine = engine,
             .link_failures = std::move(down)});
  OneMessage out;
  out.result = m.run([&](Node& node) {
    const Comm& c = node.world();
    const int seven = 7;
    if (c.rank() == from) c.send(std::span<const int>(&seven, 1), to, 0);
    if (c.rank() != to) return;
    try {
      c.recv(std::span<int>(&out.got, 1), from, 0);
    } catch (const LinkFailedError& e) {
      out.error = e.what();
    }
  });
  return out;
}

TEST(FailedLinks, AMessageRoutesAroundTheLinkInAnotherDimensionOrder) {
  // mesh:4x4 routes x first: 0 -> 5 crosses 0-1 and 1-5. With link:1-5@0 it goes y first,
  // 0-4-5, and arrives: under wormhole routing a message costs alpha + n beta whatever its
  // hops, 525 + 2 = 527 us; under store and forward each of its 2 hops does, 2 x 527 = 1054 us.
  // The report counts it; the trace (and so vmc show) has its route.
  const auto mesh = parse_topology("mesh:4x4");
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    const OneMessage w = one_message("mesh:4x4", 0, 5, {{.a = 1, .b = 5, .at = 0}}, engine);
    EXPECT_EQ(w.got, 7) << w.error;
    EXPECT_EQ(w.result.time_ps(), 527'000'000);
    ASSERT_EQ(w.result.trace().messages.size(), 1u);
    EXPECT_EQ(path_of(*mesh, w.result.trace().messages[0].links), (std::vector<int>{4, 5}));
    const FailureReport& f = w.result.failures();
    ASSERT_EQ(f.links.size(), 1u);
    EXPECT_EQ(f.links[0].rerouted, 1);
    EXPECT_EQ(f.links[0].lost, 0);
    EXPECT_TRUE(f.empty());
    EXPECT_EQ(f.text(), "link 1-5 down at 0 s rerouted 1 message, lost none");
    const OneMessage s = one_message("mesh:4x4", 0, 5, {{.a = 1, .b = 5, .at = 0}}, engine,
                                     Routing::store_and_forward);
    EXPECT_EQ(s.got, 7);
    EXPECT_EQ(s.result.time_ps(), 1'054'000'000);
    // A message between neighbours on an open line has no other route: 0 -> 4 over 0-4.
    const OneMessage lost = one_message("mesh:4x4", 0, 4, {{.a = 0, .b = 4, .at = 0}}, engine);
    EXPECT_EQ(lost.got, -1);
    EXPECT_EQ(lost.error, "node 4: recv from rank 0 tag 0: the message was lost on link 0-4, "
                          "down since 0 s");
    EXPECT_EQ(lost.result.failures().text().substr(0, 48),
              "link 0-4 down at 0 s rerouted none, lost 1 messa");
  }
}

TEST(FailedLinks, ADetourWaitsForTheLinksOfItsNewRoute) {
  // all ports, exclusive links: node 4 sends 100 items to 5 at 0 over 4-5 (525 + 200 = 725 us);
  // node 0 sends one to 5 at 1 us, around the failed 1-5 by 0-4-5, and waits for link 4-5
  // until 725 us: it ends at 725 + 527 = 1252 us, having waited 724 us. Its own route 0-1-5
  // would have shared nothing with 4's message.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m({.topology = parse_topology("mesh:4x4"),
               .model = {.alpha = 525e-6, .beta = 2e-6, .port = Port::all},
               .trace = true,
               .engine = engine,
               .link_failures = {{.a = 1, .b = 5, .at = 0}}});
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> data(100, 1);
      if (c.rank() == 4) c.send(std::span<const int>(data), 5, 0);
      if (c.rank() == 0) {
        node.charge_compute(1e-6);
        c.send(std::span<const int>(data.data(), 1), 5, 1);
      }
      if (c.rank() == 5) {
        c.recv(std::span<int>(data), 4, 0);
        c.recv(std::span<int>(data.data(), 1), 0, 1);
      }
    });
    EXPECT_EQ(r.stats().node_time[0], 1'252'000'000);
    EXPECT_EQ(r.time_ps(), 1'252'000'000);
    EXPECT_EQ(r.stats().token_wait, 724'000'000);
    EXPECT_EQ(r.stats().contention_delay, 724'000'000);
    // Links that hold no one up (the contention-free replay, on the same detour): 0's message
    // ends at 528 us, and node 5 takes 4's at 725 us.
    EXPECT_EQ(r.stats().free_time, 725'000'000);
    EXPECT_EQ(r.failures().links.at(0).rerouted, 1);
  }
}

TEST(FailedLinks, OnARingTheMessageGoesTheOtherWayRound) {
  // torus:4x4: 0 -> 1 with 0-1 down goes 0-3-2-1, the longer way (three hops: 527 us under
  // wormhole, 3 x 527 = 1581 us under store and forward); 0 -> 2 (two hops either way, 0-1-2
  // on the tie) with 1-2 down goes 0-3-2, as short.
  const auto torus = parse_topology("torus:4x4");
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    const OneMessage w = one_message("torus:4x4", 0, 1, {{.a = 0, .b = 1, .at = 0}}, engine);
    EXPECT_EQ(w.got, 7) << w.error;
    EXPECT_EQ(w.result.time_ps(), 527'000'000);
    ASSERT_EQ(w.result.trace().messages.size(), 1u);
    EXPECT_EQ(path_of(*torus, w.result.trace().messages[0].links), (std::vector<int>{3, 2, 1}));
    const OneMessage s = one_message("torus:4x4", 0, 1, {{.a = 0, .b = 1, .at = 0}}, engine,
                                     Routing::store_and_forward);
    EXPECT_EQ(s.result.time_ps(), 1'581'000'000);
    const OneMessage tie = one_message("torus:4x4", 0, 2, {{.a = 2, .b = 1, .at = 0}}, engine,
                                       Routing::store_and_forward);
    EXPECT_EQ(tie.got, 7);
    EXPECT_EQ(tie.result.time_ps(), 1'054'000'000);
    EXPECT_EQ(path_of(*torus, tie.result.trace().messages.at(0).links), (std::vector<int>{3, 2}));
  }
}

TEST(FailedLinks, AHypercubeTakesAnotherMinimalRouteWhereOneExists) {
  // hypercube:8, e-cube: 0 -> 3 goes 0-1-3; with 0-1 down, 0-2-3. 0 -> 7 with 0-1 and 0-2
  // down: bits 0 and 1 are closed at 0, so 4 first, then 0 and 1: 0-4-5-7. Store and forward:
  // 2 x 527 and 3 x 527 us. 0 -> 1 with 0-1 down (distance 1) has no other minimal route: lost.
  const auto cube = parse_topology("hypercube:8");
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    const OneMessage two = one_message("hypercube:8", 0, 3, {{.a = 0, .b = 1, .at = 0}}, engine,
                                       Routing::store_and_forward);
    EXPECT_EQ(two.got, 7) << two.error;
    EXPECT_EQ(two.result.time_ps(), 1'054'000'000);
    EXPECT_EQ(path_of(*cube, two.result.trace().messages.at(0).links), (std::vector<int>{2, 3}));
    const OneMessage three =
        one_message("hypercube:8", 0, 7, {{.a = 0, .b = 1, .at = 0}, {.a = 2, .b = 0, .at = 0}},
                    engine, Routing::store_and_forward);
    EXPECT_EQ(three.got, 7) << three.error;
    EXPECT_EQ(three.result.time_ps(), 1'581'000'000);
    EXPECT_EQ(path_of(*cube, three.result.trace().messages.at(0).links),
              (std::vector<int>{4, 5, 7}));
    // Counted on the link down first on its own route, 0-1 (the first of those down at once).
    EXPECT_EQ(three.result.failures().text(),
              "link 0-1 down at 0 s rerouted 1 message, lost none\n"
              "link 2-0 down at 0 s rerouted none, lost none");
    const OneMessage lost = one_message("hypercube:8", 0, 1, {{.a = 0, .b = 1, .at = 0}}, engine);
    EXPECT_EQ(lost.got, -1);
    EXPECT_EQ(lost.result.failures().links.at(0).lost, 1);
    // With all three of 0's links down nothing leaves it.
    const OneMessage cut = one_message(
        "hypercube:8", 0, 7,
        {{.a = 0, .b = 1, .at = 0}, {.a = 0, .b = 2, .at = 0}, {.a = 0, .b = 4, .at = 0}}, engine);
    EXPECT_EQ(cut.got, -1);
    EXPECT_THAT(cut.error, HasSubstr("lost on link 0-1"));
  }
}

TEST(FailedLinks, ATreeHasOneRouteAndLosesTheMessage) {
  // tree:8: node 0 reaches node 1 through their switch; with the link between 0 and that
  // switch down there is no other route.
  const auto tree = parse_topology("tree:8");
  const std::vector<LinkId> route = tree->route(0, 1);
  ASSERT_EQ(route.size(), 2u);
  const int sw = tree->link(route[0]).to;
  ASSERT_GE(sw, 8);
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    const OneMessage lost = one_message("tree:8", 0, 1, {{.a = 0, .b = sw, .at = 0}}, engine);
    EXPECT_EQ(lost.got, -1);
    EXPECT_EQ(lost.error, "node 1: recv from rank 0 tag 0: the message was lost on link 0-" +
                              std::to_string(sw) + ", down since 0 s");
    EXPECT_EQ(lost.result.failures().links.at(0).lost, 1);
    EXPECT_EQ(lost.result.failures().links.at(0).rerouted, 0);
  }
}

TEST(FailedLinks, DirectRoutingHasNoOtherRoute) {
  // --routing direct: a message goes straight from its sender to its receiver; one between
  // the link's ends is lost, whatever the topology would allow, and the report reads as under
  // fixed routes.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    const OneMessage lost = one_message("torus:4x4", 0, 1, {{.a = 0, .b = 1, .at = 0}}, engine,
                                        Routing::direct);
    EXPECT_EQ(lost.got, -1);
    EXPECT_EQ(lost.result.failures().text().substr(0, 33), "link 0-1 down at 0 s lost 1 messa");
  }
}

TEST(FailedLinks, ABroadcastWhoseMessagesAllRerouteSucceedsWithTheSameReportEveryRun) {
  // torus:4x4, binomial broadcast of one item from 0: 0 -> 8 (0-4-8), then 0 -> 4 and 8 -> 12,
  // then 0 -> 2 (0-1-2 on the tie), 4 -> 6, 8 -> 10, 12 -> 14, then the odd ones. With 1-2
  // down 0 -> 2 goes 0-3-2: four steps of 527 us, 2.108 ms, as without the failure (no
  // message of its step uses 0-3 or 3-2). Under fixed routes it is lost, and nodes 2 and 3
  // with it.
  std::string first;
  for (int run = 0; run < 3; ++run) {
    for (Engine engine : {Engine::threads, Engine::fibers}) {
      SCOPED_TRACE(to_string(engine) + " run " + std::to_string(run));
      Machine m({.topology = parse_topology("torus:4x4"),
                 .model = {.alpha = 525e-6, .beta = 2e-6},
                 .engine = engine,
                 .link_failures = {{.a = 1, .b = 2, .at = 0}}});
      std::vector<int> got(16, -1);
      const RunResult r = m.run([&](Node& node) { broadcast_one(node, got); });
      EXPECT_EQ(got, std::vector<int>(16, 42));
      EXPECT_EQ(r.time_ps(), 2'108'000'000);
      EXPECT_EQ(r.failures().text(), "link 1-2 down at 0 s rerouted 1 message, lost none");
      if (first.empty()) first = r.failures().text();
      EXPECT_EQ(r.failures().text(), first);
    }
  }
  Machine fixed({.topology = parse_topology("torus:4x4"),
                 .model = {.alpha = 525e-6, .beta = 2e-6},
                 .link_failures = {{.a = 1, .b = 2, .at = 0}},
                 .fail_routes = FailRoutes::fixed});
  const Outcome o = broadcast_with(fixed);
  std::set<int> stopped;
  for (const auto& x : o.failures.stopped) stopped.insert(x.node);
  EXPECT_EQ(stopped, (std::set<int>{2, 3}));
}

TEST(FailedLinks, BlockingWormsDoNotRouteAround) {
  // Worms that hold their links, on routes of several dimension orders, can wait in a cycle.
  MachineConfig c = cube8_links(Engine::automatic, {{.a = 0, .b = 1, .at = 0}});
  c.model.worm = Worm::blocking;
  EXPECT_THAT(machine_refuses(c), HasSubstr("routing around failed links with --worm blocking "
                                            "is not supported"));
  c.fail_routes = FailRoutes::fixed;
  EXPECT_NO_THROW(Machine{c});
  EXPECT_EQ(to_string(FailRoutes::fixed), "fixed");
  EXPECT_EQ(parse_fail_routes("around"), FailRoutes::around);
  EXPECT_THROW(parse_fail_routes("adaptive"), std::invalid_argument);
}

TEST(FailedLinks, AReceiveFromAnySourceTakesTheMarkerAndTheMachineIsReusable) {
  // link:0-1@0: node 1's message to 0 (sent at 0) is lost; node 2's, sent after 1 ms of work,
  // arrives at 1.527 ms. Node 0's receive from any source takes the marker first (its send
  // was reached first) and fails at 0; the next one takes node 2's message.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m(cube8_links(engine, {{.a = 0, .b = 1, .at = 0}}));
    std::string what;
    int lost_from = -1, got = -1;
    Status status;
    double failed_at = -1, got_at = -1;
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      if (me == 1) c.send(std::span<const int>(&me, 1), 0, 0);
      if (me == 2) {
        node.charge_compute(1e-3);
        c.send(std::span<const int>(&me, 1), 0, 0);
      }
      if (me != 0) return;
      try {
        c.recv(std::span<int>(&got, 1), kAnySource, 0);
      } catch (const LinkFailedError& e) {
        what = e.what();
        lost_from = e.peer_node();
        failed_at = c.now();
      }
      c.recv_raw(&got, sizeof got, sizeof got, kAnySource, 0, &status);
      got_at = c.now();
    });
    EXPECT_EQ(what, "node 0: recv from any rank tag 0: the message was lost on link 0-1, down "
                    "since 0 s");
    EXPECT_EQ(lost_from, 1);
    EXPECT_DOUBLE_EQ(failed_at, 0);
    EXPECT_EQ(got, 2);
    EXPECT_EQ(status.source, 2);
    EXPECT_DOUBLE_EQ(got_at, 1.527e-3);
    EXPECT_EQ(r.time_ps(), 1'527'000'000);
    // The machine after: a run that sends nothing over 0-1 succeeds, and loses nothing.
    std::vector<int> left(8, -1);
    const RunResult again = m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank(), partner = me ^ 2;
      c.sendrecv(std::span<const int>(&me, 1), partner, std::span<int>(&left[me], 1), partner, 0);
    });
    for (int n = 0; n < 8; ++n) EXPECT_EQ(left[n], n ^ 2);
    EXPECT_TRUE(again.failures().empty());
    EXPECT_EQ(again.failures().links.at(0).lost, 0);
    EXPECT_EQ(again.time_ps(), 527'000'000);
  }
}

TEST(FailedLinks, ASynchronousSendLearnsOfTheLossWhenItsReceiveMatches) {
  // Node 1 sends synchronously to 0 over the failed 0-1; node 0 posts its receive after 1 ms
  // of work. The receive fails at 1 ms, and so does the send, when its receive matched.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    Machine m(cube8_links(engine, {{.a = 0, .b = 1, .at = 0}}));
    std::string send_error, recv_error;
    double send_at = -1, recv_at = -1;
    m.run([&](Node& node) {
      const Comm& c = node.world();
      int x = 5;
      try {
        if (c.rank() == 1) c.send_raw(&x, sizeof x, 1, 0, 0, SendMode::synchronous);
        if (c.rank() == 0) {
          node.charge_compute(1e-3);
          c.recv(std::span<int>(&x, 1), 1, 0);
        }
      } catch (const LinkFailedError& e) {
        (c.rank() == 1 ? send_error : recv_error) = e.what();
        (c.rank() == 1 ? send_at : recv_at) = c.now();
      }
    });
    EXPECT_EQ(send_error, "node 1: send to rank 0 tag 0: the message was lost on link 0-1, "
                          "down since 0 s");
    EXPECT_THAT(recv_error, HasSubstr("node 0: recv from rank 1 tag 0: the message was lost"));
    EXPECT_DOUBLE_EQ(send_at, 1e-3);
    EXPECT_DOUBLE_EQ(recv_at, 1e-3);
  }
}

TEST(FailedLinks, BadSpecsAreRefusedNamingTheProblem) {
  EXPECT_EQ(parse_failures("link:3-7@1ms,node:2@0,link:0-1@0").links,
            (std::vector<LinkFailure>{{.a = 3, .b = 7, .at = 1e-3}, {.a = 0, .b = 1, .at = 0}}));
  EXPECT_EQ(describe_failures(parse_failures("link:3-7@1.5ms,link:0-1@0").links),
            "link:3-7@1.5ms,link:0-1@0");
  EXPECT_THAT(refused("link:3-7"), HasSubstr("names no time"));
  EXPECT_THAT(refused("link:3@1ms"), HasSubstr("names no link"));
  EXPECT_THAT(refused("link:3-x@1ms"), HasSubstr("\"x\" is not a node number"));
  EXPECT_THAT(refused("link:3-3@1ms"), HasSubstr("a link joins two nodes"));
  EXPECT_THAT(refused("link:3-7@-1ms"), HasSubstr("negative"));
  EXPECT_THAT(refused("link:3-7@2"), HasSubstr("the time \"2\" has no unit"));
  EXPECT_THAT(refused("link:3-7@1ms,link:7-3@2ms"), HasSubstr("link 7-3 is given twice"));

  auto cube = [](LinkFailure f) { return cube8_links(Engine::automatic, {f}); };
  EXPECT_THAT(machine_refuses(cube({.a = 0, .b = 3, .at = 0})),
              HasSubstr("link 0-3: nodes 0 and 3 are not neighbours on hypercube:8"));
  EXPECT_THAT(machine_refuses(cube({.a = 0, .b = 9, .at = 0})),
              HasSubstr("link 0-9: node 9 is not a node of this machine (hypercube:8, 8 nodes)"));
  EXPECT_THAT(machine_refuses(cube({.a = 0, .b = 1, .at = -1e-3})),
              HasSubstr("link 0-1: the time must be from 0"));
  MachineConfig rendezvous = cube({.a = 0, .b = 1, .at = 0});
  rendezvous.model.protocol = Protocol::rendezvous;
  EXPECT_THAT(machine_refuses(rendezvous),
              HasSubstr("failed links under the rendezvous protocol are not supported"));
  MachineConfig real = cube({.a = 0, .b = 1, .at = 0});
  real.clock = Clock::real_time;
  EXPECT_THAT(machine_refuses(real), HasSubstr("links fail on the local transport on the "
                                               "virtual clock only"));
}

}  // namespace
}  // namespace vmc
