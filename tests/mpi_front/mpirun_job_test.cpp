// What vmc mpirun makes of a job (tools/mpirun_job.hpp), from made-up facts: which exit
// status wins when several ranks fail, the words of every report, a deadlock in MPI's terms
// with the calls the MPI layer declared and without, --coll's names and refusals, quoting.
#include "tools/mpirun_job.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <memory>

#include "runtime/run_errors.hpp"
#include "tools/model_options.hpp"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using vmc::BlockedWait;
using vmc::RunError;
using vmc::cli::JobFacts;
using vmc::cli::judge_job;
using vmc::cli::number_ranges;
using vmc::cli::RankEnd;

JobFacts returned(std::vector<int> statuses) {
  JobFacts f;
  for (int s : statuses) f.ranks.push_back(RankEnd{.returned = true, .status = s});
  return f;
}

RunError threw(int node) { return RunError(RunError::Kind::node_threw, "node threw", node, {}); }

TEST(JudgeJob, EveryRankReturningZeroIsSuccess) {
  const auto v = judge_job(returned({0, 0, 0}));
  EXPECT_EQ(v.exit_status, 0);
  EXPECT_TRUE(v.report.empty());
  EXPECT_EQ(v.summary(), "ok");
}

// In a table of several p, a report that opens a list ("deadlock: ...:") is summed up by its
// first entry and how many lines follow, not by a line that ends in a colon.
TEST(JudgeJob, ASummaryOfAListGivesItsFirstEntry) {
  vmc::cli::JobVerdict listed;
  listed.report = {"deadlock: every rank still running is blocked:", "  rank 0: MPI_Recv(x)",
                   "  rank 1: MPI_Recv(y)", "ranks 2, 3 have returned from main"};
  EXPECT_EQ(listed.summary(), "deadlock: every rank still running is blocked: rank 0: MPI_Recv(x) "
                              "(and 2 more lines)");
}

TEST(JudgeJob, TheLowestRankThatExitedNonZeroGivesTheStatusAndRanksAreGroupedByStatus) {
  const auto v = judge_job(returned({0, 4, 0, 3, 3}));
  EXPECT_EQ(v.exit_status, 4);
  EXPECT_THAT(v.report, ElementsAre("ranks 3, 4 exited with status 3",
                                    "rank 1 exited with status 4"));
}

TEST(JudgeJob, RunsOfRanksAreWrittenAsRanges) {
  EXPECT_EQ(number_ranges({0, 1, 2, 3, 5, 7, 8, 10, 11, 12}), "0-3, 5, 7, 8, 10-12");
  EXPECT_EQ(number_ranges({4}), "4");
  EXPECT_EQ(number_ranges({}), "");
  const auto v = judge_job(returned({1, 1, 1, 1, 0, 1}));
  EXPECT_THAT(v.report, ElementsAre("ranks 0-3, 5 exited with status 1"));
}

TEST(JudgeJob, MpiAbortsCodeWinsAndACodeOfZeroModulo256IsStillAFailure) {
  JobFacts f = returned({0, 0});
  f.ranks[1] = RankEnd{.failure = "rank 1 called MPI_Abort(MPI_COMM_WORLD, 7)"};
  f.error = threw(1);
  f.outcome.abort_rank = 1;
  f.outcome.abort_code = 7;
  auto v = judge_job(f);
  EXPECT_EQ(v.exit_status, 7);
  EXPECT_THAT(v.report, ElementsAre("rank 1 called MPI_Abort with code 7: the job was ended"));
  f.outcome.abort_code = 256;
  EXPECT_EQ(judge_job(f).exit_status, 1);
  f.outcome.abort_code = -1;
  EXPECT_EQ(judge_job(f).exit_status, 255);
}

TEST(JudgeJob, ACrashIs128PlusItsSignalAndTheFirstFailingRankComesFirst) {
  JobFacts f;
  f.ranks.resize(4);
  f.ranks[0] = RankEnd{.failure = "rank 0: MPI_Recv: MPI_ERR_RANK: source 9"};
  f.ranks[2] = RankEnd{.failure = "abort() called", .signal = SIGABRT};
  f.error = threw(2);
  const auto v = judge_job(f);
  EXPECT_EQ(v.exit_status, 134);
  EXPECT_THAT(v.report,
              ElementsAre("rank 2 failed: abort() called (a process would have died of SIGABRT)",
                          "rank 0 failed: MPI_Recv: MPI_ERR_RANK: source 9"));
}

TEST(JudgeJob, AFailureOutsideEveryRankIsReportedInTheRunsWords) {
  JobFacts f;
  f.ranks.resize(2);
  f.error = RunError(RunError::Kind::node_threw, "node 1 threw: something else", 1, {});
  const auto v = judge_job(f);
  EXPECT_EQ(v.exit_status, 1);
  EXPECT_THAT(v.report, ElementsAre("node 1 threw: something else"));
}

// The ranks' calls of a collective differ and the report blames a rank that went on past the
// call: another rank threw the report in its name, and it is that rank's failure.
TEST(JudgeJob, AFailureThrownInARanksNameIsThatRanksFailure) {
  JobFacts f;
  f.ranks.resize(4);
  f.error = RunError(RunError::Kind::node_threw,
                     "node 2 threw: rank 2: MPI_Bcast: MPI_ERR_ARG: the ranks' calls differ", 2,
                     {});
  const auto v = judge_job(f);
  EXPECT_EQ(v.exit_status, 1);
  EXPECT_THAT(v.report,
              ElementsAre("rank 2 failed: MPI_Bcast: MPI_ERR_ARG: the ranks' calls differ"));
}

TEST(JudgeJob, ADeadlockListsEveryBlockedRankAndTheRanksThatReturned) {
  JobFacts f = returned({0, 0, 0});
  f.ranks[0] = RankEnd{};
  f.ranks[1] = RankEnd{};
  f.error = RunError(RunError::Kind::deadlock, "deadlock", -1,
                     {BlockedWait{.node = 0, .operation = "recv", .peer = 1, .peer_world = 1,
                                  .tag = 5, .comm = 0,
                                  .context = "MPI_Recv(source 1, tag 5, MPI_COMM_WORLD)"},
                      BlockedWait{.node = 1, .operation = "recv", .peer = 0, .peer_world = 0,
                                  .tag = 7, .comm = 0}});
  const auto v = judge_job(f);
  EXPECT_EQ(v.exit_status, 1);
  EXPECT_THAT(v.report,
              ElementsAre(HasSubstr("deadlock: every rank still running is blocked"),
                          "  rank 0: MPI_Recv(source 1, tag 5, MPI_COMM_WORLD), waiting for rank 1",
                          "  rank 1: blocked in recv from rank 0, tag 7, MPI_COMM_WORLD",
                          "  rank 2 has returned from main"));
}

TEST(JudgeJob, ADeadlockFoundByTheVirtualClocksPassKeepsItsWords) {
  JobFacts f = returned({0, 0});
  f.error = RunError(RunError::Kind::deadlock, "deadlock in the schedule: ...", -1, {});
  EXPECT_THAT(judge_job(f).report.front(), "deadlock in the schedule: ...");
}

// The pass's lines are said in MPI's words: its nodes as ranks, comm 0 as MPI_COMM_WORLD.
TEST(JudgeJob, ADeadlockThePassFoundKeepsItsWordsAndListsTheRanksCalls) {
  JobFacts f;
  f.ranks.resize(2);
  BlockedWait w0;
  w0.node = 0;
  w0.operation = "recv from any rank";
  w0.context = "MPI_Recv(source MPI_ANY_SOURCE, tag 0, MPI_COMM_WORLD)";
  BlockedWait w1 = w0;
  w1.node = 1;
  f.error = RunError(RunError::Kind::deadlock,
                     "deadlock: no message that could release one will ever be sent:\n"
                     "  node 1: recv from any node tag 0 on comm 0\n"
                     "  node 12: irecv from node 3 tag 1 on comm 10 (posted at 0 s)\n"
                     "the nodes were in:\n  node 0: ...",
                     -1, {w0, w1});
  EXPECT_THAT(judge_job(f).report,
              ElementsAre("deadlock: no message that could release one will ever be sent:",
                          "  rank 1: recv from any rank tag 0 on MPI_COMM_WORLD",
                          "  rank 12: irecv from rank 3 tag 1 on communicator 10 (posted at 0 s)",
                          "the ranks were in:",
                          "  rank 0: MPI_Recv(source MPI_ANY_SOURCE, tag 0, MPI_COMM_WORLD)",
                          "  rank 1: MPI_Recv(source MPI_ANY_SOURCE, tag 0, MPI_COMM_WORLD)"));
}

TEST(JudgeJob, RanksWithoutMpiFinalizeFailTheJobUnlessTheyFailedAlready) {
  JobFacts f = returned({0, 0, 2});
  f.outcome.unfinalized = {0, 2};
  const auto v = judge_job(f);
  EXPECT_EQ(v.exit_status, 2);
  EXPECT_THAT(v.report, ElementsAre("rank 2 exited with status 2",
                                    "rank 0 returned from main without calling MPI_Finalize"));
  f.ranks[2].status = 0;
  EXPECT_EQ(judge_job(f).exit_status, 1);
  EXPECT_THAT(judge_job(f).report,
              ElementsAre("ranks 0, 2 returned from main without calling MPI_Finalize"));
}

TEST(BlockedRankLine, ACollectivesContextWithTheRankItWaitsFor) {
  EXPECT_EQ(vmc::cli::blocked_rank_line({.node = 3, .operation = "recv", .peer = 1,
                                         .peer_world = 5, .tag = 1234, .comm = 2,
                                         .context = "MPI_Bcast(root 0, MPI_COMM_WORLD)"}),
            "rank 3: MPI_Bcast(root 0, MPI_COMM_WORLD), waiting for rank 5");
  EXPECT_EQ(vmc::cli::blocked_rank_line({.node = 2, .operation = "split", .comm = 0}),
            "rank 2: blocked in split, MPI_COMM_WORLD");
  EXPECT_EQ(vmc::cli::blocked_rank_line({.node = 2, .operation = "collective", .comm = 0,
                                         .context = "MPI_Barrier(MPI_COMM_WORLD)"}),
            "rank 2: MPI_Barrier(MPI_COMM_WORLD)");
}

// The watchdog's report in MPI's words: ranks, the call each waits in, and a rank in its own
// code said to be there.
TEST(JudgeJob, TheWatchdogsReportNamesRanksAndTheirCalls) {
  JobFacts f;
  f.ranks.resize(3);
  f.error = RunError(RunError::Kind::watchdog,
                     "no progress for 1 s: the run was ended; its unfinished nodes:\n  node 0: ...",
                     -1,
                     {BlockedWait{.node = 0, .operation = "sendrecv", .peer = 2, .peer_world = 2,
                                  .context = "MPI_Barrier(MPI_COMM_WORLD)"},
                      BlockedWait{.node = 1, .operation = vmc::detail::kRunningNode},
                      BlockedWait{.node = 2, .operation = vmc::detail::kRunningNode,
                                  .context = "MPI_Wtime()"}});
  const auto v = judge_job(f);
  EXPECT_EQ(v.exit_status, 1);
  EXPECT_THAT(v.report,
              ElementsAre("no progress for 1 s: the job was ended; its unfinished ranks:",
                          "  rank 0: MPI_Barrier(MPI_COMM_WORLD), waiting for rank 2",
                          "  rank 1: running its own code (in no MPI call)",
                          "  rank 2: running, in MPI_Wtime()"));
}

// Ranks that do not return after the job was ended: the failure that ended it, as the job's
// report gives it, then the ranks in their own code (not those waiting behind them on their
// fiber workers: the report above says where they were).
TEST(StuckReport, TheFailureThatEndedTheJobThenTheRanksThatDidNotReturn) {
  const auto stuck = [](std::shared_ptr<const RunError> cause, std::vector<int> own,
                        std::vector<int> behind) {
    RunError e(RunError::Kind::stuck, "node ...", own.empty() ? -1 : own.front(), {});
    e.set_stuck({std::move(cause), std::move(own), std::move(behind), 2});
    return vmc::cli::stuck_report(e);
  };
  const auto threw = std::make_shared<const RunError>(
      RunError::Kind::node_threw, "node 1 threw: rank 1: MPI_Send: MPI_ERR_RANK: ...", 1,
      std::vector<BlockedWait>{});
  EXPECT_THAT(stuck(threw, {2}, {}),
              ElementsAre("rank 1 failed: MPI_Send: MPI_ERR_RANK: ...",
                          "rank 2 did not return within 2 s of the job's end: in the program's "
                          "own code (a loop that makes no MPI call), which vmc cannot interrupt: "
                          "the process ends"));
  const auto deadlock = std::make_shared<const RunError>(
      RunError::Kind::deadlock, "deadlock", -1,
      std::vector<BlockedWait>{{.node = 0, .operation = "recv", .peer = 1, .peer_world = 1,
                                .context = "MPI_Recv(source 1, tag 0, MPI_COMM_WORLD)"}});
  EXPECT_THAT(stuck(deadlock, {3, 4}, {0, 1, 2}),
              ElementsAre(HasSubstr("deadlock: every rank still running is blocked"),
                          "  rank 0: MPI_Recv(source 1, tag 0, MPI_COMM_WORLD), waiting for rank 1",
                          "ranks 3, 4 did not return within 2 s of the job's end: in the "
                          "program's own code (a loop that makes no MPI call), which vmc cannot "
                          "interrupt: the process ends"));
  EXPECT_THAT(stuck(nullptr, {}, {5}),
              ElementsAre("the job was ended",
                          "rank 5 did not return within 2 s of the job's end, in an MPI call: "
                          "the process ends"));
}

// Before the watchdog ends a job, a note: which ranks run their own code, and when it ends.
TEST(StallNote, NamesTheRanksInTheirOwnCodeAndTheWatchdogTime) {
  const BlockedWait barrier{.node = 0, .operation = "sendrecv", .peer = 2, .peer_world = 2};
  const BlockedWait spin{.node = 2, .operation = vmc::detail::kRunningNode};
  EXPECT_EQ(vmc::cli::stall_note({barrier, spin}, 30, 300),
            "no progress for 30 s: rank 2 is running its own code (in no MPI call), the others "
            "wait in MPI calls; the job is ended after 300 s without progress (--watchdog "
            "SECONDS)");
  BlockedWait spin3 = spin;
  spin3.node = 3;
  EXPECT_EQ(vmc::cli::stall_note({spin, spin3}, 1, 2),
            "no progress for 1 s: ranks 2, 3 are running their own code (in no MPI call); the "
            "job is ended after 2 s without progress (--watchdog SECONDS)");
  EXPECT_EQ(vmc::cli::stall_note({barrier}, 30, 300),
            "no progress for 30 s; the job is ended after 300 s without progress (--watchdog "
            "SECONDS)");
}

TEST(ParseColl, VmcsAndMpisNamesInAnyCase) {
  const auto chosen = vmc::cli::parse_coll("allreduce=ring,MPI_Bcast=binomial,"
                                           "Reduce_Scatter_Block=auto");
  EXPECT_EQ(chosen, (std::map<std::string, std::string>{{"allreduce", "ring"},
                                                         {"broadcast", "binomial"},
                                                         {"reduce_scatter", "auto"}}));
}

TEST(ParseColl, RefusesWithTheValidNames) {
  using vmc::cli::UsageError;
  auto refused = [](const std::string& text) {
    try {
      vmc::cli::parse_coll(text);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_THAT(refused("alltoall"), HasSubstr("is not OPERATION=ALGORITHM"));
  EXPECT_THAT(refused("allreduce="), HasSubstr("is not OPERATION=ALGORITHM"));
  EXPECT_THAT(refused("gatherr=linear"), HasSubstr("no collective operation \"gatherr\" "
                                                   "(expected broadcast, reduce, allreduce"));
  EXPECT_THAT(refused("reduce=nope"), HasSubstr("reduce has no algorithm \"nope\" (expected "
                                                "auto, "));
  EXPECT_THAT(refused("bcast=auto,broadcast=binomial"), HasSubstr("broadcast is named twice"));
}

TEST(ShellQuote, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(vmc::cli::shell_quote("./build/vmc"), "./build/vmc");
  EXPECT_EQ(vmc::cli::shell_quote("--alpha=1us"), "--alpha=1us");
  EXPECT_EQ(vmc::cli::shell_quote("two words"), "'two words'");
  EXPECT_EQ(vmc::cli::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(vmc::cli::shell_quote(""), "''");
}

}  // namespace
