// broadcast: a sweep over every registered algorithm, p, root, length and op, on sub-groups,
// and RapidCheck properties against the sequential reference.
#include "tests/collectives/sweep.hpp"

namespace vmc::testing {
namespace {

TEST(Broadcast, SweepEveryAlgorithm) { sweep(Operation::broadcast); }
TEST(Broadcast, SubGroups) { sweep_sub_groups(Operation::broadcast); }

RC_GTEST_PROP(BroadcastProperty, Int32, ()) { property<std::int32_t>(Operation::broadcast, ops::sum<std::int32_t>()); }
RC_GTEST_PROP(BroadcastProperty, Double, ()) { property<double>(Operation::broadcast, ops::sum<double>()); }
RC_GTEST_PROP(BroadcastProperty, Struct, ()) { property<Mat3>(Operation::broadcast, matmul()); }

}  // namespace
}  // namespace vmc::testing
