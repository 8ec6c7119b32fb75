// vmc mpirun as a user meets it: exit statuses and reports (a rank returning non-zero, calling
// MPI_Abort, exit(), abort(), failing an assert, an MPI error, a deadlock, MPI_Finalize left
// out), every p in one command (-np ranges, a family's shape per p, the command that
// reproduces a failing p), whole and tagged lines of output from many ranks at once, --stats,
// --json, --trace, --show, --coll, --privatize, errno per rank, getopt per rank, messages to
// oneself, point-to-point calls beside the usual ones, MPI-1's removed functions, a program
// that needs a symbol nobody defines, vmcxx, and MPI_Cart_create's placement on the machine. The programs are tests/mpi_front/jobs/, built with vmc_add_mpi_program (lines_cxx.cpp
// by vmcxx here). Every command runs under timeout(1).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/tools/shell.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;
using vmc::testing::Outcome;
using vmc::testing::shell_quoted;

constexpr int kSeconds = 60;

// `vmc mpirun ARGS` (ARGS a shell line) and what it did.
Outcome mpirun(const std::string& args) {
  return vmc::testing::run_shell(shell_quoted(VMC_BINARY) + " mpirun " + args, kSeconds);
}

// A program of tests/mpi_front/jobs/, built.
std::string job(const char* name) { return shell_quoted(std::string(JOBS_DIR) + "/" + name); }

// vmc mpirun refuses `args` as a usage error (status 2) with `text` on stderr.
void expect_refused(const std::string& args, const std::string& text) {
  const Outcome o = mpirun(args);
  EXPECT_EQ(o.exit_code, 2) << args << ": " << o.err;
  EXPECT_THAT(o.err, HasSubstr(text)) << args;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The line of `text` that contains `needle`, or "".
std::string line_with(const std::string& text, const std::string& needle) {
  for (const std::string& line : lines_of(text)) {
    if (line.find(needle) != std::string::npos) return line;
  }
  return "";
}

TEST(MpirunExit, AllRanksReturningZeroIsSuccess) {
  const Outcome o = mpirun("-np 4 " + job("rank_endings") + " none");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err, "");
}

TEST(MpirunExit, MainReturning3OnRank2ExitsWith3AndNamesRank2) {
  const Outcome o = mpirun("-np 4 " + job("rank_endings") + " return3");
  EXPECT_EQ(o.exit_code, 3) << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: rank 2 exited with status 3\n"));
}

TEST(MpirunExit, MpiAbortEndsTheJobWithItsCode) {
  const Outcome o = mpirun("-np 4 " + job("rank_endings") + " abort7");
  EXPECT_EQ(o.exit_code, 7) << o.err;
  EXPECT_THAT(o.err, HasSubstr("rank 1 called MPI_Abort with code 7"));
}

// A rank's stack is a process's (the host's soft limit, 8 MiB where it is unlimited; from
// 256 KiB to 64 MiB): a 2 MiB frame, as MPICH's tests keep, fits on both engines (the fibers
// engine's own default, 256 KiB, would not).
TEST(MpirunExit, ARanksStackHoldsWhatAProcesssHolds) {
  for (const char* engine : {"fibers", "threads"}) {
    const Outcome big = mpirun("-np 3 --engine " + std::string(engine) + " " +
                               job("rank_endings") + " bigstack");
    EXPECT_EQ(big.exit_code, 0) << engine << ": " << big.err;
    EXPECT_THAT(big.out, HasSubstr("rank 2 used 2 MiB of stack")) << engine;
  }
}

TEST(MpirunExit, ExitEndsTheCallingRankOnlyAsIfMainReturned) {
  const Outcome o = mpirun("-np 4 " + job("rank_endings") + " exit5");
  EXPECT_EQ(o.exit_code, 5) << o.err;
  EXPECT_THAT(o.err, HasSubstr("rank 1 exited with status 5"));
  // The others went on to the end of their main.
  for (int r : {0, 2, 3}) EXPECT_THAT(o.out, HasSubstr("rank " + std::to_string(r) + " returns"));
  EXPECT_THAT(o.out, Not(HasSubstr("rank 1 returns")));
}

TEST(MpirunExit, AFailedAssertFailsItsRankAndVmcEndsTheRunItself) {
  const Outcome o = mpirun("-np 4 " + job("rank_endings") + " assert");
  EXPECT_EQ(o.exit_code, 134) << o.err;  // 128 + SIGABRT, as a shell reports an aborted process
  // glibc's words on the rank's stderr, then mpirun's report (vmc did not die of the signal).
  EXPECT_THAT(o.err, HasSubstr("rank_endings.c:"));
  EXPECT_THAT(o.err, HasSubstr("Assertion `rank != 2' failed."));
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: rank 2 failed: assertion failed: "));
  EXPECT_THAT(o.err, HasSubstr("(a process would have died of SIGABRT)"));
}

TEST(MpirunExit, AbortFailsItsRank) {
  const Outcome o = mpirun("-np 3 " + job("rank_endings") + " abort");
  EXPECT_EQ(o.exit_code, 134) << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: rank 0 failed: abort() called"));
}

TEST(MpirunExit, AnMpiErrorFailsTheRankNamingTheFunction) {
  const Outcome o = mpirun("-np 3 " + job("rank_endings") + " mpierror");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: rank 1 failed: MPI_Send"));
  EXPECT_THAT(o.err, HasSubstr("101"));  // the rank it named
}

TEST(MpirunExit, ADeadlockNamesEachBlockedRanksCallPeerAndTag) {
  for (const char* engine : {"threads", "fibers"}) {
    const Outcome o =
        mpirun(std::string("-np 4 --engine ") + engine + " " + job("rank_endings") + " deadlock");
    EXPECT_EQ(o.exit_code, 1) << o.err;
    EXPECT_THAT(o.err, HasSubstr("vmc mpirun: deadlock:"));
    // Each blocked rank's line names the rank it waits for and the tag (in the MPI call the
    // MPI layer declared, or in the runtime's words).
    const std::string rank0 = line_with(o.err, "rank 0: "), rank1 = line_with(o.err, "rank 1: ");
    EXPECT_THAT(rank0, HasSubstr("rank 1")) << o.err;
    EXPECT_THAT(rank0, HasSubstr("tag 5")) << o.err;
    EXPECT_THAT(rank1, HasSubstr("rank 0")) << o.err;
    EXPECT_THAT(rank1, HasSubstr("tag 5")) << o.err;
    EXPECT_THAT(o.err, HasSubstr("ranks 2, 3 have returned from main"));
  }
}

// Ranks blocked inside a collective wait for their algorithm's partners, often as stuck as
// they are: the report names the rank that never called the collective, on the world and on
// a communicator of a split, the same on both engines.
TEST(MpirunExit, ADeadlockInACollectiveNamesTheRanksThatNeverCalledIt) {
  for (const char* engine : {"threads", "fibers"}) {
    const Outcome o = mpirun(std::string("-np 6 --engine ") + engine + " " +
                             job("rank_endings") + " skip_barrier");
    EXPECT_EQ(o.exit_code, 1) << o.err;
    EXPECT_THAT(o.err, HasSubstr("vmc mpirun:   ranks 0, 1, 3-5 are in MPI_Barrier(MPI_COMM_WORLD), "
                                 "which rank 2 has not called\n"))
        << engine << ": " << o.err;
    EXPECT_THAT(line_with(o.err, "rank 2: "), HasSubstr("MPI_Recv(source 0, tag 9, MPI_COMM_WORLD), "
                                                        "waiting for rank 0"))
        << engine << ": " << o.err;
    const Outcome s = mpirun(std::string("-np 8 --engine ") + engine + " " +
                             job("rank_endings") + " skip_sub_allreduce");
    EXPECT_EQ(s.exit_code, 1) << s.err;
    EXPECT_THAT(line_with(s.err, "are in MPI_Allreduce"),
                AllOf(HasSubstr("vmc mpirun:   ranks 1, 5, 7 are in MPI_Allreduce(1 x MPI_INT, "
                                "MPI_SUM, communicator "),
                      HasSubstr("), which rank 3 has not called")))
        << engine << ": " << s.err;
    EXPECT_THAT(s.err, HasSubstr("ranks 0, 2-4, 6 have returned from main")) << engine;
  }
}

// `vmc mpirun ARGS` sent `signal` (INT, TERM) after 2 s, by timeout(1).
Outcome mpirun_signalled(const char* signal, const std::string& args) {
  return vmc::testing::run_shell("timeout --preserve-status -s " + std::string(signal) + " 2 " +
                                     shell_quoted(VMC_BINARY) + " mpirun " + args,
                                 kSeconds);
}

// Ctrl-C (SIGINT), or a CI job's timeout (SIGTERM), ends a job that would never end with what
// each rank was doing, as the watchdog's report, and the status 128 + the signal; over several
// p the p not run yet are named.
TEST(MpirunExit, AnInterruptEndsTheJobWithEachRanksCall) {
  const Outcome o = mpirun_signalled("INT", "-np 4 " + job("rank_endings") + " forever");
  EXPECT_EQ(o.exit_code, 130) << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: interrupted (SIGINT): the job was ended; its "
                               "unfinished ranks:\n"))
      << o.err;
  EXPECT_THAT(o.err, MatchesRegex("(.|\n)*vmc mpirun:   rank 3: (MPI_Allreduce\\(1 x MPI_INT, "
                                  "MPI_SUM, MPI_COMM_WORLD\\)|running)(.|\n)*"))
      << o.err;
  EXPECT_THAT(o.err, Not(HasSubstr("did not return"))) << o.err;

  const Outcome t = mpirun_signalled("TERM", "-np 2:4 " + job("rank_endings") + " forever");
  EXPECT_EQ(t.exit_code, 143) << t.err;
  EXPECT_THAT(line_with(t.out, "full:2 "), HasSubstr("  143  ")) << t.out;
  EXPECT_THAT(line_with(t.out, "full:2 "), HasSubstr("interrupted (SIGTERM): the job was ended"))
      << t.out;
  EXPECT_THAT(t.out, HasSubstr("failed at 1 of 3 p: 2; not run: 3-4 (p = 2 was interrupted by "
                               "SIGTERM)\n  p = 2: "))
      << t.out;
}

// Ranks whose calls of a collective differ: the report depends on the calls alone, not on
// which rank came first on the host (each k lets another rank come first), and is the same on
// both engines: it names each group of ranks with its call and is the failure of the lowest
// rank outside the call most ranks made, whether that rank waited in its call or went on into
// its algorithm. A rank that never comes to the call makes it a deadlock, not a hang.
TEST(MpirunExit, CollectiveCallsThatDifferGiveOneReportOnEveryRun) {
  const std::string differ =
      "MPI_Bcast: MPI_ERR_ARG: the ranks' calls differ on MPI_COMM_WORLD: ";
  const std::string bcast = " called MPI_Bcast root 0 count 1 item size 4 (MPI_INT), ";
  const std::string allreduce = " called MPI_Allreduce with op MPI_SUM count 1 item size 4 (MPI_INT)\n";
  const std::map<std::string, std::string> reports = {
      {"two", "vmc mpirun: rank 3 failed: " + differ + "ranks 3, 6" + bcast + "ranks 0-2, 4, 5, 7" +
                  allreduce},
      {"zero", "vmc mpirun: rank 0 failed: " + differ + "rank 0" + bcast + "ranks 1-7" + allreduce}};
  for (const auto& [what, report] : reports) {
    for (int k = 0; k < 12; ++k) {
      const std::string engine = k % 2 == 0 ? "fibers" : "threads";
      const Outcome o = mpirun("-np 8 --engine " + engine + " " + job("mismatch") + " " + what +
                               " " + std::to_string(k / 2));
      EXPECT_EQ(o.exit_code, 1) << what << " " << engine << ": " << o.err;
      EXPECT_EQ(o.err, report) << what << " " << engine << " k " << k / 2;
    }
  }
  for (const char* engine : {"fibers", "threads"}) {
    const Outcome o = mpirun(std::string("-np 8 --engine ") + engine + " " + job("mismatch") +
                             " never");
    EXPECT_EQ(o.exit_code, 1) << engine << ": " << o.err;
    EXPECT_THAT(o.err, HasSubstr("deadlock")) << engine << ": " << o.err;
    EXPECT_THAT(line_with(o.err, "rank 5: "),
                HasSubstr("MPI_Recv(source 3, tag 0, MPI_COMM_WORLD), waiting for rank 3"))
        << engine << ": " << o.err;
    EXPECT_THAT(o.err, Not(HasSubstr("failed:"))) << engine << ": " << o.err;
    // The cause, whichever ranks went on into their calls: the one that never came (the
    // ranks in the call are listed with their calls when those differ).
    EXPECT_THAT(o.err, ContainsRegex("vmc mpirun:   ranks [-0-9, ]+ are in one collective on "
                                     "MPI_COMM_WORLD \\(their calls differ: [^\n]*\\), which "
                                     "rank 5 has not called\n"))
        << engine << ": " << o.err;
    EXPECT_THAT(o.err, Not(HasSubstr("3-7 have not called"))) << engine << ": " << o.err;
  }
}

// A rank that loops in its own code cannot be interrupted: the watchdog ends the run, the
// ranks in MPI calls return, and when the looping one has not returned within the grace time
// (the watchdog time, from 2 s to 30 s) vmc mpirun names it and ends the process, on both engines
// (on the fibers one the ranks sharing its worker wait behind it).
TEST(MpirunExit, ARankLoopingInItsOwnCodeEndsTheProcessNamingIt) {
  for (const char* engine : {"threads", "fibers"}) {
    const Outcome o = mpirun(std::string("-np 4 --watchdog 0.5 --engine ") + engine + " " +
                             job("rank_endings") + " spin");
    EXPECT_EQ(o.exit_code, 1) << engine << ": " << o.err;
    // Halfway to the watchdog, a note says why nothing happens and when the job ends.
    EXPECT_THAT(line_with(o.err, "the job is ended after 0.5 s without progress"),
                HasSubstr("vmc mpirun: no progress for 0.25 s: rank"))
        << engine << ": " << o.err;
    EXPECT_THAT(o.err, HasSubstr("vmc mpirun: no progress for 0.5 s: the job was ended; its "
                                 "unfinished ranks:\n"))
        << engine;
    // Each rank's line in MPI's words, as the deadlock report's: the call and the awaited rank.
    EXPECT_THAT(o.err, HasSubstr("vmc mpirun:   rank 2: running its own code (in no MPI call)\n"))
        << engine << ": " << o.err;
    EXPECT_THAT(line_with(o.err, "rank 0: "),
                HasSubstr("MPI_Barrier(MPI_COMM_WORLD), its algorithm waiting for rank"))
        << engine << ": " << o.err;
    EXPECT_THAT(line_with(o.err, "did not return"),
                HasSubstr("vmc mpirun: rank 2 did not return within 2 s of the job's end"))
        << engine << ": " << o.err;
    EXPECT_THAT(o.err, HasSubstr("the process ends")) << engine;
    EXPECT_THAT(o.err, Not(HasSubstr("node"))) << engine << ": " << o.err;  // ranks, not nodes
  }
  // Ranks that share the looping rank's fibers worker and never got it back are not running
  // their own code: they wait for the worker, and only rank 2 is named.
  const Outcome f = mpirun("-np 8 --workers 2 --watchdog 0.5 --engine fibers " +
                           job("rank_endings") + " spin");
  EXPECT_EQ(f.exit_code, 1) << f.err;
  std::size_t running = 0;
  for (const std::string& line : lines_of(f.err)) {
    if (line.find("running its own code (in no MPI call)") != std::string::npos &&
        line.find(": rank") == std::string::npos) {
      ++running;
    }
  }
  EXPECT_EQ(running, 1u) << f.err;  // rank 2's line
  EXPECT_THAT(f.err, HasSubstr("vmc mpirun: no progress for 0.25 s: rank 2 is running its own "
                               "code (in no MPI call), the others wait in MPI calls"))
      << f.err;
  EXPECT_THAT(f.err, HasSubstr("vmc mpirun: rank 2 did not return within 2 s")) << f.err;
}

// A polling loop that nothing else can end is a deadlock on the virtual clock, after
// --poll-limit rounds; the report names the polling calls in MPI's words, as a blocked
// call's, and says the runtime's lines in ranks and communicators, not nodes and comm ids.
TEST(MpirunExit, APollingLoopThatNothingCanEndIsADeadlockInMpiWords) {
  const Outcome o = mpirun("-np 3 --poll-limit 1000 " + job("rank_endings") + " poll");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: deadlock: every unfinished rank waits")) << o.err;
  EXPECT_THAT(o.err, HasSubstr("rank 0: tests or probes again and again while nothing else can "
                               "happen (1000 rounds in a row: --poll-limit)"))
      << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun:   rank 0: MPI_Iprobe(source 1, tag 7, MPI_COMM_WORLD)"))
      << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun:   rank 1: MPI_Test(source 0, tag 3, MPI_COMM_WORLD)"))
      << o.err;
  EXPECT_THAT(o.err, HasSubstr("rank 2 has returned from main")) << o.err;
  EXPECT_THAT(o.err, Not(HasSubstr("node"))) << o.err;
  EXPECT_THAT(o.err, Not(HasSubstr("comm 0"))) << o.err;
  // The pass's own lines about a receive, in the same words.
  const Outcome w = mpirun("-np 2 " + job("rank_endings") + " wildcard_deadlock");
  EXPECT_EQ(w.exit_code, 1) << w.err;
  EXPECT_THAT(w.err, HasSubstr("rank 0: recv from any rank tag 5 on MPI_COMM_WORLD")) << w.err;
  EXPECT_THAT(w.err, HasSubstr("rank 0: MPI_Recv(source MPI_ANY_SOURCE, tag 5, MPI_COMM_WORLD)"))
      << w.err;
  EXPECT_THAT(w.err, Not(HasSubstr("node"))) << w.err;
  // The limit is a count of rounds, 1 or more.
  expect_refused("-np 2 --poll-limit 0 " + job("rank_endings") + " poll", "--poll-limit");
}

// Over several p, the job that does not end is the last: its --json object says so, with the
// command that runs it alone.
TEST(MpirunExit, ARankLoopingInItsOwnCodeEndsAnNpRangeAtItsP) {
  const Outcome o = mpirun("-np 2:4 --json --watchdog 0.5 " + job("rank_endings") + " spin");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const std::vector<std::string> objects = lines_of(o.out);
  ASSERT_EQ(objects.size(), 2u) << o.out;  // p = 2 has no rank 2 and ends; p = 3 does not
  const nlohmann::json two = nlohmann::json::parse(objects[0]);
  const nlohmann::json three = nlohmann::json::parse(objects[1]);
  EXPECT_EQ(two["exit"], 0) << objects[0];
  EXPECT_EQ(three["p"], 3) << objects[1];
  EXPECT_EQ(three["exit"], 1) << objects[1];
  EXPECT_THAT(three["command"].get<std::string>(), HasSubstr("mpirun -np 3 ")) << objects[1];
  EXPECT_THAT(o.err, HasSubstr("rank 2 did not return")) << o.err;
  EXPECT_THAT(o.err, HasSubstr("the other p were not run; this one alone: ")) << o.err;
}

// The same after another rank's error ended the run: the error is reported, and the rank
// that does not return beside it. The watchdog time (3 s) leaves rank 1 time to reach its
// call on a loaded host while rank 2 holds a core.
TEST(MpirunExit, ARankLoopingInItsOwnCodeAfterAnErrorIsNamedWithTheError) {
  const Outcome o = mpirun("-np 4 --watchdog 3 --engine threads " + job("rank_endings") +
                           " spin_after_error");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: rank 1 failed: MPI_Send: MPI_ERR_RANK")) << o.err;
  EXPECT_THAT(o.err, HasSubstr("rank 2 did not return within 3 s")) << o.err;
}

// A rank that crashes takes the process with it (every rank is in it): vmc mpirun names the
// rank and dies of the signal, as the rank's own process would; under --json its object is
// printed first, with the report line and the shell's status for the signal.
TEST(MpirunExit, ARankThatCrashesIsNamedAndItsJobObjectPrinted) {
  const Outcome o = mpirun("-np 3 " + job("rank_endings") + " segv");
  EXPECT_EQ(o.exit_code, 139) << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: rank 1 crashed (SIGSEGV at address 0x0): the ranks "
                               "share vmc's "
                               "process, so the whole run ends\n"));
  const Outcome j = mpirun("-np 1:3 --json " + job("rank_endings") + " segv");
  EXPECT_EQ(j.exit_code, 139) << j.err;
  const std::vector<std::string> objects = lines_of(j.out);
  ASSERT_EQ(objects.size(), 2u) << j.out;
  const nlohmann::json crash = nlohmann::json::parse(objects[1]);
  EXPECT_EQ(nlohmann::json::parse(objects[0])["exit"], 0) << objects[0];  // p = 1: no rank 1
  EXPECT_EQ(crash["p"], 2) << objects[1];
  EXPECT_EQ(crash["exit"], 139) << objects[1];
  EXPECT_EQ(crash["report"], nlohmann::json::array({"rank 1 crashed (SIGSEGV at address 0x0): the "
                                                    "ranks share vmc's process, so the whole run "
                                                    "ends"}));
  EXPECT_THAT(crash["command"].get<std::string>(), HasSubstr("mpirun -np 2 ")) << objects[1];
}

// A rank that overflows its stack (a recursion without end) is named as any crash, with the
// address below its stack: the report runs on a stack of its own, on both engines.
TEST(MpirunExit, ARankThatOverflowsItsStackIsNamed) {
  for (const char* engine : {"fibers", "threads"}) {
    const Outcome o = mpirun(std::string("-np 3 --engine ") + engine + " " + job("rank_endings") +
                             " stack_overflow");
    EXPECT_EQ(o.exit_code, 139) << engine << ": " << o.err;
    EXPECT_THAT(o.err, ContainsRegex("vmc mpirun: rank 1 crashed \\(SIGSEGV at address 0x[0-9a-f]+, "
                                     "below the rank's stack: a stack overflow\\): the ranks "
                                     "share vmc's process"))
        << engine << ": " << o.err;
  }
}

// Without --json the table gets the crashing p's row, with the shell's status and the report
// line, then its end: the failing p with its command, and the p left not run.
TEST(MpirunExit, ARankThatCrashesEndsAnNpTableWithItsRow) {
  const Outcome o = mpirun("-np 1:3 " + job("rank_endings") + " segv");
  EXPECT_EQ(o.exit_code, 139) << o.err;
  const std::vector<std::string> lines = lines_of(o.out);
  ASSERT_EQ(lines.size(), 5u) << o.out;  // the head, p = 1, p = 2, failed at, its command
  EXPECT_THAT(lines[1], MatchesRegex(" +1 +0 .* ok")) << o.out;
  EXPECT_THAT(lines[2], MatchesRegex(" +2 +139 +- +- +full:2 +rank 1 crashed \\(SIGSEGV at address "
                                     "0x0\\): the ranks share vmc's process, so the whole run "
                                     "ends"))
      << o.out;
  EXPECT_EQ(lines[3], "failed at 1 of 3 p: 2; not run: 3 (p = 2 ended the process)") << o.out;
  EXPECT_THAT(lines[4], StartsWith("  p = 2: ")) << o.out;
  EXPECT_THAT(lines[4], HasSubstr("mpirun -np 2 --topology full:2 ")) << o.out;
  EXPECT_THAT(o.err, HasSubstr("the other p were not run; this one alone: ")) << o.err;
  // At the range's last p no other p is left out.
  const Outcome last = mpirun("-np 1:2 " + job("rank_endings") + " segv");
  EXPECT_EQ(last.exit_code, 139) << last.err;
  EXPECT_THAT(last.out, HasSubstr("failed at 1 of 2 p: 2\n")) << last.out;
  EXPECT_THAT(last.err, HasSubstr("vmc mpirun: this one alone: ")) << last.err;
  EXPECT_THAT(last.err, Not(HasSubstr("not run"))) << last.err;
}

// The same for a rank that does not return after the watchdog ended its job.
TEST(MpirunExit, ARankLoopingInItsOwnCodeEndsAnNpTableWithItsRow) {
  const Outcome o = mpirun("-np 2:4 --watchdog 0.5 " + job("rank_endings") + " spin");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const std::vector<std::string> lines = lines_of(o.out);
  ASSERT_EQ(lines.size(), 5u) << o.out;
  EXPECT_THAT(lines[2], MatchesRegex(" +3 +1 +- +- +full:3 +no progress for 0.5 s: the job was "
                                     "ended; its unfinished ranks: .*"))
      << o.out;
  EXPECT_EQ(lines[3], "failed at 1 of 3 p: 3; not run: 4 (p = 3 ended the process)") << o.out;
  EXPECT_THAT(lines[4], HasSubstr("mpirun -np 3 --topology full:3 ")) << o.out;
}

TEST(MpirunExit, RanksThatLeaveOutMpiFinalizeAreNamed) {
  const Outcome o = mpirun("-np 3 " + job("rank_endings") + " nofinalize");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("rank 1 returned from main without calling MPI_Finalize"));
}

TEST(MpirunExit, AnMpiCallAfterMpiFinalizeIsNamed) {
  const Outcome o = mpirun("-np 3 " + job("rank_endings") + " afterfinalize");
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("rank 1 failed: MPI_Barrier"));
  EXPECT_THAT(o.err, HasSubstr("after MPI_Finalize"));
}

TEST(Mpirun, ARankSendsToItself) {
  const Outcome o = mpirun("-np 3 " + job("rank_endings") + " self");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("rank 2 got 102 from itself"));
}

// The virtual time of `vmc mpirun --json` under store-and-forward routing, where a message's
// time grows with its hops, with every port free (no port makes one message wait for another).
double hop_timed_run(const std::string& args) {
  const Outcome o = mpirun("--json --routing store_and_forward --port all " + args);
  EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.err;
  const std::vector<std::string> lines = lines_of(o.out);
  if (lines.empty()) return -1;
  return nlohmann::json::parse(lines.back())["time_s"].get<double>();
}

// MPI_Cart_create with reorder places a grid that covers the machine on its coordinates, so a
// message to a Cart_shift neighbour crosses one link: each dimension's shift takes the time of
// an exchange between machine neighbours (world ranks 2k and 2k + 1, one hop on these
// machines). Without reorder, on a communicator whose ranks the program shuffled (or on a
// mesh whose dimensions run the other way round), some shifts cross several links.
TEST(MpirunTopology, CartCreateWithReorderPutsShiftNeighboursOneLinkApart) {
  struct Case {
    const char* machine;
    const char* grid;  // cart_shift's arguments after reorder's place: DIMS PERIODIC
    const char* parent;
    int dims;
  };
  for (const Case& c : {Case{"mesh:4x4", "4x4 0", "scrambled", 2},
                        Case{"torus:4x4", "4x4 1", "scrambled", 2},
                        Case{"mesh:2x8", "2x8 0", "", 2},
                        Case{"hypercube:16", "4x4 1", "", 2},
                        Case{"torus:2x4x2", "2x4x2 1", "scrambled", 3}}) {
    SCOPED_TRACE(c.machine);
    const std::string machine = std::string("--topology ") + c.machine + " ";
    const double one_hop = hop_timed_run(machine + job("cart_shift") + " pairs " +
                                         std::to_string(c.dims));
    const std::string grid = job("cart_shift") + " " + c.grid;
    const double placed = hop_timed_run(machine + grid + " 1 " + c.parent);
    const double kept = hop_timed_run(machine + grid + " 0 " + c.parent);
    EXPECT_GT(one_hop, 0);
    EXPECT_EQ(placed, one_hop);
    EXPECT_GT(kept, one_hop);
  }
  // --stats says where a grid went (and --json), once for all ranks; not when it stayed.
  const Outcome placed = mpirun("--topology mesh:2x8 --stats " + job("cart_shift") + " 2x8 0 1");
  ASSERT_EQ(placed.exit_code, 0) << placed.err;
  const std::string line =
      "vmc mpirun: MPI_Cart_create placed a grid of 2 x 8 on the machine: grid coordinates = "
      "mesh:2x8's machine coordinates\n";
  EXPECT_THAT(placed.err, HasSubstr(line));
  EXPECT_EQ(placed.err.find(line), placed.err.rfind(line));
  const Outcome kept = mpirun("--topology mesh:2x8 --stats " + job("cart_shift") + " 2x8 0 0");
  EXPECT_THAT(kept.err, Not(HasSubstr("placed a grid")));
  const Outcome json = mpirun("--topology hypercube:16 --json " + job("cart_shift") + " 4x4 1 1");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(lines_of(json.out).back())["notes"],
            nlohmann::json::array({"MPI_Cart_create placed a grid of 4 x 4 on the machine: grid "
                                   "coordinates Gray coded into hypercube:16's node bits"}));
}

TEST(MpirunRanges, EveryPFromOneTo12FailsExactlyAtOddPWithTheCommandThatReproducesIt) {
  const Outcome o = mpirun("-np 1:12 --alpha 1us " + job("odd_p"));
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  std::set<int> failed, seen;
  const std::regex row(R"(^\s*(\d+)\s+(\d+)\s+.*full:\d+\s)");
  for (const std::string& line : lines_of(o.out)) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    const int p = std::stoi(m[1]);
    seen.insert(p);
    if (m[2] != "0") failed.insert(p);
  }
  EXPECT_EQ(seen, (std::set<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})) << o.out;
  EXPECT_EQ(failed, (std::set<int>{1, 3, 5, 7, 9, 11})) << o.out;
  EXPECT_THAT(o.out, HasSubstr("failed at 6 of 12 p: 1, 3, 5, 7, 9, 11\n"));
  EXPECT_THAT(o.out, HasSubstr("rank 0 exited with status 1"));
  // The program's own output is not shown for ranges.
  EXPECT_THAT(o.out, Not(HasSubstr("expected")));
  // The command printed for p = 7 runs p = 7 alone and fails the same way.
  const std::string command = line_with(o.out, "p = 7: ");
  ASSERT_NE(command, "") << o.out;
  const std::string line = command.substr(command.find(": ") + 2);
  EXPECT_THAT(line, HasSubstr("mpirun -np 7 --topology full:7 --alpha 1us "));
  const Outcome again = vmc::testing::run_shell(line, kSeconds);
  EXPECT_EQ(again.exit_code, 1) << line << "\n" << again.err;
  EXPECT_THAT(again.out, HasSubstr("p = 7: sum 21, expected 28"));
}

TEST(MpirunRanges, AFamilyTakesItsShapePerP) {
  const Outcome o = mpirun("-np 1:6 --topology mesh " + job("odd_p"));
  for (const char* shape : {"mesh:1x1", "mesh:1x2", "mesh:1x3", "mesh:2x2", "mesh:1x5",
                            "mesh:2x3"}) {
    EXPECT_THAT(o.out, HasSubstr(shape)) << o.out;
  }
  EXPECT_THAT(o.out, HasSubstr("mpirun -np 5 --topology mesh:1x5 "));
  const Outcome even = mpirun("-np 2,4,8,16 --topology hypercube " + job("odd_p"));
  EXPECT_EQ(even.exit_code, 0) << even.out << even.err;
  EXPECT_THAT(even.out, HasSubstr("hypercube:16"));
  EXPECT_THAT(even.out, HasSubstr("every p passed (4 runs)"));
}

TEST(MpirunRanges, JsonGivesAnObjectPerP) {
  const Outcome o = mpirun("-np 2:4 --json " + job("odd_p"));
  EXPECT_EQ(o.exit_code, 1);
  const std::vector<std::string> lines = lines_of(o.out);
  ASSERT_EQ(lines.size(), 3u) << o.out;
  for (int i = 0; i < 3; ++i) {
    const auto j = nlohmann::json::parse(lines[i]);
    EXPECT_EQ(j["p"], i + 2);
    EXPECT_EQ(j["exit"], (i + 2) % 2);
    EXPECT_EQ(j.contains("command"), (i + 2) % 2 == 1);
    EXPECT_GT(j["messages"].get<int>(), 0);
  }
  EXPECT_THAT(o.err, HasSubstr("failed at 1 of 3 p: 3"));
  // A sweep that passes: JSON Lines on stdout only, its summary on stderr.
  const Outcome even = mpirun("-np 2,4 --json " + job("odd_p"));
  EXPECT_EQ(even.exit_code, 0) << even.err;
  EXPECT_EQ(lines_of(even.out).size(), 2u) << even.out;
  EXPECT_THAT(even.err, HasSubstr("every p passed (2 runs)"));
}

TEST(MpirunRanges, RefusesWhatWritesOneRun) {
  const Outcome o = mpirun("-np 1:3 --trace t.json " + job("odd_p"));
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("--trace writes one run"));
  const Outcome size = mpirun("-np 1:3 --topology ring:4 " + job("odd_p"));
  EXPECT_EQ(size.exit_code, 2);
  EXPECT_THAT(size.err, HasSubstr("disagrees with --topology ring:4"));
  // Ranges far beyond what a machine holds are refused before any run, not generated first.
  expect_refused("-np 1:100000000 " + job("odd_p"), "(100000000 entries; at most 10000)");
  expect_refused("-np 1:18446744073709551615:x2 " + job("odd_p"),
                 "bad topology \"full:65536\": too big");
  expect_refused("-np 0 " + job("odd_p"),
                 "vmc: --np: a job has 1 rank or more (got 0) (see vmc mpirun --help)\n");
}

// Every line of `text` matches `pattern`, whose first group is the rank of the tag and whose
// second, when it matched, the rank the line itself names: they must agree. Returns how many
// lines each rank wrote.
std::map<int, int> whole_lines(const std::string& text, const std::string& pattern) {
  std::map<int, int> count;
  const std::regex line_form(pattern);
  for (const std::string& line : lines_of(text)) {
    std::smatch m;
    if (!std::regex_match(line, m, line_form)) {
      ADD_FAILURE() << "a line not whole: \"" << line << "\"";
      continue;
    }
    if (m[2].matched && m[1] != m[2]) ADD_FAILURE() << "a line of another rank: " << line;
    ++count[std::stoi(m[1])];
  }
  return count;
}

TEST(MpirunOutput, TagOutputPrefixesEveryLineOfManyRanksWithoutMixingThem) {
  for (const char* engine : {"threads", "fibers"}) {
    const Outcome o = mpirun(std::string("-np 8 --tag-output --engine ") + engine + " " +
                             job("lines") + " 200");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const std::map<int, int> out = whole_lines(
        o.out, R"(\[1,(\d+)\]<stdout>:(?:rank (\d+) line \d+ of 200|done|no newline at the end))");
    const std::map<int, int> err =
        whole_lines(o.err, R"(\[1,(\d+)\]<stderr>:rank (\d+) err \d+)");
    for (int r = 0; r < 8; ++r) {
      EXPECT_EQ(out.at(r), 202) << engine;  // 200 lines, "done" and the last partial line
      EXPECT_EQ(err.at(r), 200) << engine;
    }
  }
}

TEST(MpirunOutput, WithoutTagsLinesAreWholeToo) {
  const Outcome o = mpirun("-np 6 --engine threads " + job("lines") + " 300");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::regex line_form(R"(rank (\d+) line \d+ of 300|done|no newline at the end)");
  std::map<int, int> count;
  for (const std::string& line : lines_of(o.out)) {
    std::smatch m;
    if (!std::regex_match(line, m, line_form)) {
      ADD_FAILURE() << "a line not whole: \"" << line << "\"";
    } else if (m[1].matched) {
      ++count[std::stoi(m[1])];
    }
  }
  for (int r = 0; r < 6; ++r) EXPECT_EQ(count[r], 300);
  EXPECT_EQ(lines_of(o.out).size(), 6u * 302);
}

TEST(MpirunOutput, VmcxxProgramsCoutAndCerrAreKeptWholeAndTagged) {
  const fs::path dir = fs::path(::testing::TempDir()) / "vmc_mpirun_cxx";
  fs::create_directories(dir);
  const std::string program = (dir / "lines_cxx").string();
  const Outcome built = vmc::testing::run_shell(
      shell_quoted(VMCXX) + " -O1 " + shell_quoted(std::string(JOBS_SOURCE_DIR) + "/lines_cxx.cpp") +
          " -o " + shell_quoted(program),
      kSeconds);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const Outcome o = mpirun("-np 6 --engine threads --tag-output " + shell_quoted(program));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::map<int, int> out =
      whole_lines(o.out, R"(\[1,(\d+)\]<stdout>:rank (\d+) (?:cout|printf) \d+)");
  const std::map<int, int> err = whole_lines(o.err, R"(\[1,(\d+)\]<stderr>:rank (\d+) cerr \d+)");
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(out.at(r), 100);
    EXPECT_EQ(err.at(r), 50);
  }
  const Outcome show = vmc::testing::run_shell(shell_quoted(VMCXX) + " -show x.cpp", kSeconds);
  EXPECT_THAT(show.out, HasSubstr("-Wl,-Bsymbolic"));
  EXPECT_THAT(show.out, HasSubstr("-lvmc_mpi"));
}

// On the virtual clock the ranks' lines come out in virtual-time order, lines of one instant
// in rank order: the same text on every run and on both engines, where a real MPI (and vmc
// before) writes them as the host's schedule has the ranks reach them.
TEST(MpirunOutput, LinesComeInVirtualTimeOrderTheSameOnEveryRun) {
  std::string first_out, first_err;
  for (const char* engine : {"fibers", "threads", "fibers", "threads", "fibers", "threads"}) {
    const Outcome o = mpirun(std::string("-np 8 --engine ") + engine + " " + job("ordered"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    if (first_out.empty()) {
      first_out = o.out;
      first_err = o.err;
      const std::vector<std::string> lines = lines_of(o.out);
      ASSERT_EQ(lines.size(), 32u) << o.out;
      for (int r = 0; r < 8; ++r) {
        EXPECT_EQ(lines[r], "start " + std::to_string(r)) << o.out;      // time 0, rank order
        EXPECT_EQ(lines[8 + r], "chain " + std::to_string(7 - r)) << o.out;  // the chain's order
      }
      std::vector<std::string> err_lines = lines_of(o.err);
      ASSERT_EQ(err_lines.size(), 8u) << o.err;
      for (int r = 0; r < 8; ++r) EXPECT_EQ(err_lines[r], "chain " + std::to_string(7 - r));
      continue;
    }
    EXPECT_EQ(o.out, first_out) << engine;
    EXPECT_EQ(o.err, first_err) << engine;
  }
  // --output-order host: as the ranks write them (their order is the host's), every line.
  const Outcome host = mpirun("-np 8 --engine threads --output-order host " + job("ordered"));
  ASSERT_EQ(host.exit_code, 0) << host.err;
  std::vector<std::string> got = lines_of(host.out), want = lines_of(first_out);
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want) << host.out;
  expect_refused("-np 2 --output-order time " + job("ordered"), "--output-order");
}

// A crash ends the process with the pass behind the ranks: the lines it had not handed on
// are written before the process dies, none lost.
TEST(MpirunOutput, ARankThatCrashesLosesNoLineWrittenBeforeIt) {
  const Outcome o = mpirun("-np 6 " + job("ordered") + " crash");
  EXPECT_EQ(o.exit_code, 139) << o.err;
  for (int r = 0; r < 6; ++r) {
    EXPECT_THAT(o.out, HasSubstr("start " + std::to_string(r) + "\n")) << o.out;
    EXPECT_THAT(o.out, HasSubstr("chain " + std::to_string(r) + "\n")) << o.out;
    EXPECT_THAT(o.err, HasSubstr("chain " + std::to_string(r) + "\n")) << o.err;
  }
  EXPECT_THAT(o.err, HasSubstr("rank 1 crashed (SIGSEGV at address ")) << o.err;
}

TEST(MpirunStats, StatsPrintTheTimeAndTheStatisticsOfVmcRun) {
  const Outcome o = mpirun("-np 4 --topology ring:4 --stats " + job("odd_p"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("p = 4: sum 10, expected 10"));
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: 4 ranks on ring:4, virtual clock\ntime       "));
  for (const char* line : {"\nmessages   ", " bytes)\n", "\nstartups   ", "\nwaiting    ",
                           "\ncontention ", "\nlinks      busiest "}) {
    EXPECT_THAT(o.err, HasSubstr(line));
  }
}

TEST(MpirunStats, JsonIsOneObjectAfterTheProgramsOutput) {
  const Outcome o = mpirun("-np 4 --topology ring:4 --alpha 10us --json " + job("odd_p"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::vector<std::string> lines = lines_of(o.out);
  ASSERT_EQ(lines.size(), 2u) << o.out;
  EXPECT_EQ(lines[0], "p = 4: sum 10, expected 10");
  const auto j = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(j["p"], 4);
  EXPECT_EQ(j["topology"], "ring:4");
  EXPECT_EQ(j["exit"], 0);
  EXPECT_GT(j["time_s"].get<double>(), 10e-6);
  EXPECT_GT(j["messages"].get<int>(), 0);
  EXPECT_GT(j["bytes"].get<int>(), 0);
  for (const char* key : {"startups", "token_wait_s", "contention_delay_s", "links", "model"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_FALSE(j["links"].empty());
}

TEST(MpirunStats, TraceAndShowWriteTheirFiles) {
  const fs::path dir = fs::path(::testing::TempDir()) / "vmc_mpirun_files";
  fs::create_directories(dir);
  const fs::path trace = dir / "ring.json", page = dir / "ring.html";
  fs::remove(trace);
  fs::remove(page);
  const Outcome o = mpirun("-np 5 --topology ring:5 --trace " + shell_quoted(trace.string()) +
                           " --show " + shell_quoted(page.string()) + " " + job("odd_p"));
  EXPECT_EQ(o.exit_code, 1) << o.err;  // odd p: the program's own failure; the run completed
  const auto j = nlohmann::json::parse(vmc::testing::slurp(trace.string()));
  EXPECT_FALSE(j["traceEvents"].empty());
  const std::string html = vmc::testing::slurp(page.string());
  EXPECT_THAT(html, HasSubstr("<title>vmc show: MPI program "));
  EXPECT_THAT(html, HasSubstr("odd_p on ring:5</title>"));
  EXPECT_THAT(html, HasSubstr("\"program\":"));
  EXPECT_THAT(o.err, HasSubstr("vmc mpirun: wrote " + page.string() + ": open it in a web browser"));
}

// The run data of a vmc show page: its first run's, without what names the run (the program,
// or the algorithm and its description) and how the page shows what each node holds (an
// operation's page follows its items from the root; a program's, whatever it sends), which
// differ by construction.
nlohmann::json page_run(const fs::path& page) {
  const std::string html = vmc::testing::slurp(page.string());
  const std::string open = "<script id=\"vmc-data\" type=\"application/json\">";
  const auto a = html.find(open);
  const auto b = html.find("</script>", a);
  if (a == std::string::npos || b == std::string::npos) return {};
  auto run = nlohmann::json::parse(html.substr(a + open.size(), b - a - open.size()))["runs"][0];
  nlohmann::json kept;
  for (const char* key : {"messages", "combines", "model", "network", "stats", "time_ps"}) {
    kept[key] = run[key];
  }
  return kept;
}

TEST(MpirunStats, AnMpiCollectivesTraceAndPageAreVmcRunsAndVmcShowsOfTheSameCall) {
  const fs::path dir = fs::path(::testing::TempDir()) / "vmc_mpirun_same";
  fs::create_directories(dir);
  struct Case {
    std::string machine, args, op;
  };
  for (const Case& c : {Case{"hypercube:8", "allreduce 1000", "--op allreduce --n 1000"},
                        Case{"mesh:3x4", "bcast 77 5", "--op broadcast --n 77 --root 5"},
                        Case{"ring:6", "allreduce 3", "--op allreduce --n 3"}}) {
    const fs::path t1 = dir / "mpi.json", t2 = dir / "run.json";
    const fs::path p1 = dir / "mpi.html", p2 = dir / "show.html";
    const Outcome mpi = mpirun("--topology " + c.machine + " --trace " + shell_quoted(t1.string()) +
                               " --show " + shell_quoted(p1.string()) + " " +
                               job("one_collective") + " " + c.args);
    ASSERT_EQ(mpi.exit_code, 0) << mpi.err;
    const std::string vmc = shell_quoted(VMC_BINARY);
    const Outcome run = vmc::testing::run_shell(
        vmc + " run --topology " + c.machine + " " + c.op + " --type double --trace " +
            shell_quoted(t2.string()),
        kSeconds);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const Outcome show = vmc::testing::run_shell(
        vmc + " show --topology " + c.machine + " " + c.op + " --type double -o " +
            shell_quoted(p2.string()),
        kSeconds);
    ASSERT_EQ(show.exit_code, 0) << show.err;
    // The trace, byte for byte; the page's messages, combines, holdings, statistics and time.
    EXPECT_EQ(vmc::testing::slurp(t1.string()), vmc::testing::slurp(t2.string())) << c.machine;
    const nlohmann::json a = page_run(p1), b = page_run(p2);
    EXPECT_FALSE(a["messages"].empty()) << c.machine;
    EXPECT_EQ(a, b) << c.machine;
  }
}

TEST(MpirunColl, NamesOperationsByVmcsOrMpisNamesAndRefusesUnknownOnes) {
  const Outcome ok = mpirun("-np 4 --coll allreduce=ring,MPI_Bcast=binomial,barrier=auto " +
                            job("odd_p"));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  const Outcome op = mpirun("-np 4 --coll allreduse=ring " + job("odd_p"));
  EXPECT_EQ(op.exit_code, 2);
  EXPECT_THAT(op.err, HasSubstr("no collective operation \"allreduse\""));
  EXPECT_THAT(op.err, HasSubstr("allgather, "));
  EXPECT_THAT(op.err, HasSubstr("MPI's bcast, reduce_scatter_block"));
  const Outcome algorithm = mpirun("-np 4 --coll bcast=ring_of_fire " + job("odd_p"));
  EXPECT_EQ(algorithm.exit_code, 2);
  EXPECT_THAT(algorithm.err, HasSubstr("broadcast has no algorithm \"ring_of_fire\""));
  EXPECT_THAT(algorithm.err, HasSubstr("(expected auto, "));
  EXPECT_THAT(algorithm.err, HasSubstr("binomial"));
  const Outcome twice = mpirun("-np 4 --coll bcast=binomial,broadcast=auto " + job("odd_p"));
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_THAT(twice.err, HasSubstr("broadcast is named twice"));
}

TEST(MpirunPrivatize, EveryRankHasItsOwnGlobalsByDefault) {
  const Outcome o = mpirun("-np 4 " + job("globals"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (int r = 0; r < 4; ++r) {
    EXPECT_THAT(o.out, HasSubstr("rank " + std::to_string(r) + " sees " + std::to_string(r + 1)));
  }
}

// mpirun's -n is -np.
TEST(MpirunRanges, DashNIsTheCountOfRanksAsMpirunsIs) {
  const Outcome o = mpirun("-n 3 " + job("globals"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("rank 2 sees 3"));
  EXPECT_THAT(o.out, Not(HasSubstr("rank 3 ")));
}

// Open MPI's command lines: --oversubscribe and --allow-run-as-root are taken (no effect);
// an option vmc mpirun does not have is refused by its name, also before -np (which was read
// as "-n p" after it).
TEST(MpirunRanges, OpenMpisFlagsAreTakenAndAnUnknownOptionIsNamed) {
  const Outcome o = mpirun("--oversubscribe --allow-run-as-root -np 3 " + job("globals"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("rank 2 sees 3"));
  for (const char* before : {"--bogus -np 3 ", "--mca btl self -np 3 ", "-np 3 --bogus "}) {
    const Outcome refused = mpirun(before + job("globals"));
    EXPECT_EQ(refused.exit_code, 2) << before << refused.err;
    EXPECT_THAT(refused.err, HasSubstr("mpirun: unknown option --")) << before << refused.err;
    EXPECT_THAT(refused.err, Not(HasSubstr("-np list"))) << before << refused.err;
  }
}

TEST(MpirunPrivatize, NoneSharesOneCopyAmongTheRanks) {
  for (const char* engine : {"threads", "fibers"}) {
    const Outcome o =
        mpirun(std::string("-np 4 --privatize none --engine ") + engine + " " + job("globals"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    for (int r = 0; r < 4; ++r) EXPECT_THAT(o.out, HasSubstr("rank " + std::to_string(r) + " sees 10"));
  }
}

// --shared-malloc (timing only): every rank's large blocks share one memory, so what rank 0
// writes into its block every rank reads in its own; small blocks, calloc, realloc and free
// work as libc's. Without it each rank's blocks are its own; with data it is refused.
TEST(MpirunSharedMalloc, LargeBlocksShareOneMemoryAcrossRanksInTimingOnlyJobs) {
  for (const char* engine : {"threads", "fibers"}) {
    const Outcome o = mpirun(std::string("-np 4 --stats --data none --shared-malloc 4K --engine ") +
                             engine + " " + job("shared_malloc"));
    ASSERT_EQ(o.exit_code, 0) << engine << ": " << o.err;
    for (int r = 0; r < 4; ++r) {
      EXPECT_THAT(o.out, HasSubstr("rank " + std::to_string(r) + ": shared\n")) << engine;
    }
    // --stats says what was shared. Each rank: two blocks of 1 MiB, the calloc of 256 KiB,
    // its realloc to 2 MiB, and realloc(NULL, 1 MiB).
    EXPECT_THAT(o.err, HasSubstr("vmc mpirun: --shared-malloc 4096: 20 blocks of the program "
                                 "(21.0 MiB asked for) shared one memory of 16 MiB\n"))
        << engine;
  }
  // A program that fails by itself in a timing-only job is told why it may have.
  const Outcome checked = mpirun("-np 2 --data none " + job("rank_endings") + " exit5");
  EXPECT_NE(checked.exit_code, 0) << checked.err;
  EXPECT_THAT(checked.err, HasSubstr("(a timing-only job, --data none: no payload reaches a "
                                     "receive buffer"));
  const Outcome own = mpirun("-np 4 --data none " + job("shared_malloc"));
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_THAT(own.out, HasSubstr("rank 0: shared\n"));  // its own write
  for (int r = 1; r < 4; ++r) {
    EXPECT_THAT(own.out, HasSubstr("rank " + std::to_string(r) + ": private\n"));
  }
  // Above the blocks' length nothing is shared.
  const Outcome above =
      mpirun("-np 2 --stats --data none --shared-malloc 4194304 " + job("shared_malloc"));
  ASSERT_EQ(above.exit_code, 0) << above.err;
  EXPECT_THAT(above.out, HasSubstr("rank 1: private\n"));
  EXPECT_THAT(above.err, HasSubstr("--shared-malloc 4194304: the program asked for no block of "
                                   "4194304 bytes or more: nothing was shared"));
  expect_refused("-np 2 --data none --shared-malloc 4X " + job("shared_malloc"),
                 "\"4X\" is not a size in bytes (e.g. 4096, 4K");
  expect_refused("-np 2 --shared-malloc 4096 " + job("shared_malloc"),
                 "--shared-malloc gives every rank's large buffers one memory: timing only "
                 "(add --data none)");
}

// A program linked by a vmcc from before malloc went to vmc's (its malloc libc's) is refused
// by --shared-malloc, which would share none of its blocks: the link below is vmcc's without
// the four --wrap options of malloc, calloc, realloc and free.
TEST(MpirunSharedMalloc, AProgramWhoseMallocIsLibcsIsRefusedNamingIt) {
  const fs::path dir = fs::path(::testing::TempDir()) / "vmc_mpirun_libc_malloc";
  fs::create_directories(dir);
  const fs::path source = dir / "libc_malloc.c", program = dir / "libc_malloc";
  {
    std::ofstream out(source);
    out << "#include <mpi.h>\n#include <stdlib.h>\n"
           "int main(int argc, char** argv) {\n"
           "  MPI_Init(&argc, &argv);\n  free(malloc(1 << 20));\n  return MPI_Finalize();\n}\n";
  }
  const Outcome show = vmc::testing::run_shell(
      shell_quoted(VMCC) + " -show " + shell_quoted(source.string()) + " -o " +
          shell_quoted(program.string()),
      kSeconds);
  ASSERT_EQ(show.exit_code, 0) << show.err;
  std::string command = show.out;
  for (const char* call : {"malloc", "calloc", "realloc", "free"}) {
    const std::string wrap = std::string(" -Wl,--wrap=") + call;
    const std::size_t at = command.find(wrap + " ");
    ASSERT_NE(at, std::string::npos) << call;
    command.erase(at, wrap.size());
  }
  const Outcome built = vmc::testing::run_shell(command, kSeconds);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const Outcome o = mpirun("-np 2 --data none --shared-malloc 4096 " +
                           shell_quoted(program.string()));
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_THAT(o.err, HasSubstr("libc_malloc: built by a vmcc that left its malloc to libc: "
                               "--shared-malloc would share none of its blocks"));
  // Without the option it runs.
  EXPECT_EQ(mpirun("-np 2 --data none " + shell_quoted(program.string())).exit_code, 0);
}

TEST(MpirunErrno, EachRankKeepsItsErrnoWhenRanksShareAWorker) {
  // One worker: every switch between ranks happens on one thread.
  for (const char* flags : {"--engine fibers --workers 1", "--engine fibers --workers 2",
                            "--engine threads"}) {
    const Outcome o = mpirun(std::string("-np 6 ") + flags + " " + job("errno_per_rank"));
    EXPECT_EQ(o.exit_code, 0) << flags << "\n" << o.err;
  }
}

// Each rank's line of getopt_ranks: "rank R scan S: ...".
std::string scan_line(int rank, int scan, const std::string& found) {
  return "rank " + std::to_string(rank) + " scan " + std::to_string(scan) + ": " + found + "\n";
}

TEST(MpirunGetopt, EveryRankParsesItsOwnArguments) {
  // Scan 1 before MPI_Init, scan 2 after optind = 1 with a barrier after every call (every
  // other rank's calls come between two of one rank's), scan 3 after optind = 0.
  for (const char* engine : {"threads", "fibers"}) {
    const Outcome o = mpirun(std::string("-np 4 --engine ") + engine + " " + job("getopt_ranks") +
                             " -n 7 -v --long x");
    ASSERT_EQ(o.exit_code, 0) << engine << "\n" << o.out << o.err;
    for (int r = 0; r < 4; ++r) {
      for (int scan : {1, 2}) {
        EXPECT_THAT(o.out, HasSubstr(scan_line(r, scan, "n=7 v=1 long=x optind=6 rest=")))
            << engine << "\n" << o.out;
      }
      EXPECT_THAT(o.out, HasSubstr(scan_line(r, 3, "n=3 v=1 long=w optind=5 rest=")))
          << engine << "\n" << o.out;
    }
  }
}

TEST(MpirunGetopt, GroupedOptionsAndOperandsSurviveOtherRanksCalls) {
  // -vn7: two options in one argument, whose position libc keeps hidden; "extra": an operand
  // libc moves after the options. Every rank's scan 2 is rebuilt after other ranks' calls.
  for (const char* engine : {"threads", "fibers"}) {
    const Outcome o = mpirun(std::string("-np 3 --engine ") + engine + " " + job("getopt_ranks") +
                             " -vn7 extra --long=y -v");
    ASSERT_EQ(o.exit_code, 0) << engine << "\n" << o.out << o.err;
    for (int r = 0; r < 3; ++r) {
      for (int scan : {1, 2}) {
        EXPECT_THAT(o.out, HasSubstr(scan_line(r, scan, "n=7 v=2 long=y optind=4 rest=extra")))
            << engine << "\n" << o.out;
      }
    }
  }
}

TEST(MpirunPointToPoint, DatatypeQueriesBsendInitGetStatusIsendrecvAndNullTypes) {
  // jobs/p2p_calls.c: every rank checks them and says "p2p ok"; under the rendezvous protocol
  // an MPI_Isendrecv must also wait for its send.
  for (const std::string flags :
       {"-np 2 --engine threads", "-np 3 --engine fibers",
        "-np 4 --engine threads --topology ring:4", "-np 3 --engine fibers --protocol rendezvous",
        "-np 2 --engine threads --protocol rendezvous"}) {
    const bool rendezvous = flags.find("rendezvous") != std::string::npos;
    const Outcome o = mpirun(flags + " " + job("p2p_calls") + (rendezvous ? " rendezvous" : ""));
    EXPECT_EQ(o.exit_code, 0) << flags << "\n" << o.out << o.err;
    const int p = flags[4] - '0';
    for (int r = 0; r < p; ++r) {
      EXPECT_THAT(o.out, HasSubstr("rank " + std::to_string(r) + ": p2p ok\n")) << flags;
    }
  }
}

TEST(MpirunUserOp, AUserOpOnRecordsOfADerivedTypeIsChargedPerElementAsAPredefinedOp) {
  // jobs/user_op_time.c: every reduction on 480 ints, as MPI_SUM on MPI_INT, as a user's sum
  // on MPI_INT and as a user's sum on 120 records of a contiguous type of 4 MPI_INT. vmc's
  // algorithm splits the records' buffers only between whole records, but beta, gamma and
  // delta are charged per element, so the three take one virtual time, with `auto` and with
  // named algorithms that split the vector (recursive halving, rings) or do not, and
  // through the nonblocking forms.
  for (const std::string flags :
       {"-np 8 --topology hypercube:8", "-np 6 --topology mesh:2x3",
        "-np 7 --topology torus:7", "-np 5 --topology ring:5",
        "-np 8 --coll allreduce=recursive_doubling,reduce_scatter=recursive_halving",
        "-np 5 --topology ring:5 --coll allreduce=ring,reduce=binomial,scan=linear",
        "-np 8 nonblocking", "-np 6 --topology mesh:2x3 nonblocking"}) {
    std::map<std::string, double> time;
    // "nonblocking": the program's I forms (mpi/nbc.cpp's schedules), waited for at once.
    const std::size_t nb = flags.find(" nonblocking");
    const std::string machine = flags.substr(0, nb);
    const std::string form = nb == std::string::npos ? "" : " nonblocking";
    for (const char* mode : {"predefined", "user", "records"}) {
      const Outcome o =
          mpirun(machine + " --json " + job("user_op_time") + " " + mode + form);
      ASSERT_EQ(o.exit_code, 0) << flags << " " << mode << "\n" << o.out << o.err;
      EXPECT_THAT(o.out, HasSubstr("user_op_time ok\n")) << flags << " " << mode;
      const auto j = nlohmann::json::parse(lines_of(o.out).back());
      time[mode] = j["time_s"].get<double>();
    }
    EXPECT_GT(time["predefined"], 0) << flags;
    EXPECT_EQ(time["user"], time["predefined"]) << flags;
    EXPECT_EQ(time["records"], time["predefined"]) << flags;
  }
}

TEST(MpirunLibcState, EachRankDrawsItsOwnRandomNumbersAndTokenizesItsOwnString) {
  // jobs/libc_state.c: libc keeps strtok's position and the generators' state once per
  // process; each rank must get what a process of its own gets from the same calls, however
  // the ranks interleave (threads and fibers).
  for (const std::string flags : {"-np 6 --engine threads", "-np 5 --engine fibers"}) {
    const Outcome o = mpirun(flags + " " + job("libc_state"));
    ASSERT_EQ(o.exit_code, 0) << flags << "\n" << o.out << o.err;
    const int p = flags[4] - '0';
    for (int rank = 0; rank < p; ++rank) {
      srand(rank % 2 == 0 ? unsigned(rank) + 1 : 1u);  // an unseeded generator is seeded with 1
      unsigned long h = 0;
      for (int i = 0; i < 300; ++i) h = h * 31 + static_cast<unsigned long>(rand());
      srand48(7L * rank + 3);
      double d = 0;
      for (int i = 0; i < 100; ++i) d += drand48();
      char line[160];
      std::snprintf(line, sizeof line, "rank %d: rand %lu drand48 %.12f strtok r%d|a|b|c%d|d|\n",
                    rank, h, d, rank, rank);
      EXPECT_THAT(o.out, HasSubstr(line)) << flags;
    }
  }
}

TEST(MpirunUnwaited, ARequestNeverCompletedFailsTheRunNamingTheCall) {
  // jobs/unwaited.c: MPI_Finalize with a request the program never completed (erroneous).
  const Outcome coll = mpirun("-np 3 " + job("unwaited") + " collective");
  EXPECT_EQ(coll.exit_code, 1) << coll.out << coll.err;
  EXPECT_THAT(coll.err, HasSubstr("MPI_Finalize: MPI_ERR_REQUEST: 1 nonblocking collective(s) "
                                  "started and never completed by a wait or a test: "
                                  "MPI_Ibcast(root 0, 1 x MPI_INT, MPI_COMM_WORLD)"));
  const Outcome p2p = mpirun("-np 2 " + job("unwaited") + " p2p");
  EXPECT_EQ(p2p.exit_code, 1) << p2p.out << p2p.err;
  EXPECT_THAT(p2p.err, HasSubstr("never completed"));
}

TEST(MpirunRemoved, Mpi1FunctionsMpi30RemovedReachVmc) {
  // Declared by vmc's mpi.h, so that they reach libvmc_mpi, not the other MPI library in
  // vmc's process, whose MPI_Errhandler_set would end the run ("called before MPI_INIT").
  const Outcome o = mpirun("-np 3 " + job("mpi1_removed"));
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  for (int r = 0; r < 3; ++r) {
    EXPECT_THAT(o.out, HasSubstr("rank " + std::to_string(r) + ": mpi1 ok\n")) << o.out;
  }
}

TEST(MpirunLink, ASymbolNobodyDefinesIsALinkErrorNamingIt) {
  // vmcc, vmcxx and vmc::mpi link with -Wl,--no-undefined: a function no library defines (an
  // MPI function mpi.h does not declare, called by its plain name) fails the build, not the
  // load, and never binds to another library of vmc's process.
  const fs::path dir = fs::path(::testing::TempDir()) / "vmc_mpirun_undefined";
  fs::create_directories(dir);
  for (const char* compiler : {VMCC, VMCXX}) {
    const fs::path source = dir / (compiler == std::string(VMCC) ? "undefined.c" : "undefined.cpp");
    {
      std::ofstream out(source);
      out << "#include <mpi.h>\n"
             "int MPI_Not_a_function(int x);\n"
             "int main(int argc, char** argv) {\n"
             "  MPI_Init(&argc, &argv);\n"
             "  MPI_Not_a_function(1);\n"
             "  return MPI_Finalize();\n"
             "}\n";
    }
    const Outcome built = vmc::testing::run_shell(
        shell_quoted(compiler) + " " + shell_quoted(source.string()) + " -o " +
            shell_quoted((dir / "undefined").string()),
        kSeconds);
    EXPECT_NE(built.exit_code, 0) << compiler;
    EXPECT_THAT(built.err, HasSubstr("MPI_Not_a_function")) << compiler;
    const Outcome show = vmc::testing::run_shell(shell_quoted(compiler) + " -show x.c", kSeconds);
    EXPECT_THAT(show.out, HasSubstr("-Wl,--no-undefined")) << compiler;
  }
}

TEST(MpirunWraps, LibvmcMpiDefinesEveryCallVmccWraps) {
  // libvmc_mpi, or the archive linked into every program (getopt's).
  const Outcome library = vmc::testing::run_shell(
      "nm -D --defined-only " + shell_quoted(LIBVMC_MPI), kSeconds);
  ASSERT_EQ(library.exit_code, 0) << library.err;
  const Outcome archive = vmc::testing::run_shell(
      "nm --defined-only " + shell_quoted(LIBVMC_MPI_PER_RANK), kSeconds);
  ASSERT_EQ(archive.exit_code, 0) << archive.err;
  const std::string defined = library.out + archive.out;
  std::istringstream calls(WRAPPED_CALLS);
  int n = 0;
  for (std::string call; calls >> call; ++n) {
    EXPECT_THAT(defined, HasSubstr(" T __wrap_" + call + "\n")) << call;
  }
  EXPECT_GE(n, 20);
  const Outcome show = vmc::testing::run_shell(shell_quoted(VMCC) + " -show x.c -o x", kSeconds);
  std::istringstream again(WRAPPED_CALLS);
  for (std::string call; again >> call;) {
    EXPECT_THAT(show.out, HasSubstr("-Wl,--wrap=" + call + " ")) << call;
  }
}

// --fail: a rank that fails on purpose. Under MPI_ERRORS_RETURN the rank that needed it gets
// MPI_ERR_PROC_FAILED and goes on; the job reports the failure and the call, and exits as its
// surviving ranks do. Under the default handler the job ends.
TEST(MpirunFailures, ErrorsReturnGivesProcFailedAndTheProgramGoesOn) {
  for (const char* engine : {"threads", "fibers"}) {
    SCOPED_TRACE(engine);
    const Outcome o = mpirun(std::string("-np 4 --engine ") + engine +
                             " --alpha 1us --fail node:1@0 " + job("proc_failed") + " return");
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_THAT(o.out, HasSubstr("rank 2: MPI_ERR_PROC_FAILED from rank 1"));
    EXPECT_THAT(o.out, HasSubstr("rank 3: got 2"));
    EXPECT_THAT(o.out, HasSubstr("rank 0: got 3"));
    EXPECT_THAT(o.out, Not(HasSubstr("rank 1:")));
    EXPECT_THAT(o.err, HasSubstr("rank 1 failed at 0 s (--fail)"));
    EXPECT_THAT(o.err, HasSubstr("rank 2: recv from rank 1 tag 0 in MPI_Recv("));
    // Rank 2's send of one int takes alpha + beta = 3 us; its receive from rank 1, stopped at
    // 0, then fails at once.
    EXPECT_THAT(o.err, HasSubstr("MPI_ERR_PROC_FAILED at 3 us (rank 1 had failed)"));
  }
}

TEST(MpirunFailures, ShowDrawsTheFailedRank) {
  const fs::path page = fs::temp_directory_path() / "vmc_failures_show.html";
  const Outcome o = mpirun("-np 4 --fail node:1@0 --show " + shell_quoted(page.string()) + " " +
                           job("proc_failed") + " return");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string text = vmc::testing::slurp(page.string());
  fs::remove(page);
  // The run's data names rank 1 as failed at time 0; the page draws it so.
  EXPECT_THAT(text, HasSubstr("\"failed\":[[1,0]]"));
  EXPECT_THAT(text, HasSubstr("classList.toggle(\"failed\""));
}

TEST(MpirunFailures, TheDefaultHandlerEndsTheJob) {
  const Outcome o = mpirun("-np 4 --fail node:1@0 " + job("proc_failed"));
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_THAT(o.err, HasSubstr("MPI_ERR_PROC_FAILED"));
  EXPECT_THAT(o.err, HasSubstr("rank 1 failed at 0 s (--fail)"));
}

TEST(MpirunFailures, BadSpecsAreRefused) {
  const Outcome o = mpirun("-np 4 --fail node:9@0 " + job("proc_failed"));
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("node 9 is not a node of this machine of 4 nodes"));
  const Outcome link = mpirun("-np 4 --fail link:1-9@0 " + job("proc_failed"));
  EXPECT_EQ(link.exit_code, 2) << link.err;
  EXPECT_THAT(link.err, HasSubstr("link 1-9: node 9 is not a node of this machine"));
  // A sweep whose smallest job has no such rank is refused before any job runs.
  const Outcome sweep = mpirun("-np 1:6 --fail node:1@10ms " + job("proc_failed"));
  EXPECT_EQ(sweep.exit_code, 2) << sweep.err;
  EXPECT_THAT(sweep.err, HasSubstr("--fail: rank 1 is not a rank of the sweep's smallest job, "
                                   "-np 1: start -np at 2 or above"));
  EXPECT_EQ(sweep.out, "");
}

// The calls that wait for a failed rank without naming it (docs/model.md, "Waits on a failed
// node that name none"): a receive and a probe from any source, a synchronous send to it and
// MPI_Comm_dup get MPI_ERR_PROC_FAILED under MPI_ERRORS_RETURN, and the ranks go on. Exchange
// ports: rank 0's send to 3 holds its port over 0-3 us (alpha + beta), rank 2's message to 0
// then 3-6 us; rank 0's first receive from any source takes it (matched at 0, before any
// failure would be known to it), the second fails as it is posted, at 6 us (rank 1 stopped at
// 0); rank 2's MPI_Ssend to rank 1, reached at 6 us, fails then; rank 3's probe at 3 us.
TEST(MpirunFailures, WaitsThatNameNoFailedRankGetProcFailedAndGoOn) {
  for (const char* engine : {"threads", "fibers"}) {
    SCOPED_TRACE(engine);
    const Outcome o = mpirun(std::string("-np 4 --engine ") + engine +
                             " --alpha 1us --fail node:1@0 " + job("any_failed"));
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_THAT(o.out, HasSubstr("rank 0: got 2 from rank 2"));
    EXPECT_THAT(o.out, HasSubstr("rank 0: MPI_Recv from any source: MPI_ERR_PROC_FAILED"));
    EXPECT_THAT(o.out, HasSubstr("rank 2: MPI_Ssend to rank 1: MPI_ERR_PROC_FAILED"));
    EXPECT_THAT(o.out, HasSubstr("rank 3: MPI_Probe from any source: MPI_ERR_PROC_FAILED"));
    for (int r : {0, 2, 3}) {
      EXPECT_THAT(o.out, HasSubstr("rank " + std::to_string(r) +
                                   ": MPI_Comm_dup: MPI_ERR_PROC_FAILED"));
    }
    EXPECT_THAT(o.err, HasSubstr("rank 0: recv from any rank tag 0 in MPI_Recv(source "
                                 "MPI_ANY_SOURCE, tag 0, MPI_COMM_WORLD): MPI_ERR_PROC_FAILED at "
                                 "6 us (rank 1 had failed)"));
    EXPECT_THAT(o.err, HasSubstr("rank 2: send to rank 1 tag 0 in MPI_Ssend(dest 1, tag 0, "
                                 "MPI_COMM_WORLD): MPI_ERR_PROC_FAILED at 6 us"));
    EXPECT_THAT(o.err, HasSubstr("rank 3: probe from any rank tag 5 in MPI_Probe("));
    EXPECT_THAT(o.err, HasSubstr("rank 3: create_group in MPI_Comm_dup(MPI_COMM_WORLD): "
                                 "MPI_ERR_PROC_FAILED at 3 us"));
  }
}

// MPI_Error_string gives a failure's whole text, the cause at its end, though the call it
// names takes a communicator's long name: MPI_MAX_ERROR_STRING is 1024 (at 256 the text below
// lost its last words).
TEST(MpirunFailures, ErrorStringKeepsTheCauseOfALongFailureText) {
  const Outcome o = mpirun("-np 4 --alpha 1us --fail node:1@0 " + job("any_failed") + " named");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("rank 0: MPI_Recv: MPI_ERR_PROC_FAILED: node 0: recv from any rank "
                               "tag 0 in MPI_Recv(source MPI_ANY_SOURCE, tag 0, the world of a job "
                               "whose communicator is named at length): node 1 has failed (it "
                               "stopped at 0 s; the first member of the comm to fail) and no "
                               "message had matched this receive by then ("))
      << o.out;
}

// The intercommunicator constructors are told of a failed rank as the others are: rank 3
// stops at its MPI_Intercomm_create (tests/mpi_front/jobs/inter_failed.c), and the three
// other ranks' calls, which need it, return MPI_ERR_PROC_FAILED; the job goes on and exits 0.
TEST(MpirunFailures, IntercommCreateGetsProcFailedAndGoesOn) {
  for (const char* engine : {"threads", "fibers"}) {
    SCOPED_TRACE(engine);
    const Outcome o = mpirun(std::string("-np 4 --engine ") + engine +
                             " --alpha 1us --fail node:3@1ns " + job("inter_failed"));
    EXPECT_EQ(o.exit_code, 0) << o.err;
    for (int r : {0, 1, 2}) {
      EXPECT_THAT(o.out, HasSubstr("rank " + std::to_string(r) +
                                   ": MPI_Intercomm_create: MPI_ERR_PROC_FAILED"))
          << o.out << o.err;
    }
    EXPECT_THAT(o.out, Not(HasSubstr("rank 3:")));
    // Rank 2's one int reaches rank 3 at alpha + beta = 3 us: rank 3's next call is its stop.
    EXPECT_THAT(o.err, HasSubstr("rank 3 failed at 3 us (--fail)")) << o.err;
    EXPECT_THAT(o.err, HasSubstr("rank 2: create_group in MPI_Intercomm_create(local leader 0, "))
        << o.err;
  }
}

// --fail link:A-B@T (docs/mpi.md, "Failed links"): rank 1's message to rank 2 is lost; under
// MPI_ERRORS_RETURN rank 2's receive returns MPI_ERR_OTHER (MPI has no class for a failed
// link) and the program goes on; the job reports the link, the lost message and the call.
TEST(MpirunFailures, AFailedLinkGivesErrOtherAndTheProgramGoesOn) {
  const Outcome o = mpirun("-np 4 --alpha 1us --fail link:1-2@0 " + job("proc_failed") +
                           " return");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("rank 2: got -1"));
  EXPECT_THAT(o.out, HasSubstr("rank 3: got 2"));
  EXPECT_THAT(o.err, HasSubstr("link 1-2 down at 0 s (--fail) rerouted none, lost 1 message"));
  EXPECT_THAT(o.err, HasSubstr("message lost: rank 1 to rank 2 tag 0, sent at 0 s, on link 1-2"));
  // Rank 2 sends first (3 us); its receive then takes the marker at once.
  EXPECT_THAT(o.err, HasSubstr("rank 2: recv from rank 1 tag 0 in MPI_Recv("));
  EXPECT_THAT(o.err, HasSubstr("MPI_ERR_OTHER at 3 us (the message was lost on link 1-2)"));
}

// A failure whose rank makes no MPI call at or after its time never fires: the job succeeds
// and says so, as vmc run does, so that it is not taken for a failure that happened. --json
// gives the failures in fields: the link, and the lost message's tag as a number (a message
// of the program's own: no collective call).
TEST(MpirunFailures, AFailureThatNeverFiredIsNamedAndJsonGivesFields) {
  const Outcome late = mpirun("-np 4 --alpha 1us --fail node:1@1s " + job("proc_failed") +
                              " return");
  EXPECT_EQ(late.exit_code, 0) << late.err;
  EXPECT_THAT(late.out, HasSubstr("rank 2: got 1"));
  EXPECT_THAT(late.err, HasSubstr("vmc mpirun: rank 1 did not fail: it made no MPI call at or "
                                  "after 1 s, its failure's time (--fail)\n"));
  const Outcome json = mpirun("-np 4 --alpha 1us --fail link:1-2@0 --json " +
                              job("proc_failed") + " return");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(lines_of(json.out).back());
  const nlohmann::json& f = j["failures"];
  EXPECT_EQ(f["links"][0]["link"], "1-2") << j.dump();
  EXPECT_EQ(f["links"][0]["lost"], 1) << j.dump();
  ASSERT_EQ(f["lost"].size(), 1u) << j.dump();
  EXPECT_EQ(f["lost"][0]["sender"], 1);
  EXPECT_EQ(f["lost"][0]["receiver"], 2);
  EXPECT_EQ(f["lost"][0]["tag"], 0);
  EXPECT_TRUE(f["lost"][0]["collective_call"].is_null()) << j.dump();
  EXPECT_EQ(f["failed_calls"][0]["node"], 2) << j.dump();
  EXPECT_EQ(f["failed_calls"][0]["link"], "1-2") << j.dump();
}

// On a network with another route the message goes round (docs/model.md, "Failed links"):
// on ring:4 rank 1's message to rank 2 takes 1-0-3-2 with 1-2 down, every rank gets its left
// neighbour's number, and the job ends well under the default handler, reporting the link;
// with --fail-routes fixed the message is lost, and MPI_ERRORS_ARE_FATAL ends the job.
TEST(MpirunFailures, AMessageRoutesAroundAFailedLinkAndTheProgramGoesOn) {
  const std::string ring = "-np 4 --topology ring:4 --alpha 1us --fail link:1-2@0 ";
  const Outcome o = mpirun(ring + job("proc_failed"));
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("rank 2: got 1"));
  EXPECT_THAT(o.err, HasSubstr("link 1-2 down at 0 s (--fail) rerouted 1 message, lost none"));
  const Outcome fixed = mpirun(ring + "--fail-routes fixed " + job("proc_failed"));
  EXPECT_EQ(fixed.exit_code, 1) << fixed.err;
  EXPECT_THAT(fixed.err, HasSubstr("link 1-2 down at 0 s (--fail) lost 1 message"));
}

}  // namespace
