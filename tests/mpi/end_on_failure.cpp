// Linked into the multi-process test binaries (every process runs every test): a test that
// fails on one process ends every process at once with MPI_Abort. After a failure, the
// processes may be in different MPI calls (one left its test early by a thrown error while
// the others went on to a barrier), and the binary would then wait for its ctest timeout with
// nothing to say; ended, its output shows the failure that did it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

namespace {

class EndOnFailure : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& test) override {
    if (!test.result()->Failed()) return;
    int started = 0, finished = 0;
    MPI_Initialized(&started);
    MPI_Finalized(&finished);
    if (!started || finished) return;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr,
                 "%s.%s failed on process %d: every process is ended (they may now be in "
                 "different MPI calls, which would wait for ever)\n",
                 test.test_suite_name(), test.name(), rank);
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
};

// Appended before gtest_main's InitGoogleTest: gtest keeps listeners appended before it.
const bool installed = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new EndOnFailure);
  return true;
}();

}  // namespace
