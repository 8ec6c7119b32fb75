// Running a command as a user types it, for the tests of the vmc program: its exit code and
// both output streams, under timeout(1) so that no test can hang.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace vmc::testing {

struct Outcome {
  int exit_code = -1;  // 124: timed out (timeout(1)); 128 + n: killed by signal n
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

// Runs `command` (a shell line, its words already quoted) with no input, at most `seconds`.
// ctest runs a file's tests as processes side by side: one pair of output files each.
inline Outcome run_shell(const std::string& command, int seconds) {
  const std::string prefix = ::testing::TempDir() + "/vmc_shell_" + std::to_string(::getpid());
  const std::string out = prefix + "_out.txt", err = prefix + "_err.txt";
  const std::string line = "timeout -k 5 " + std::to_string(seconds) + " " + command + " >" +
                           shell_quoted(out) + " 2>" + shell_quoted(err) + " </dev/null";
  const int status = std::system(line.c_str());
  Outcome o;
  if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) o.exit_code = 128 + WTERMSIG(status);
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

}  // namespace vmc::testing
