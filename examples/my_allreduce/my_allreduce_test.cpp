// Testing my allreduces with vmc's harness: every p in 1..64, roots, lengths, item types,
// ops (and a non-commutative one), in place, topologies, port models, both protocols,
// sub-groups and perturbed schedules; each cost formula where its claim says it holds.
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/testing.hpp"
#include "my_allreduce.hpp"
#include "runtime/machine.hpp"

TEST(MyAllreduce, PassesTheHarness) {
  EXPECT_COLLECTIVE(vmc::Operation::allreduce, kMyAllreduce);
}

// Run with --gtest_also_run_disabled_tests to see the harness catch the bug: it prints the
// smallest failing case (p = 6) and the line that replays it.
TEST(MyAllreduceBroken, DISABLED_IsCaught) {
  EXPECT_COLLECTIVE(vmc::Operation::allreduce, kMyAllreduceBroken);
}

// It applies where p is a power of two: the harness runs those cases and skips the others.
TEST(MyRecursiveDoubling, PassesTheHarness) {
  EXPECT_COLLECTIVE(vmc::Operation::allreduce, kMyRecursiveDoubling);
}

// Registered, the row is one of vmc's own: calls name it, vmc::algorithms lists it, auto weighs it.
TEST(MyRecursiveDoubling, RunsByNameOnceRegistered) {
  vmc::register_algorithm(vmc::Operation::allreduce, kMyRecursiveDoubling);
  vmc::Machine m({.topology = vmc::parse_topology("full:8"),
                  .model = {.alpha = 1e-6, .beta = 1e-9, .gamma = 1e-9}});
  std::vector<float> got(m.size());
  vmc::RunResult r = m.run([&](vmc::Node& node) {
    std::vector<float> x(100, float(node.rank()));
    vmc::allreduce(node.world(), std::span(x), vmc::ops::sum<float>(),
                   {.algorithm = "my_recursive_doubling"});
    got[node.rank()] = x[0];
  });
  EXPECT_EQ(got, std::vector<float>(8, 28.0f));  // 0 + 1 + ... + 7 on every node
  EXPECT_EQ(r.stats().messages, 8u * 3u);         // 3 exchanges, one message out of each node
}
