// Seeded schedule perturbation over the registry: every operation and algorithm runs on the
// real clock while every node thread pauses at random before each runtime call, and every
// result is checked against a sequential reference. The seed is printed; set
// VMC_PERTURB_SEED to replay a failure.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "tests/collectives/harness.hpp"
#include "tools/runner.hpp"

namespace vmc::testing {
namespace {

std::uint64_t perturbation_seed() {
  static const std::uint64_t seed = [] {
    const char* env = std::getenv("VMC_PERTURB_SEED");
    std::uint64_t s = env != nullptr ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    if (s == 0) s = 1;
    std::printf("schedule perturbation seed: %llu (replay with VMC_PERTURB_SEED=%llu)\n",
                static_cast<unsigned long long>(s), static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

bool applicable(Operation op, const Algorithm& a, int p, const cli::RunSpec& spec) {
  CostQuery q;
  q.p = p;
  q.n = spec.n;
  q.root = spec.root;
  q.options.strategy = spec.strategy;
  if (op == Operation::scatterv || op == Operation::gatherv || op == Operation::allgatherv ||
      op == Operation::alltoallv) {
    q.counts.assign(p, spec.n);
  }
  return a.applicable(q);
}

TEST(Perturbation, EveryAlgorithmSurvivesScheduleNoise) {
  const std::uint64_t seed = perturbation_seed();
  RecordProperty("perturbation_seed", std::to_string(seed));
  for (int p : {1, 2, 3, 5, 8, 13}) {
    Machine m({.topology = parse_topology("full:" + std::to_string(p)),
               .clock = Clock::real_time, .trace = false, .perturb_seed = seed,
               .perturb_max_seconds = 20e-6});
    for (Operation op : all_operations()) {
      for (const Algorithm& a : algorithms(op)) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t(p + 1),
                              std::size_t{100}}) {
          cli::RunSpec spec{.op = op, .algorithm = a.name, .n = n, .root = p / 2,
                            .type = "int64", .reduction = "sum",
                            .strategy = test_strategy(a.name, p), .check = true};
          if (!applicable(op, a, p, spec)) continue;
          cli::RunOutcome out = cli::run_collective(m, spec);
          ASSERT_TRUE(out.correct.has_value());
          EXPECT_TRUE(*out.correct) << to_string(op) << " " << a.name << " p=" << p << " n=" << n
                                    << " (VMC_PERTURB_SEED=" << seed << ")";
        }
      }
    }
  }
}

TEST(Perturbation, VirtualTimeIgnoresScheduleNoise) {
  const std::uint64_t seed = perturbation_seed();
  const Model model{.alpha = 10e-6, .beta = 1e-9, .gamma = 1e-9};
  Machine quiet({.topology = parse_topology("mesh:3x4"), .model = model});
  Machine noisy({.topology = parse_topology("mesh:3x4"), .model = model, .perturb_seed = seed,
                 .perturb_max_seconds = 20e-6});
  for (Operation op : {Operation::allreduce, Operation::alltoall, Operation::scan,
                       Operation::allgather, Operation::reduce_scatter}) {
    for (const Algorithm& a : algorithms(op)) {
      cli::RunSpec spec{.op = op, .algorithm = a.name, .n = 37, .type = "int32",
                        .strategy = test_strategy(a.name, 12), .check = true};
      if (!applicable(op, a, 12, spec)) continue;
      cli::RunOutcome q = cli::run_collective(quiet, spec);
      cli::RunOutcome n = cli::run_collective(noisy, spec);
      EXPECT_TRUE(*q.correct && *n.correct);
      EXPECT_EQ(q.result.stats().node_time, n.result.stats().node_time)
          << to_string(op) << " " << a.name << " (VMC_PERTURB_SEED=" << seed << ")";
      EXPECT_EQ(q.result.trace().hash(), n.result.trace().hash()) << to_string(op) << " " << a.name;
    }
  }
}

}  // namespace
}  // namespace vmc::testing
