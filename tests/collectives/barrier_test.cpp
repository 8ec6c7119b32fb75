// barrier: no node leaves before the last one of its group entered, for every algorithm, on
// the whole machine and on sub-groups. On the virtual clock through the times: nodes enter
// at different times, and every node's exit is at least the latest entry of its group. On
// any clock and engine through the order of events: every node counts itself in before the
// barrier and reads the count after it, which must be its whole group (a barrier that
// returns at once reads less). Bad input to the combine-family collectives ends the run with
// an error naming the node, never a hang.
#include <algorithm>
#include <atomic>
#include <vector>

#include "tests/collectives/sweep.hpp"

namespace vmc::testing {
namespace {

// How long node r of p computes before it enters: 1 ms to p ms, a different time for every
// rank, the longest for rank `last`.
double entry_delay(int r, int p, int last) {
  const int order = (r - last - 1 + 2 * p) % p;  // `last` gets p - 1
  return 1e-3 * (1 + order);
}

// Runs `split` (a node whose comm is not valid takes no part), each node's delay, then the
// barrier of `alg` on the comm; returns each node's time at the barrier's entry (the same
// program without the barrier: virtual time is deterministic) and at its exit.
template <class Split>
std::pair<std::vector<Picos>, std::vector<Picos>> entries_and_exits(Machine& m,
                                                                     const std::string& alg,
                                                                     int last, Split split) {
  const int p = m.size();
  auto program = [&](bool with_barrier) {
    return [&, with_barrier](Node& node) {
      Comm c = split(node);
      if (!c.valid()) return;
      node.charge_compute(entry_delay(node.rank(), p, last));
      if (with_barrier) barrier(c, {.algorithm = alg});
    };
  };
  const RunResult entered = m.run(program(false));
  const RunResult left = m.run(program(true));
  return {entered.stats().node_time, left.stats().node_time};
}

TEST(Barrier, NobodyLeavesBeforeTheLastOneEntered) {
  for (Port port : {Port::exchange, Port::duplex, Port::half, Port::all}) {
    for (int p : sweep_sizes()) {
      auto m = machine("full:" + std::to_string(p), model(port));
      for (const std::string& alg : algorithm_names(Operation::barrier)) {
        for (int last : {0, p / 2, p - 1}) {
          const auto [entry, leave] =
              entries_and_exits(*m, alg, last, [](const Node& node) { return node.world(); });
          const Picos latest = *std::max_element(entry.begin(), entry.end());
          ASSERT_EQ(latest, entry[last]);
          for (int i = 0; i < p; ++i) {
            EXPECT_GE(leave[i], latest) << alg << " " << to_string(port) << " p=" << p
                                       << " node " << i << " (last in: node " << last << ")";
          }
        }
      }
    }
  }
}

TEST(Barrier, NobodyLeavesBeforeTheLastOneOfItsGroupEntered) {
  const int p = 12;
  auto m = machine("full:12", model(Port::duplex));
  for (const SubGroup& g : sub_groups()) {
    for (const std::string& alg : algorithm_names(Operation::barrier)) {
      for (int last : {0, 5, 11}) {
        const auto [entry, leave] = entries_and_exits(
            *m, alg, last, [&](const Node& node) { return split(node, g); });
        for (int i = 0; i < p; ++i) {
          const int color = g.color(i, p);
          if (color < 0) continue;
          Picos latest = 0;
          for (int j = 0; j < p; ++j) {
            if (g.color(j, p) == color) latest = std::max(latest, entry[j]);
          }
          EXPECT_GE(leave[i], latest) << g.name << " " << alg << " node " << i
                                     << " (last in: node " << last << ")";
        }
      }
    }
  }
}

// Every node adds itself to its group's count before the barrier and reads the count after
// it: the whole group, on the virtual clock (fibers and threads) and on the real clock with
// the node threads paused at random before every runtime call.
TEST(Barrier, EveryNodeOfTheGroupEnteredBeforeAnyLeaves) {
  std::vector<MachineConfig> configs;
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    configs.push_back({.nodes = 13, .model = model(Port::exchange), .engine = engine});
  }
  configs.push_back({.nodes = 13, .model = model(Port::duplex), .clock = Clock::real_time,
                     .perturb_seed = 25, .perturb_max_seconds = 200e-6});
  configs.push_back({.nodes = 13, .model = model(Port::all), .clock = Clock::real_time,
                     .perturb_seed = 7, .perturb_max_seconds = 200e-6});
  std::vector<SubGroup> groups = sub_groups();
  groups.insert(groups.begin(), {"world", [](int, int) { return 0; }, [](int r, int) { return r; }});
  for (MachineConfig& config : configs) {
    config.trace = false;
    config.watchdog_seconds = 60;
    Machine m(config);
    const int p = m.size();
    for (const SubGroup& g : groups) {
      for (const std::string& alg : algorithm_names(Operation::barrier)) {
        std::vector<std::atomic<int>> entered(p);  // by color
        std::vector<int> seen(p, -1), size(p, -1);
        m.run([&](Node& node) {
          Comm c = split(node, g);
          if (!c.valid()) return;
          const int color = g.color(node.rank(), p);
          entered[color].fetch_add(1, std::memory_order_seq_cst);
          barrier(c, {.algorithm = alg});
          seen[node.rank()] = entered[color].load(std::memory_order_seq_cst);
          size[node.rank()] = c.size();
        });
        for (int i = 0; i < p; ++i) {
          EXPECT_EQ(seen[i], size[i]) << g.name << " " << alg << " node " << i << " on the "
                                      << to_string(config.clock) << " clock";
        }
      }
    }
  }
}

// --- bad input ------------------------------------------------------------------------------

TEST(BadInput, EndsTheRunWithAnErrorNamingTheNode) {
  auto m = machine("full:6");
  const Op sum = ops::sum<int>();
  std::vector<int> x(10, 1), y(10);
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(4);
    broadcast(n.world(), std::span(a), 6);
  }, "root out of range");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(4);
    broadcast(n.world(), std::span(a), n.rank() == 3 ? 1 : 0);
  }, "roots differ");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(n.rank() == 2 ? 5 : 4), b(a.size());
    allreduce(n.world(), std::span<const int>(a), std::span(b), sum);
  }, "counts differ");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1), b(n.rank() == 4 ? 7 : 8);
    allreduce(n.world(), std::span<const int>(a), std::span(b), sum);
  }, "receive buffer too small");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1), b(n.rank() == 0 ? 3 : 8);
    reduce(n.world(), std::span<const int>(a), std::span(b), sum, 0);
  }, "reduce receive buffer too small at the root");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1);
    scan(n.world(), std::span<const int>(a.data(), 6), std::span(a.data() + 2, 6), sum);
  }, "aliased buffers");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1);
    if (n.rank() == 1) scan(n.world(), std::span(a), sum);
    else exscan(n.world(), std::span(a), sum);
  }, "different collectives");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1);
    allreduce(n.world(), std::span(a), n.rank() == 5 ? ops::max<int>() : sum);
  }, "different ops");
  expect_error_naming_node(*m, [&](Node& n) {
    // A loop repeats its call (dispatch remembers its row) until one node changes its op.
    std::vector<int> a(8, 1);
    for (int k = 0; k < 6; ++k) {
      allreduce(n.world(), std::span(a), k == 5 && n.rank() == 2 ? ops::max<int>() : sum);
    }
  }, "different ops in a repeated call", {"collective call 5", "op max", "node 2"});
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<double> a(8, 1);
    allreduce(n.world(), std::span(a), sum);  // a 4-byte op on 8-byte items
  }, "op item size");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<Mat3> a(3);
    allreduce(n.world(), std::span(a), matmul(), {.algorithm = "ring"});
  }, "ring with a non-commutative op");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(3);
    scan(n.world(), std::span(a), sum, {.algorithm = "hypercube"});  // p = 6
  }, "hypercube scan on 6 nodes");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(3);
    reduce(n.world(), std::span(a), sum, 0, {.algorithm = "no_such_algorithm"});
  }, "unknown algorithm");
  expect_error_naming_node(*m, [&](Node& n) {
    if (n.rank() != 2) barrier(n.world());
  }, "a node skips the barrier");
  // The machine is usable after all of this.
  EXPECT_EQ(run_error(*m, [&](Node& n) { barrier(n.world()); }), "");
}

// The members compare a call's signature in one of a few slots by call number
// (CommGroup::signature_slots). A broadcast's root, whose sends never block, runs on one
// worker until it blocks, so it opens more calls than the slots hold before the others compare
// the first; the later calls wait elsewhere, each still compared and run as the others.
TEST(BadInput, ARootFarAheadOfTheOthersHasEveryCallCompared) {
  MachineConfig config;
  config.topology = parse_topology("full:6");
  config.engine = Engine::fibers;
  config.workers = 1;
  config.trace = false;
  config.watchdog_seconds = 60;
  Machine m(config);
  constexpr int kCalls = 12;
  std::vector<std::vector<int>> got(6);
  m.run([&](Node& n) {
    for (int k = 0; k < kCalls; ++k) {
      std::vector<int> a(4, n.rank() == 0 ? k : -1);
      broadcast(n.world(), std::span(a), 0, {.algorithm = "binomial"});
      got[static_cast<std::size_t>(n.rank())].push_back(a[3]);
    }
  });
  for (const std::vector<int>& g : got) {
    ASSERT_EQ(g.size(), static_cast<std::size_t>(kCalls));
    for (int k = 0; k < kCalls; ++k) EXPECT_EQ(g[static_cast<std::size_t>(k)], k);
  }
  expect_error_naming_node(m, [&](Node& n) {
    for (int k = 0; k < kCalls; ++k) {
      std::vector<int> a(k == 9 && n.rank() == 4 ? 5 : 4);
      broadcast(n.world(), std::span(a), 0, {.algorithm = "binomial"});
    }
  }, "a count that differs at a call far behind the root", {"collective call 9", "node 4"});
}

}  // namespace
}  // namespace vmc::testing
