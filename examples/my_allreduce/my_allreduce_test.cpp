// Testing my_allreduce with vmc's harness: every p in 1..64, roots, lengths, item types,
// ops (and a non-commutative one), in place, topologies, port models, both protocols,
// sub-groups and perturbed schedules; its cost formula where its claim says it is exact.
#include <gtest/gtest.h>

#include "collectives/testing.hpp"
#include "my_allreduce.hpp"

TEST(MyAllreduce, PassesTheHarness) {
  EXPECT_COLLECTIVE(vmc::Operation::allreduce, kMyAllreduce);
}

// Run with --gtest_also_run_disabled_tests to see the harness catch the bug: it prints the
// smallest failing case (p = 6) and the line that replays it.
TEST(MyAllreduceBroken, DISABLED_IsCaught) {
  EXPECT_COLLECTIVE(vmc::Operation::allreduce, kMyAllreduceBroken);
}
