// Timing-only runs (MachineConfig::data = Data::none) and the two engines: every registered
// algorithm of every operation gives the virtual time, the statistics and the trace of the
// run with data on fibers, bit for bit, on OS threads and on fibers, with and without data;
// a timing-only run touches no data at all. Its buffers are nowhere memory (runtime/
// scratch.hpp): a read or a write of one faults, so a copy or a combine the timing-only
// path forgot to skip ends the test with a crash, not a pass.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/allreduce/allreduce_internal.hpp"
#include "collectives/collectives.hpp"
#include "collectives/selection/simulation.hpp"
#include "runtime/scratch.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc::testing {
namespace {

std::unique_ptr<Machine> machine_with(const std::string& topology, Data data, bool trace,
                                      Engine engine = Engine::fibers, int workers = 0) {
  MachineConfig config;
  config.engine = engine;
  config.workers = workers;
  config.topology = parse_topology(topology);
  config.model = model(Port::duplex, Routing::wormhole);
  config.model.contention = Contention::shared;
  config.data = data;
  config.trace = trace;
  config.watchdog_seconds = 60;
  return std::make_unique<Machine>(config);
}

auto message_key(const MessageEvent& e) {
  return std::tie(e.src, e.dst, e.tag, e.comm, e.items, e.bytes, e.request, e.start, e.end,
                  e.waited, e.links, e.contention_delay);
}

auto combine_key(const CombineEvent& e) { return std::tie(e.node, e.items, e.start, e.end, e.kind); }

// Every statistic and every record of the trace (when one was kept) equal.
void expect_same_run(const RunResult& full, const RunResult& none, const std::string& what) {
  const Stats& a = full.stats();
  const Stats& b = none.stats();
  EXPECT_EQ(a.time, b.time) << what;
  EXPECT_EQ(a.node_time, b.node_time) << what;
  EXPECT_EQ(a.messages, b.messages) << what;
  EXPECT_EQ(a.items, b.items) << what;
  EXPECT_EQ(a.bytes, b.bytes) << what;
  EXPECT_EQ(a.combined_items, b.combined_items) << what;
  EXPECT_EQ(a.rearranged_items, b.rearranged_items) << what;
  EXPECT_EQ(a.critical_startups, b.critical_startups) << what;
  EXPECT_EQ(a.link_busy, b.link_busy) << what;
  EXPECT_EQ(a.link_peak, b.link_peak) << what;
  EXPECT_EQ(a.max_link_waiters, b.max_link_waiters) << what;
  EXPECT_EQ(a.token_wait, b.token_wait) << what;
  EXPECT_EQ(a.contention_delay, b.contention_delay) << what;
  EXPECT_EQ(a.max_message_delay, b.max_message_delay) << what;
  EXPECT_EQ(a.contention_critical_delay, b.contention_critical_delay) << what;
  EXPECT_EQ(a.free_time, b.free_time) << what;
  const auto& ma = full.trace().messages;
  const auto& mb = none.trace().messages;
  ASSERT_EQ(ma.size(), mb.size()) << what;
  for (std::size_t i = 0; i < ma.size(); ++i) {
    EXPECT_TRUE(message_key(ma[i]) == message_key(mb[i])) << what << ": message " << i;
  }
  const auto& ca = full.trace().combines;
  const auto& cb = none.trace().combines;
  ASSERT_EQ(ca.size(), cb.size()) << what;
  for (std::size_t i = 0; i < ca.size(); ++i) {
    EXPECT_TRUE(combine_key(ca[i]) == combine_key(cb[i])) << what << ": combine " << i;
  }
  EXPECT_EQ(full.trace().hash(), none.trace().hash()) << what;
}

class TimingOnly : public ::testing::TestWithParam<std::string> {};

// Every row on both engines too: OS threads, and fibers on one worker and on one per core
// (MachineConfig::engine), with and without data, give one run.
TEST_P(TimingOnly, EveryAlgorithmTakesTheTimeOfTheRunWithData) {
  const std::string topology = GetParam();
  auto full = machine_with(topology, Data::full, true);
  auto none = machine_with(topology, Data::none, true);
  auto threads = machine_with(topology, Data::full, true, Engine::threads);
  auto threads_none = machine_with(topology, Data::none, true, Engine::threads);
  auto one_worker = machine_with(topology, Data::full, true, Engine::fibers, 1);
  int checked = 0;
  for (Operation op : all_operations()) {
    for (const Algorithm& a : algorithms(op)) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{37}}) {
        CostQuery q = query_for(*full, n, full->size() - 1, 8, true);
        q.options.algorithm = a.name;
        if (a.name == "hybrid") continue;  // needs a strategy of its own; hybrid_optimal runs
        if (!runs_timing_only(op, a)) continue;  // a row registered by another test
        if (!a.applicable(q)) continue;
        const std::string what = to_string(op) + " " + a.name + " on " + topology +
                                 " n=" + std::to_string(n);
        RunResult with_data = run_operation(*full, op, q);
        expect_same_run(with_data, run_operation(*none, op, q), what + " (timing only)");
        expect_same_run(with_data, run_operation(*threads, op, q), what + " (threads)");
        expect_same_run(with_data, run_operation(*threads_none, op, q),
                        what + " (threads, timing only)");
        expect_same_run(with_data, run_operation(*one_worker, op, q), what + " (one worker)");
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// What users call by default: `auto`, on machines above 64 nodes, with irregular counts for
// the v-variants (zeros, one large block). The choice and the run are the same without data.
TEST(TimingOnly, AutoOnLargeMachinesChoosesAndTakesTheSameTime) {
  for (const std::string topology : {"hypercube:256", "mesh:12x11"}) {
    auto full = machine_with(topology, Data::full, false);
    auto none = machine_with(topology, Data::none, false);
    const int p = full->size();
    std::vector<std::size_t> irregular(p, 3);
    for (int r = 0; r < p; r += 5) irregular[r] = 0;
    irregular[p / 2] = 1000;
    for (Operation op : {Operation::broadcast, Operation::allreduce, Operation::alltoall,
                         Operation::allgatherv, Operation::scatterv}) {
      for (int root : {0, p - 1}) {
        CostQuery q = query_for(*full, 17, root, 8, true);
        if (op == Operation::allgatherv || op == Operation::scatterv) q.counts = irregular;
        const std::string what = to_string(op) + " auto on " + topology + " root " +
                                 std::to_string(root);
        RunResult with_data = run_operation(*full, op, q);
        RunResult timing_only = run_operation(*none, op, q);
        EXPECT_GT(with_data.stats().messages, 0u) << what;
        expect_same_run(with_data, timing_only, what);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Machines, TimingOnly,
                         ::testing::Values("full:7", "hypercube:8", "mesh:3x4", "torus:3x3"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s) {
                             if (c == ':') c = '_';
                           }
                           return s;
                         });

// A user's own buffers in a timing-only run: nowhere memory, never touched; the run takes
// the time, the statistics and the trace of the same program on buffers of its own.
TEST(TimingOnly, UserBuffersOfNowhereMemoryAreNeverTouched) {
  const std::size_t n = 1000;
  auto program = [n](bool timing_only) {
    return [n, timing_only](Node& node) {
      std::vector<float> own(timing_only ? 0 : 17 * n, 1.0f);
      std::span<std::byte> mine = timing_only ? nowhere(n * sizeof(float))
                                              : std::as_writable_bytes(std::span(own).first(n));
      std::span<std::byte> every =
          timing_only ? nowhere(16 * n * sizeof(float))
                      : std::as_writable_bytes(std::span(own).subspan(n, 16 * n));
      std::span<float> x(reinterpret_cast<float*>(mine.data()), n);
      std::span<float> all(reinterpret_cast<float*>(every.data()), n * 16);
      allreduce(node.world(), x, ops::sum<float>());
      broadcast(node.world(), x, 3);
      allgather(node.world(), std::span<const float>(x.data(), n), all);
    };
  };
  auto none = machine_with("hypercube:16", Data::none, true);
  auto full = machine_with("hypercube:16", Data::full, true);
  const RunResult timing_only = none->run(program(true));
  const RunResult with_data = full->run(program(false));
  EXPECT_GT(with_data.stats().messages, 0u);
  expect_same_run(with_data, timing_only, "allreduce, broadcast, allgather on nowhere memory");
}

// A user's row that does not say it runs timing-only is refused there, with its name, and
// selection still simulates it (with data) without touching nowhere memory.
void reads_its_data(const Call& call) {
  if (call.n > 0 && call.send != nullptr) {
    volatile char first = *static_cast<const char*>(call.send);
    (void)first;
  }
  internal::run_allreduce_reduce_broadcast(call);
}

TEST(TimingOnly, ARowRegisteredWithoutTimingOnlyIsRefusedByName) {
  register_algorithm(Operation::allreduce,
                     {.name = "reads_its_data",
                      .cost = [](const CostQuery&) { return Picos{0}; },
                      .run = reads_its_data});
  const Algorithm* row = find_algorithm(Operation::allreduce, "reads_its_data");
  ASSERT_NE(row, nullptr);
  EXPECT_FALSE(runs_timing_only(Operation::allreduce, *row));
  EXPECT_TRUE(runs_timing_only(Operation::allreduce,
                               *find_algorithm(Operation::allreduce, "ring")));
  auto none = machine_with("full:4", Data::none, false);
  try {
    none->run([&](Node& node) {
      std::span<std::byte> b = nowhere(8 * sizeof(float));
      std::span<float> x(reinterpret_cast<float*>(b.data()), 8);
      allreduce(node.world(), x, ops::sum<float>(), {.algorithm = "reads_its_data"});
    });
    ADD_FAILURE() << "a timing-only run took a row that reads its data";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("reads_its_data"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("timing_only"), std::string::npos) << e.what();
  }
  // With data, auto simulates every row, this one with data: it runs.
  auto full = machine_with("full:4", Data::full, false);
  full->run([&](Node& node) {
    std::vector<float> x(8, 1.0f);
    allreduce(node.world(), std::span(x), ops::sum<float>());
  });
}

TEST(TimingOnly, NowhereMemoryIsNowhere) {
  std::span<std::byte> a = nowhere(100), b = nowhere(100);
  EXPECT_TRUE(is_nowhere(a.data()));
  EXPECT_TRUE(is_nowhere(b.data()));
  EXPECT_NE(a.data(), b.data());
  int local = 0;
  EXPECT_FALSE(is_nowhere(&local));
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH({ std::memset(a.data(), 1, 1); }, "");
}

}  // namespace
}  // namespace vmc::testing
