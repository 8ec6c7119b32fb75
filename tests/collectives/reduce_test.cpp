// reduce: a sweep over every registered algorithm, p, root, length and op, on sub-groups,
// and RapidCheck properties against the sequential reference.
#include "tests/collectives/sweep.hpp"

namespace vmc::testing {
namespace {

TEST(Reduce, SweepEveryAlgorithm) { sweep(Operation::reduce); }
TEST(Reduce, SubGroups) { sweep_sub_groups(Operation::reduce); }

RC_GTEST_PROP(ReduceProperty, Int32Sum, ()) { property<std::int32_t>(Operation::reduce, ops::sum<std::int32_t>()); }
RC_GTEST_PROP(ReduceProperty, Int64Bxor, ()) { property<std::int64_t>(Operation::reduce, ops::bxor<std::int64_t>()); }
RC_GTEST_PROP(ReduceProperty, FloatSum, ()) { property<float>(Operation::reduce, ops::sum<float>()); }
RC_GTEST_PROP(ReduceProperty, DoubleMax, ()) { property<double>(Operation::reduce, ops::max<double>()); }
RC_GTEST_PROP(ReduceProperty, MatrixProduct, ()) { property<Mat3>(Operation::reduce, matmul()); }
RC_GTEST_PROP(ReduceProperty, OperandOrder, ()) { property<Span>(Operation::reduce, order_recorder()); }

}  // namespace
}  // namespace vmc::testing
