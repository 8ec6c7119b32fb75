// Libraries of a user's algorithms loaded by the vmc program (--load, VMC_LOAD): the example
// library's two rows run, checked against the sequential reference, in run, sweep, explain,
// figure (001's cost table), show and list; and each way a library can be refused is a one-line error naming the file and,
// where there is one, the algorithm (exit code 2). The installed package's side (a project of
// its own, vmc mpirun --coll) is tests/install's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "shell.hpp"

namespace vmc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string library(const std::string& name) {
  return std::string(VMC_LIBRARY_DIR) + "/" + name + ".so";
}

Outcome vmc(const std::string& args, const std::string& environment = "") {
  const std::string env = environment.empty() ? "" : "env " + environment + " ";
  return run_shell(env + shell_quoted(VMC_BINARY) + " " + args, 120);
}

std::string load(const std::string& name) { return "--load " + shell_quoted(library(name)); }

TEST(Load, RunsTheLibrarysAllgatherAndAllreduceWithTheRightResults) {
  Outcome o = vmc("run " + load("my_algorithms") +
          " --topology ring:5 --op allgather --algorithm my_ring --n 3 --check");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("allgather my_ring on ring:5 (p = 5), n = 3"));
  EXPECT_THAT(o.out, HasSubstr("check      correct"));
  // Non-commutative: the combine keeps rank order.
  o = vmc("run " + load("my_algorithms") +
          " --topology hypercube:8 --op allreduce --algorithm my_ring_combine --n 5 "
          "--type int64 --reduction matmul --check");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("allreduce my_ring_combine on hypercube:8"));
  EXPECT_THAT(o.out, HasSubstr("check      correct"));
}

TEST(Load, TheRowsReachSweepExplainAndList) {
  Outcome o = vmc("sweep " + load("my_algorithms") +
                  " --topology ring:4 --op allgather --algorithms my_ring,ring --n 1,8");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("my_ring,8,"));
  o = vmc("explain " + load("my_algorithms") + " --topology ring:4 --op allreduce --n 8");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("my_ring_combine"));
  // 001's cost table lists every row that applies, the library's among them; show replays one.
  o = vmc("figure 001-costs " + load("my_algorithms"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("   my_ring "));
  EXPECT_THAT(o.out, HasSubstr("   my_ring_combine "));
  o = vmc("show " + load("my_algorithms") +
          " --topology ring:4 --op allgather --algorithm my_ring --n 8 --terminal");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("allgather my_ring on ring:4: 12 messages"));
  o = vmc("list --json " + load("my_algorithms"));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string file = std::filesystem::canonical(library("my_algorithms")).string();
  int loaded = 0;
  for (const auto& row : nlohmann::json::parse(o.out)) {
    if (!row.contains("loaded_from")) continue;
    ++loaded;
    EXPECT_EQ(row["loaded_from"], file);
    EXPECT_TRUE(row["algorithm"] == "my_ring" || row["algorithm"] == "my_ring_combine") << row;
  }
  EXPECT_EQ(loaded, 2);
  o = vmc("list " + load("my_algorithms"));
  EXPECT_THAT(o.out, HasSubstr("  my_ring\n"));
  EXPECT_THAT(o.out, HasSubstr("      loaded from " + file + "\n"));
  o = vmc("list");
  EXPECT_THAT(o.out, Not(HasSubstr("my_ring")));
}

TEST(Load, VmcLoadNamesLibrariesToo) {
  // Colon-separated, empty entries skipped, and a file named twice loaded once.
  const std::string list = library("my_algorithms") + "::" + library("my_algorithms");
  Outcome o = vmc("run --topology ring:3 --op allgather --algorithm my_ring --n 2 --check " +
                      load("my_algorithms"),
                  "VMC_LOAD=" + shell_quoted(list));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("check      correct"));
  o = vmc("run --op allgather --algorithm my_ring", "VMC_LOAD=" +
                                                          shell_quoted(library("no_entry")));
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_THAT(o.err, HasSubstr("no_entry.so: it has no entry point vmc_register_algorithms"));
}

// A file named without a directory is the one in the working directory (dlopen alone would
// look on the library path), and the same file by another name is loaded once.
TEST(Load, ABareFileNameIsTheOneInTheWorkingDirectory) {
  // run_shell puts timeout(1) before the command, which runs a program: the cd needs a shell.
  const Outcome o = run_shell(
      "sh -c " + shell_quoted("cd " + shell_quoted(VMC_LIBRARY_DIR) + " && " +
                              shell_quoted(VMC_BINARY) +
                              " list --load my_algorithms.so --load ./my_algorithms.so"),
      120);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string file = std::filesystem::canonical(library("my_algorithms")).string();
  EXPECT_THAT(o.out, HasSubstr("      loaded from " + file + "\n"));
}

#ifdef VMC_MPIEXEC
// A machine spread over MPI processes: every process reads the same command line and
// environment, so every one loads the library, and the nodes of both run its rows.
TEST(Load, EveryProcessOfASpreadMachineLoadsTheLibraries) {
  const std::string mpirun =
      shell_quoted(VMC_MPIEXEC) + " --oversubscribe --allow-run-as-root -np 2 ";
  Outcome o = run_shell(mpirun + shell_quoted(VMC_BINARY) + " run --transport spread " +
                            load("my_algorithms") +
                            " --topology ring:6 --op allgather --algorithm my_ring --n 4 --check",
                        120);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("spread     over 2 MPI processes"));
  EXPECT_THAT(o.out, HasSubstr("check      correct"));
  o = run_shell("env VMC_LOAD=" + shell_quoted(library("my_algorithms")) + " " + mpirun +
                    shell_quoted(VMC_BINARY) +
                    " run --transport spread --topology ring:6 --op allreduce --algorithm "
                    "my_ring_combine --n 4 --check",
                120);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("allreduce my_ring_combine on ring:6"));
  EXPECT_THAT(o.out, HasSubstr("check      correct"));
}
#endif

// Each refusal: exit code 2, one line, the file, and what is wrong.
void expect_refused(const std::string& args, const std::string& message) {
  const Outcome o = vmc(args);
  EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.out << o.err;
  EXPECT_THAT(o.err, HasSubstr(message)) << args;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
}

TEST(Load, RefusesWhatIsNotALibraryOfAlgorithms) {
  const std::string missing = std::string(VMC_LIBRARY_DIR) + "/missing.so";
  expect_refused("list --load " + shell_quoted(missing),
                 "--load " + missing + ": cannot load it: " + missing +
                     ": cannot open shared object file");
  const std::string text = ::testing::TempDir() + "/not_a_library.so";
  std::ofstream(text) << "not a shared library\n";
  expect_refused("list --load " + shell_quoted(text), "--load " + text + ": cannot load it: ");
  expect_refused("list " + load("no_entry"),
                 library("no_entry") + ": it has no entry point vmc_register_algorithms");
  expect_refused("list " + load("other_version"),
                 library("other_version") + ": it was built against vmc 0.0.1, and this is vmc " +
                     VMC_VERSION + ": rebuild it against this vmc");
  expect_refused("list " + load("no_cost"),
                 library("no_cost") + ": broadcast: cannot register algorithm \"costless\": its "
                                      "cost function is null");
}

TEST(Load, RefusesANameThatIsTaken) {
  expect_refused("run " + load("clash_built_in"),
                 library("clash_built_in") + ": its allgather algorithm \"ring\" clashes: vmc "
                                             "has a built-in algorithm of that name");
  const std::string first = std::filesystem::canonical(library("my_algorithms")).string();
  expect_refused("sweep " + load("my_algorithms") + " " + load("clash_loaded"),
                 library("clash_loaded") + ": its allgather algorithm \"my_ring\" clashes: the "
                                           "library " + first +
                     " has already added an algorithm of that name");
}

}  // namespace
}  // namespace vmc::testing
