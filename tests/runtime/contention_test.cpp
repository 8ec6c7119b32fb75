// The time lost to contention (Stats::contention_delay and friends), held exactly on
// hand-computed cases, and the monotonicity that holds: adding links to wait for never makes
// a contention-free schedule that has no waits faster (see simulator.cpp, "Monotonicity").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/registry.hpp"
#include "runtime/machine.hpp"
#include "tools/runner.hpp"
#include "tests/sanitized.hpp"

namespace vmc {
namespace {

constexpr double kAlpha = 525e-6, kBeta = 2e-6;

// 004 Fig. 1(b) on mesh:4x3 (node = x + 4y): A = 0 -> 6 goes (0,0)(1,0)(2,0)(2,1) and
// B = 1 -> 3 goes (1,0)(2,0)(3,0); both need the link (1,0) -> (2,0).
RunResult figure_1b(Routing routing, Contention contention, std::size_t n) {
  Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::duplex, .routing = routing,
              .contention = contention};
  Machine m({.topology = parse_topology("mesh:4x3"), .model = model});
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(n, 1);
    if (c.rank() == 0) c.send(std::span<const int>(data), 6, 0);
    if (c.rank() == 1) c.send(std::span<const int>(data), 3, 0);
    if (c.rank() == 6) c.recv(std::span<int>(data), 0, 0);
    if (c.rank() == 3) c.recv(std::span<int>(data), 1, 0);
  });
}

const MessageEvent& message_from(const RunResult& r, int src) {
  for (const MessageEvent& e : r.trace().messages) {
    if (e.src == src) return e;
  }
  throw std::logic_error("no message from node " + std::to_string(src));
}

TEST(Contention, Figure1bExclusiveCountsTheLinkWait) {
  const std::size_t n = 1000;
  const CostUnits u(Model{.alpha = kAlpha, .beta = kBeta});
  const Picos one = u.message(n);
  auto r = figure_1b(Routing::wormhole, Contention::exclusive, n);
  // A goes first (lower sender rank); B waits `one` for the link, then takes `one`.
  EXPECT_EQ(message_from(r, 0).contention_delay, 0);
  EXPECT_EQ(message_from(r, 1).contention_delay, one);
  EXPECT_EQ(r.stats().contention_delay, one);
  EXPECT_EQ(r.stats().max_message_delay, one);
  EXPECT_EQ(r.stats().token_wait, one);
  // Without contention both end at `one`: the run is `one` longer because of it.
  EXPECT_EQ(r.stats().free_time, one);
  EXPECT_EQ(r.stats().contention_critical_delay, one);
  ASSERT_FALSE(r.stats().link_peak.empty());
  EXPECT_EQ(*std::max_element(r.stats().link_peak.begin(), r.stats().link_peak.end()), 1);
}

TEST(Contention, Figure1bSharedCountsTheStretch) {
  const std::size_t n = 1000;
  const CostUnits u(Model{.alpha = kAlpha, .beta = kBeta});
  const Picos one = u.message(n);
  const Picos nbeta = static_cast<Picos>(n) * u.beta;
  auto r = figure_1b(Routing::wormhole, Contention::shared, n);
  // Both start at 0 and share the link for their whole n beta part: each ends at
  // alpha + 2 n beta, n beta later than alone. Nobody waits for a token.
  EXPECT_EQ(r.stats().token_wait, 0);
  EXPECT_EQ(message_from(r, 0).contention_delay, nbeta);
  EXPECT_EQ(message_from(r, 1).contention_delay, nbeta);
  EXPECT_EQ(r.stats().contention_delay, 2 * nbeta);
  EXPECT_EQ(r.stats().max_message_delay, nbeta);
  EXPECT_EQ(r.stats().free_time, one);
  EXPECT_EQ(r.stats().contention_critical_delay, nbeta);
  // The shared link carried two messages at once; the others one.
  const auto& peak = r.stats().link_peak;
  EXPECT_EQ(std::count(peak.begin(), peak.end(), 2), 1);
  const LinkId shared = parse_topology("mesh:4x3")->link_between(1, 2);
  EXPECT_EQ(peak.at(shared), 2);
}

TEST(Contention, DirectRoutingHasNoDelay) {
  for (Contention c : {Contention::exclusive, Contention::shared}) {
    auto r = figure_1b(Routing::direct, c, 1000);
    EXPECT_EQ(r.stats().contention_delay, 0);
    EXPECT_EQ(r.stats().contention_critical_delay, 0);
    EXPECT_EQ(r.stats().free_time, r.stats().time);
    EXPECT_TRUE(r.stats().link_peak.empty());
  }
}

// Two senders to one receiver under duplex ports: the second waits for the receiver's
// in-port. That is the port model (the algorithm's schedule), not contention.
TEST(Contention, PortWaitsAreNotContention) {
  for (Routing routing : {Routing::direct, Routing::wormhole}) {
    Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::duplex, .routing = routing};
    Machine m({.topology = parse_topology("mesh:3x1"), .model = model});
    const CostUnits u(model);
    auto r = m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> data(100, 1);
      if (c.rank() == 0) c.send(std::span<const int>(data), 1, 0);
      if (c.rank() == 2) c.send(std::span<const int>(data), 1, 0);
      if (c.rank() == 1) {
        c.recv(std::span<int>(data), 0, 0);
        c.recv(std::span<int>(data), 2, 0);
      }
    });
    EXPECT_EQ(r.stats().token_wait, u.message(100));
    EXPECT_EQ(r.stats().contention_delay, 0);
    EXPECT_EQ(r.stats().contention_critical_delay, 0);
  }
}

// Store and forward: a message waits for a link at its second hop; that wait is contention.
TEST(Contention, StoreAndForwardCountsHopWaits) {
  Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::all,
              .routing = Routing::store_and_forward};
  Machine m({.topology = parse_topology("mesh:3x1"), .model = model});
  const CostUnits u(model);
  const Picos short_hop = u.message(10), long_hop = u.message(30);
  auto r = m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(30, 1);
    std::span<const int> all(data), ten = all.first(10);
    // 0 -> 1 over [0, s]; then 0 -> 2 crosses 0->1 over [s, 2s] and wants 1->2 at 2s.
    // 1 -> 2 (30 items) is requested at s, when node 1 has its message, and holds 1->2
    // over [s, s + l]: 0 -> 2 waits l - s for it, then takes [s + l, 2s + l].
    if (c.rank() == 0) {
      c.send(ten, 1, 5);
      c.send(ten, 2, 0);
    }
    if (c.rank() == 1) {
      c.recv(std::span<int>(data), 0, 5);
      c.send(all, 2, 1);
    }
    if (c.rank() == 2) {
      c.recv(std::span<int>(data), 0, 0);
      c.recv(std::span<int>(data), 1, 1);
    }
  });
  EXPECT_EQ(r.stats().time, 2 * short_hop + long_hop);
  EXPECT_EQ(message_from(r, 0).contention_delay, 0);  // the first message of node 0: 0 -> 1
  EXPECT_EQ(r.stats().contention_delay, long_hop - short_hop);
  EXPECT_EQ(r.stats().token_wait, long_hop - short_hop);
  EXPECT_EQ(r.stats().free_time, 3 * short_hop);
  EXPECT_EQ(r.stats().contention_critical_delay, long_hop - short_hop);
}

// The real clock measures the contention delay from the link waits, on 004 Fig. 1(b) under
// exclusive links: A = 0 -> 6 and B = 1 -> 3 both need the link (1,0) -> (2,0). Every run,
// whatever the host's schedule, is held to what the tokens guarantee: the link carried one
// message at a time (the later one started when the earlier had ended), a message's delay is
// at most the time it waited, only the later one can have waited for the link, and the
// statistics sum the delays. That the later sender found the link held is not up to any
// program: a link is freed by its holder's timer, never by an event a program can wait for,
// so a host that does not run the second sender's thread for alpha (50 ms) lets it find the
// link free. The run is therefore repeated until a wait was counted (almost always the first
// run), not given up after a few tries; 400 runs that never count a wait (20 s of link time)
// mean the real clock does not count link waits.
TEST(Contention, RealClockCountsLinkWaits) {
  const double alpha = 50e-3;
  Model model{.alpha = alpha, .port = Port::duplex, .routing = Routing::wormhole};
  Machine m({.topology = parse_topology("mesh:4x3"), .model = model, .clock = Clock::real_time});
  bool waited = false;
  int runs = 0;
  for (; runs < 400 && !waited; ++runs) {
    auto r = m.run([&](Node& node) {
      const Comm& c = node.world();
      int x = 0;
      if (c.rank() == 0) c.send(std::span<const int>(&x, 1), 6, 0);
      if (c.rank() == 1) c.send(std::span<const int>(&x, 1), 3, 0);
      if (c.rank() == 6) c.recv(std::span<int>(&x, 1), 0, 0);
      if (c.rank() == 3) c.recv(std::span<int>(&x, 1), 1, 0);
    });
    const std::vector<MessageEvent>& messages = r.trace().messages;
    ASSERT_EQ(messages.size(), 2u);
    const bool a_first = messages[0].start <= messages[1].start;
    const MessageEvent& first = a_first ? messages[0] : messages[1];
    const MessageEvent& second = a_first ? messages[1] : messages[0];
    EXPECT_GE(second.start, first.end) << "the link carried two messages at once";
    EXPECT_EQ(first.contention_delay, 0) << "the first message on the link waited for it";
    Picos sum = 0;
    for (const MessageEvent& e : messages) {
      EXPECT_LE(e.contention_delay, e.waited);
      EXPECT_GE(e.contention_delay, 0);
      sum += e.contention_delay;
    }
    EXPECT_EQ(r.stats().contention_delay, sum);
    EXPECT_EQ(r.stats().contention_critical_delay, 0);  // not measured on the real clock
    waited = second.contention_delay > 0;
  }
  EXPECT_TRUE(waited) << runs << " runs and no link wait counted";
  if (waited) std::printf("a link wait was counted in run %d\n", runs);
}

// --- collectives -------------------------------------------------------------------------

RunResult run_op(const std::string& topology, const Model& model, Operation op,
                 const std::string& algorithm, std::size_t n) {
  Machine m({.topology = parse_topology(topology), .model = model, .trace = false});
  cli::RunSpec spec;
  spec.op = op;
  spec.algorithm = algorithm;
  spec.n = n;
  return cli::run_collective(m, spec).result;
}

// docs/model.md's example of contention delay: a recursive doubling allreduce on mesh:8x8
// under shared links takes about twice its contention-free time, and says so.
TEST(Contention, SharedMeshAllreduceReportsItsDelay) {
  Model model{.alpha = kAlpha, .beta = kBeta, .gamma = 0.35e-6, .port = Port::duplex,
              .contention = Contention::shared};
  RunResult r = run_op("mesh:8x8", model, Operation::allreduce, "recursive_doubling", 65536);
  EXPECT_EQ(r.stats().token_wait, 0);
  EXPECT_GT(to_seconds(r.stats().contention_delay), 0.9);
  model.routing = Routing::direct;
  RunResult direct = run_op("mesh:8x8", model, Operation::allreduce, "recursive_doubling", 65536);
  EXPECT_EQ(r.stats().free_time, direct.stats().time);
  EXPECT_EQ(r.stats().contention_critical_delay, r.stats().time - direct.stats().time);
  EXPECT_GT(to_seconds(r.stats().contention_critical_delay), 0.9);
}

// Monotonicity. When the contention-free schedule (direct routing) has no waits at all,
// every message starts at the moment it becomes possible, and taking links (exclusive) or
// sharing them (shared) can only delay starts and stretch durations: no node finishes
// earlier. Under rendezvous with duplex or all-port nodes, and eager with all-port nodes,
// the contention-free schedule never waits, so the property holds for every program.
struct Config {
  Port port;
  Protocol protocol;
  bool never_waits;  // the contention-free schedule has no waits by construction
};

TEST(Contention, LinksNeverSpeedUpAScheduleWithoutWaits) {
  std::vector<Config> configs = {{Port::all, Protocol::eager, true},
                                 {Port::duplex, Protocol::rendezvous, true},
                                 {Port::all, Protocol::rendezvous, true},
                                 {Port::duplex, Protocol::eager, false},
                                 {Port::exchange, Protocol::rendezvous, false}};
  // Under AddressSanitizer or ThreadSanitizer (10,000 runs cost minutes there) one
  // network, one length and two of the configurations.
  constexpr bool sanitized = testing::kSanitized;  // tests/sanitized.hpp
  if (sanitized) configs.resize(2);
  const std::vector<std::string> topologies =
      sanitized ? std::vector<std::string>{"mesh:3x4"}
                : std::vector<std::string>{"mesh:3x4", "ring:7", "hypercube:6"};
  const std::vector<std::size_t> lengths =
      sanitized ? std::vector<std::size_t>{300} : std::vector<std::size_t>{1, 300};
  int checked = 0;
  for (const std::string& topology : topologies) {
    const int p = parse_topology(topology)->nodes();
    for (Operation op : all_operations()) {
      for (const Algorithm& a : algorithms(op)) {
        // The _optimal rows of 004's hybrid families pick their member by the machine's
        // routes (the sharing on each link), so the direct and the wormhole run may run
        // different schedules; the property is about one schedule.
        if (a.members != nullptr) continue;
        for (std::size_t n : lengths) {
          for (const Config& cfg : configs) {
            Model model{.alpha = kAlpha, .beta = kBeta, .gamma = 0.35e-6, .port = cfg.port,
                        .routing = Routing::direct, .protocol = cfg.protocol};
            RunResult free;
            try {
              free = run_op(topology, model, op, a.name, n);
            } catch (const std::invalid_argument&) {
              continue;  // not applicable here (p, counts)
            }
            const std::string what = to_string(op) + " " + a.name + " on " + topology +
                                     ", n " + std::to_string(n) + ", " +
                                     to_string(cfg.port) + ", " + to_string(cfg.protocol);
            if (cfg.never_waits) {
              EXPECT_EQ(free.stats().token_wait, 0) << what;
            }
            if (free.stats().token_wait != 0) continue;
            for (Contention c : {Contention::exclusive, Contention::shared}) {
              model.routing = Routing::wormhole;
              model.contention = c;
              RunResult r = run_op(topology, model, op, a.name, n);
              EXPECT_EQ(r.stats().free_time, free.stats().time) << what;
              EXPECT_GE(r.stats().contention_critical_delay, 0) << what;
              for (int node = 0; node < p; ++node) {
                EXPECT_GE(r.stats().node_time[node], free.stats().node_time[node])
                    << what << ", " << to_string(c) << ", node " << node;
              }
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, sanitized ? 30 : 300);
}

// The contention-free replay is forked from the run's pass the first time links hold a request
// up, or the pass meets a query (runtime/simulator.cpp, fork_replay). Figure 1(b)'s messages
// A = 0 -> 6 sent `rounds` times, and B = 1 -> 3 (which shares a link with A) only once node
// 0's token reaches node 1 late in the run; with `query`, node 6 reads its clock half way,
// before any contention. The pass run beside the nodes at every operation (stream_every "1")
// and the one after the run ("0") give the same times, and the replay's is the time of the
// same program with direct routing (no links at all).
RunResult late_contention(const char* stream_every, bool query,
                          Routing routing = Routing::wormhole) {
  constexpr int rounds = 120, late = 100;
  ::setenv("VMC_STREAM_EVERY", stream_every, 1);
  struct Unset {
    ~Unset() { ::unsetenv("VMC_STREAM_EVERY"); }
  } unset;
  Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::duplex, .routing = routing};
  Machine m({.topology = parse_topology("mesh:4x3"), .model = model});
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(100, 1);
    for (int k = 0; k < rounds; ++k) {
      if (c.rank() == 0 && k == late) c.send(std::span<const int>(data), 1, rounds);
      if (c.rank() == 0) c.send(std::span<const int>(data), 6, k);
      if (c.rank() == 6) c.recv(std::span<int>(data), 0, k);
      if (c.rank() == 6 && query && k == late / 2) (void)c.now();
    }
    if (c.rank() == 1) {
      c.recv(std::span<int>(data), 0, rounds);
      for (int k = 0; k < rounds - late; ++k) c.send(std::span<const int>(data), 3, k);
    }
    if (c.rank() == 3) {
      for (int k = 0; k < rounds - late; ++k) c.recv(std::span<int>(data), 1, k);
    }
  });
}

TEST(Contention, TheReplayForkedFromThePassGivesTheTimesOfOneAfterTheRun) {
  for (const bool query : {false, true}) {
    const RunResult beside = late_contention("1", query);
    const RunResult after = late_contention("0", query);
    const RunResult direct = late_contention("1", query, Routing::direct);
    const Stats& a = beside.stats();
    const Stats& b = after.stats();
    EXPECT_GT(a.contention_critical_delay, 0) << "query " << query;
    EXPECT_EQ(a.time, b.time) << "query " << query;
    EXPECT_EQ(a.free_time, b.free_time) << "query " << query;
    EXPECT_EQ(a.free_time, direct.stats().time) << "query " << query;
    EXPECT_EQ(a.contention_critical_delay, b.contention_critical_delay) << "query " << query;
    EXPECT_EQ(a.contention_delay, b.contention_delay) << "query " << query;
    EXPECT_EQ(a.token_wait, b.token_wait) << "query " << query;
    EXPECT_EQ(a.node_time, b.node_time) << "query " << query;
  }
}

// Two runs of one call on machines that differ only in what the pass measures: the same
// times, messages, bytes, contention delays and token waits.
void expect_same_run(const Stats& a, const Stats& b, const std::string& what) {
  EXPECT_EQ(a.time, b.time) << what;
  EXPECT_EQ(a.node_time, b.node_time) << what;
  EXPECT_EQ(a.messages, b.messages) << what;
  EXPECT_EQ(a.bytes, b.bytes) << what;
  EXPECT_EQ(a.contention_delay, b.contention_delay) << what;
  EXPECT_EQ(a.token_wait, b.token_wait) << what;
}

// MachineConfig::contention_share off (selection's private runs): the run is simulated once,
// with the same time, statistics and node times; only contention's share of the time, which
// the second pass measures, is not measured (0). On both exclusive and shared links, with the
// pass after the run and streamed beside it.
TEST(Contention, WithoutItsShareARunHasTheSameTimeAndStatistics) {
  for (const Contention contention : {Contention::exclusive, Contention::shared}) {
    for (const char* stream_every : {"0", "1"}) {
      ::setenv("VMC_STREAM_EVERY", stream_every, 1);
      struct Unset {
        ~Unset() { ::unsetenv("VMC_STREAM_EVERY"); }
      } unset;
      const std::string what =
          std::string(contention == Contention::shared ? "shared" : "exclusive") +
          ", streamed every " + stream_every;
      const Model model{.alpha = kAlpha, .beta = kBeta, .gamma = 0.35e-6, .port = Port::duplex,
                        .contention = contention};
      cli::RunSpec spec{.op = Operation::allreduce, .algorithm = "recursive_doubling", .n = 1000};
      Machine with({.topology = parse_topology("mesh:4x4"), .model = model, .trace = false});
      Machine without({.topology = parse_topology("mesh:4x4"), .model = model, .trace = false,
                       .contention_share = false});
      const Stats a = cli::run_collective(with, spec).result.stats();
      const Stats b = cli::run_collective(without, spec).result.stats();
      EXPECT_GT(a.contention_critical_delay, 0) << what;  // the replay mattered
      EXPECT_EQ(b.contention_critical_delay, 0) << what;
      EXPECT_EQ(b.free_time, 0) << what;
      expect_same_run(a, b, what);
      EXPECT_EQ(a.combined_items, b.combined_items) << what;
    }
  }
}

// MachineConfig::count_link_waiters off (selection's private runs): the pass stops looking at
// a waiting request's route at its first held link; Stats::max_link_waiters is then 0, and the
// times and every other statistic are the run's with the count, under atomic and blocking
// worms.
TEST(Contention, NotCountingLinkWaitersChangesNoTime) {
  for (const Worm worm : {Worm::atomic, Worm::blocking}) {
    const std::string what = worm == Worm::blocking ? "blocking" : "atomic";
    const Model model{.alpha = kAlpha, .beta = kBeta, .gamma = 0.35e-6, .worm = worm};
    cli::RunSpec spec{.op = Operation::alltoall, .algorithm = "pairwise_xor", .n = 100};
    Machine with({.topology = parse_topology("array:16"), .model = model, .trace = false});
    Machine without({.topology = parse_topology("array:16"), .model = model, .trace = false,
                     .count_link_waiters = false});
    const Stats a = cli::run_collective(with, spec).result.stats();
    const Stats b = cli::run_collective(without, spec).result.stats();
    EXPECT_GT(a.max_link_waiters, 0) << what;  // requests waited for links: the count ran
    EXPECT_EQ(b.max_link_waiters, 0) << what;
    expect_same_run(a, b, what);
    EXPECT_EQ(a.link_busy, b.link_busy) << what;
    EXPECT_EQ(a.contention_critical_delay, b.contention_critical_delay) << what;
  }
}

// Machine::run_within: a run whose time is at most the limit is the whole run; one whose
// time passes it is stopped (empty), whether its pass ran after it or was streamed beside it
// and had passed the limit already; the machine runs whole runs after either.
TEST(Contention, ARunWithinALimitStopsOnlyPastIt) {
  for (const char* stream_every : {"0", "1"}) {
    ::setenv("VMC_STREAM_EVERY", stream_every, 1);
    struct Unset {
      ~Unset() { ::unsetenv("VMC_STREAM_EVERY"); }
    } unset;
    const Model model{.alpha = kAlpha, .beta = kBeta, .gamma = 0.35e-6};
    Machine m({.topology = parse_topology("mesh:4x4"), .model = model, .trace = false,
               .contention_share = false});
    const auto body = [](Node& node) {
      std::vector<float> x(500, 1.0f);
      for (int k = 0; k < 3; ++k) {
        allreduce(node.world(), std::span(x), ops::sum<float>(),
                  Options{.algorithm = "recursive_doubling"});
      }
    };
    const RunResult whole = m.run(body);
    const Picos t = whole.time_ps();
    ASSERT_GT(t, 0);
    const std::optional<RunResult> at = m.run_within(t, body);
    ASSERT_TRUE(at.has_value()) << stream_every;
    EXPECT_EQ(at->time_ps(), t) << stream_every;
    EXPECT_EQ(at->stats().messages, whole.stats().messages) << stream_every;
    EXPECT_EQ(at->stats().node_time, whole.stats().node_time) << stream_every;
    EXPECT_FALSE(m.run_within(t - 1, body).has_value()) << stream_every;
    EXPECT_FALSE(m.run_within(t / 3, body).has_value()) << stream_every;
    EXPECT_EQ(m.run(body).time_ps(), t) << stream_every;  // usable, and unlimited again
  }
}

// What the property does not cover: with eager sends under duplex ports, a message the
// receiver has not asked for yet may hold its in-port while the one it waits for queues
// behind it; the grant order of such waits depends on timing, and (as in Graham's list
// scheduling anomalies) slowing some messages down can give a better order. docs/model.md's
// case ("Monotonicity"): shared links make this allreduce faster than direct routing. Under rendezvous
// the same program is monotone, and direct routing equals the cost formula.
TEST(Contention, EagerPortWaitsAllowAnAnomaly) {
  Model model{.alpha = kAlpha, .beta = kBeta, .gamma = 0.35e-6, .port = Port::duplex,
              .contention = Contention::shared};
  auto time = [&](Routing routing, Protocol protocol) {
    model.routing = routing;
    model.protocol = protocol;
    return run_op("mesh:7x11", model, Operation::allreduce, "recursive_halving_doubling", 16)
        .stats();
  };
  const Stats eager = time(Routing::wormhole, Protocol::eager);
  const Stats eager_direct = time(Routing::direct, Protocol::eager);
  EXPECT_GT(eager_direct.token_wait, 0);            // the free schedule waits for ports
  EXPECT_LT(eager.time, eager_direct.time);         // the anomaly
  EXPECT_LT(eager.contention_critical_delay, 0);    // reported as it is
  EXPECT_GT(eager.contention_delay, 0);             // though messages were slowed down
  const Stats rendezvous = time(Routing::wormhole, Protocol::rendezvous);
  const Stats rendezvous_direct = time(Routing::direct, Protocol::rendezvous);
  EXPECT_EQ(rendezvous_direct.token_wait, 0);
  EXPECT_GE(rendezvous.time, rendezvous_direct.time);
}

// Every algorithm completes, correctly, under rendezvous (no pair of nodes that both send
// before they receive), on every port model.
TEST(Protocol, EveryAlgorithmCompletesUnderRendezvous) {
  int ran = 0;
  for (int p : {1, 2, 3, 5, 8, 12}) {
    for (Port port : {Port::exchange, Port::duplex, Port::half, Port::all}) {
      Model model{.alpha = kAlpha, .beta = kBeta, .gamma = 0.35e-6, .port = port,
                  .protocol = Protocol::rendezvous};
      Machine m({.topology = parse_topology("hypercube:" + std::to_string(p)), .model = model,
                 .trace = false});
      for (Operation op : all_operations()) {
        for (const Algorithm& a : algorithms(op)) {
          cli::RunSpec spec;
          spec.op = op;
          spec.algorithm = a.name;
          spec.n = 7;
          spec.root = p - 1;
          spec.check = true;
          try {
            auto out = cli::run_collective(m, spec);
            EXPECT_TRUE(out.correct.value_or(false))
                << to_string(op) << " " << a.name << " p " << p << " " << to_string(port);
            ++ran;
          } catch (const std::invalid_argument&) {
            // not applicable
          } catch (const std::exception& e) {
            ADD_FAILURE() << to_string(op) << " " << a.name << " p " << p << " "
                          << to_string(port) << ": " << e.what();
          }
        }
      }
    }
  }
  EXPECT_GT(ran, 500);
}

}  // namespace
}  // namespace vmc
