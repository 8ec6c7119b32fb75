// scan: a sweep over every registered algorithm, p, root, length and op, on sub-groups,
// and RapidCheck properties against the sequential reference.
#include "tests/collectives/sweep.hpp"

namespace vmc::testing {
namespace {

TEST(Scan, SweepEveryAlgorithm) { sweep(Operation::scan); }
TEST(Scan, SubGroups) { sweep_sub_groups(Operation::scan); }

RC_GTEST_PROP(ScanProperty, Int32Sum, ()) { property<std::int32_t>(Operation::scan, ops::sum<std::int32_t>()); }
RC_GTEST_PROP(ScanProperty, DoubleSum, ()) { property<double>(Operation::scan, ops::sum<double>()); }
RC_GTEST_PROP(ScanProperty, MatrixProduct, ()) { property<Mat3>(Operation::scan, matmul()); }
RC_GTEST_PROP(ScanProperty, OperandOrder, ()) { property<Span>(Operation::scan, order_recorder()); }
RC_GTEST_PROP(ExscanProperty, Int64Sum, ()) { property<std::int64_t>(Operation::exscan, ops::sum<std::int64_t>()); }
RC_GTEST_PROP(ExscanProperty, FloatSum, ()) { property<float>(Operation::exscan, ops::sum<float>()); }
RC_GTEST_PROP(ExscanProperty, MatrixProduct, ()) { property<Mat3>(Operation::exscan, matmul()); }
RC_GTEST_PROP(ExscanProperty, OperandOrder, ()) { property<Span>(Operation::exscan, order_recorder()); }
TEST(Exscan, SweepEveryAlgorithm) { sweep(Operation::exscan); }
TEST(Exscan, SubGroups) { sweep_sub_groups(Operation::exscan); }

}  // namespace
}  // namespace vmc::testing
