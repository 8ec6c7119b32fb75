// Skew, slow nodes and noise (Model::skew, slow, noise; docs/model.md, "Skew, slow nodes and
// noise"), held to exact virtual times on small cases worked out by hand, on both clocks.
#include <gtest/gtest.h>

#include <string>

#include "runtime/machine.hpp"
#include "tools/runner.hpp"

namespace vmc {
namespace {

using cli::RunOutcome;
using cli::RunSpec;
using cli::run_collective;

constexpr double kAlpha = 525e-6, kBeta = 2e-6, kGamma = 0.35e-6;
constexpr std::size_t kN = 1000;

Model base_model() { return Model{.alpha = kAlpha, .beta = kBeta, .gamma = kGamma}; }

RunOutcome run(Operation op, const std::string& algorithm, const Model& model,
               const std::string& topology = "hypercube:8", int root = 0) {
  Machine m({.topology = parse_topology(topology), .model = model});
  RunSpec spec;
  spec.op = op;
  spec.algorithm = algorithm;
  spec.n = kN;
  spec.root = root;
  spec.check = true;
  RunOutcome out = run_collective(m, spec);
  EXPECT_TRUE(out.correct.value_or(false)) << algorithm;
  return out;
}

Picos message() { return CostUnits(base_model()).message(kN); }
Picos combine() { return CostUnits(base_model()).combine(kN); }

TEST(Stragglers, NoneLeaveEveryTimeAsItWas) {
  Model m = base_model();
  EXPECT_FALSE(perturbed(m));
  m.skew.seed = 9;  // a seed alone draws nothing
  EXPECT_FALSE(perturbed(m));
  EXPECT_EQ(run(Operation::allreduce, "auto", m).result.time_ps(),
            run(Operation::allreduce, "auto", base_model()).result.time_ps());
}

// Every node waits for the root's data: a root that starts d late delays the broadcast by d.
TEST(Stragglers, SkewOnTheRootDelaysABinomialBroadcastByExactlyIt) {
  const Picos steady = run(Operation::broadcast, "binomial", base_model()).result.time_ps();
  EXPECT_EQ(steady, 3 * message());
  for (double d : {1e-6, 333e-6, 2e-3}) {
    for (int root : {0, 5}) {
      Model m = base_model();
      m.skew.nodes = {{root, d}};
      EXPECT_EQ(run(Operation::broadcast, "binomial", m, "hypercube:8", root).result.time_ps(),
                steady + to_picos(d))
          << "d " << d << " root " << root;
    }
  }
}

// Binomial reduce to 0 on hypercube:8 (exchange ports, eager): node 7 sends to 6, 6 to 4, 4
// to 0, each after combining what it received, so the whole run is that path: 3 (message +
// combine), and node 7's delay d shifts it all, T = 3 (message + combine) + d. Node 1 sends
// to 0 straight away; the other subtrees' messages reach 0 meanwhile (the last, 4's, ends at
// 3 message + 2 combine), so once d is past that 0 still folds in all three after 1's message
// arrives: T = d + message + 3 combine.
TEST(Stragglers, SkewOnALeafDelaysABinomialReduceByItsPathToTheRoot) {
  const Picos steady = run(Operation::reduce, "binomial", base_model()).result.time_ps();
  EXPECT_EQ(steady, 3 * (message() + combine()));
  for (double d : {10e-6, 1e-3, 20e-3}) {
    Model m = base_model();
    m.skew.nodes = {{7, d}};
    EXPECT_EQ(run(Operation::reduce, "binomial", m).result.time_ps(), steady + to_picos(d));
  }
  for (double d : {12e-3, 50e-3}) {
    Model m = base_model();
    m.skew.nodes = {{1, d}};
    EXPECT_EQ(run(Operation::reduce, "binomial", m).result.time_ps(),
              to_picos(d) + message() + 3 * combine());
  }
}

TEST(Stragglers, UniformSkewIsDrawnPerNodeFromItsSeed) {
  Model m = base_model();
  m.skew.uniform = 1e-3;
  m.skew.seed = 4;
  bool differ = false;
  for (int node = 0; node < 64; ++node) {
    const Picos d = start_delay(m, node);
    EXPECT_GE(d, 0);
    EXPECT_LE(d, to_picos(1e-3));
    differ |= d != start_delay(m, 0);
  }
  EXPECT_TRUE(differ);
  m.skew.nodes = {{3, 2e-3}};  // a node named explicitly takes its own delay
  EXPECT_EQ(start_delay(m, 3), to_picos(2e-3));
  const Picos first = run(Operation::allreduce, "ring", m).result.time_ps();
  EXPECT_EQ(run(Operation::allreduce, "ring", m).result.time_ps(), first);
  m.skew.seed = 5;
  EXPECT_NE(run(Operation::allreduce, "ring", m).result.time_ps(), first);
}

// A slow node's combines take its factor times as long; the others' are unchanged.
TEST(Stragglers, ASlowNodesCombinesScaleByItsFactor) {
  Model m = base_model();
  m.slow = {{0, 4.0}, {6, 2.5}};
  const RunOutcome out = run(Operation::reduce, "binomial", m);
  int seen = 0;
  for (const auto& c : out.result.trace().combines) {
    if (c.kind != Work::combine) continue;
    const double factor = slow_factor(m, c.node);
    EXPECT_EQ(c.end - c.start, static_cast<Picos>(factor * static_cast<double>(combine())))
        << "node " << c.node;
    ++seen;
  }
  EXPECT_EQ(seen, 7);
  // The path 7 -> 6 -> 4 -> 0: 7's message, 6's slow combine (2.5), its message, 4's combine
  // (5's is in by then), its message, 0's slow combine (4); 0 has folded in 1's and 2's
  // meanwhile.
  EXPECT_EQ(out.result.time_ps(), 3 * message() + (5 * combine()) / 2 + combine() + 4 * combine());
}

// One detour, on every node at a known time (every: longer than the run): it falls in the
// first combine of nodes 0, 2, 4 and 6, which it stretches by its length; nothing else moves
// but what waits for them, so the reduce ends exactly `length` later.
TEST(Stragglers, OneDetourInsideACombineDelaysTheReduceByItsLength) {
  const Picos steady = run(Operation::reduce, "binomial", base_model()).result.time_ps();
  Model m = base_model();
  m.noise = {.every = 1.0, .length = 70e-6, .at = to_seconds(message() + combine() / 2)};
  EXPECT_EQ(run(Operation::reduce, "binomial", m).result.time_ps(), steady + to_picos(70e-6));
  // A detour at time 0 holds the broadcast's root's first send until it ends.
  m.noise.at = 0.0;
  EXPECT_EQ(run(Operation::broadcast, "binomial", m).result.time_ps(),
            3 * message() + to_picos(70e-6));
}

TEST(Stragglers, NoiseIsTheSameForASeedAndDiffersForAnother) {
  Model m = base_model();
  m.noise = {.every = 500e-6, .length = 40e-6, .seed = 7};
  const Picos steady = run(Operation::allreduce, "ring", base_model()).result.time_ps();
  const Picos first = run(Operation::allreduce, "ring", m).result.time_ps();
  EXPECT_GT(first, steady);
  EXPECT_EQ(run(Operation::allreduce, "ring", m).result.time_ps(), first);
  m.noise.seed = 8;
  EXPECT_NE(run(Operation::allreduce, "ring", m).result.time_ps(), first);
}

// The detour arithmetic: work stretched past every detour it meets, ending exactly as one
// begins when it fits.
TEST(Stragglers, NoisyWorkSkipsEveryDetour) {
  Model m;
  m.noise = {.every = 100e-12, .length = 30e-12, .at = 10e-12};  // detours [10, 40), [110, 140)...
  EXPECT_EQ(noise_clear(m, 0, 5), 5);
  EXPECT_EQ(noise_clear(m, 0, 10), 40);
  EXPECT_EQ(noise_clear(m, 0, 39), 40);
  EXPECT_EQ(noise_clear(m, 0, 40), 40);
  EXPECT_EQ(noisy_end(m, 0, 0, 10), 10);    // ends as the first detour begins
  EXPECT_EQ(noisy_end(m, 0, 0, 11), 41);
  EXPECT_EQ(noisy_end(m, 0, 20, 70), 110);  // waits out the detour, then 70 of work
  EXPECT_EQ(noisy_end(m, 0, 40, 140), 210);  // 70 before the second detour, 70 after it
  EXPECT_EQ(noisy_end(m, 0, 40, 141), 241);
}

TEST(Stragglers, BadValuesAreRefusedNamingTheNodeAndTheProblem) {
  auto refused = [](const Model& m, const std::string& words) {
    try {
      Machine machine({.topology = parse_topology("hypercube:8"), .model = m});
      ADD_FAILURE() << "accepted; expected: " << words;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  Model m = base_model();
  m.skew.nodes = {{8, 1e-3}};
  refused(m, "skew names node 8, outside the machine (nodes 0..7)");
  m = base_model();
  m.skew.nodes = {{2, -1e-3}};
  refused(m, "node 2's delay");
  m = base_model();
  m.slow = {{3, 0.5}};
  refused(m, "node 3's factor 0.5");
  m.slow = {{3, 0}};
  refused(m, "at least 1");
  m = base_model();
  m.noise = {.every = 1e-3, .length = 1e-3};
  refused(m, "shorter than its period");
  EXPECT_THROW(parse_slow("node:3=0x"), std::invalid_argument);
  EXPECT_THROW(parse_slow("3=fast"), std::invalid_argument);
  Skew k;
  EXPECT_THROW(parse_skew("node:3=-2ms", k), std::invalid_argument);
  EXPECT_THROW(parse_skew("gauss:2ms", k), std::invalid_argument);
  EXPECT_THROW(parse_noise("every:1ms"), std::invalid_argument);
  parse_skew("uniform:100us,node:3=2ms,5=1ms", k);
  EXPECT_DOUBLE_EQ(k.uniform, 100e-6);
  ASSERT_EQ(k.nodes.size(), 2u);
  EXPECT_EQ(k.nodes[1].node, 5);
  const Noise n = parse_noise("every:1ms,for:50us,seed:7");
  EXPECT_EQ(n.seed, 7u);
  EXPECT_DOUBLE_EQ(n.length, 50e-6);
}

// The real clock waits them out for real: a root that starts 3 ms late, into a detour of 2 ms
// that holds its first send, makes the run at least 5 ms longer than the model's steady time
// (never shorter; how close is the host's to say).
TEST(Stragglers, TheRealClockWaitsSkewAndDetoursOut) {
  Model m = Model{.alpha = 200e-6, .beta = 1e-6};
  const Picos steady = 3 * CostUnits(m).message(16);
  m.skew.nodes = {{0, 3e-3}};
  m.noise = {.every = 1.0, .length = 2e-3, .at = 3e-3};
  Machine machine({.topology = parse_topology("hypercube:8"), .model = m,
                   .clock = Clock::real_time, .time_scale = 1.0});
  RunSpec spec;
  spec.op = Operation::broadcast;
  spec.algorithm = "binomial";
  spec.n = 16;
  const RunResult r = run_collective(machine, spec).result;
  EXPECT_GE(r.time_ps(), steady + to_picos(5e-3));
}

}  // namespace
}  // namespace vmc
