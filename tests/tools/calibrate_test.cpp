// `vmc calibrate` under mpirun, as a user runs it: it prints fitted alpha, beta and gamma
// with their errors and as flags the other commands take. What it measures depends on the
// machine and its load, so only its form is held: one point per length, errors that are
// not negative, and either positive values with flags that vmc explain accepts or a failed
// run that says the machine was too busy. Without mpirun
// (one process) it is a usage error that says how to run it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "shell.hpp"

namespace {

using ::testing::HasSubstr;

using vmc::testing::Outcome;

Outcome run(const std::string& command) { return vmc::testing::run_shell(command, 300); }

// mpirun on this machine only, as root too (containers), more processes than cores, and
// without the shared-memory transport's single-copy mode (cross-process reads that
// containers without ptrace rights refuse; copies through shared memory work everywhere).
std::string mpirun(int processes) {
  return std::string("'") + VMC_MPIEXEC +
         "' --oversubscribe --allow-run-as-root --mca btl_vader_single_copy_mechanism none -np " +
         std::to_string(processes) + " '" + VMC_BINARY + "'";
}

void expect_positive_finite(const nlohmann::json& j, const char* key) {
  ASSERT_TRUE(j.contains(key)) << key;
  const double v = j[key].get<double>();
  EXPECT_TRUE(std::isfinite(v) && v > 0) << key << " = " << v;
}

// What holds under any load: a fit with positive values, or (a machine so busy that even
// the fastest repetitions do not fit a line) a failed run that says so. Both print the
// points measured.
TEST(Calibrate, PrintsFittedParametersWithTheirErrorsAndAsFlags) {
  for (int processes : {2, 3}) {
    const Outcome o =
        run(mpirun(processes) + " calibrate --quick --json --lengths 0,1,16,256,4096");
    ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.exit_code << "\n" << o.err;
    const nlohmann::json j = nlohmann::json::parse(o.out);  // one object: rank 0 prints
    EXPECT_EQ(j["processes"], processes);
    EXPECT_EQ(j["item_bytes"], 4);  // float
    ASSERT_EQ(j["messages"].size(), 5u);
    ASSERT_EQ(j["combines"].size(), 4u);  // no combine of 0 items
    for (const auto& p : j["messages"]) {
      EXPECT_GT(p["measured_s"].get<double>(), 0);
      EXPECT_GE(p["repetitions"].get<int>(), 3);
    }
    for (const char* key : {"alpha_error_s", "beta_error_s", "gamma_error_s",
                            "messages_rms_relative", "combines_rms_relative"}) {
      const double v = j[key].get<double>();
      EXPECT_TRUE(std::isfinite(v) && v >= 0) << key << " = " << v;
    }
    EXPECT_EQ(j["fits"].get<bool>(), o.exit_code == 0);
    if (o.exit_code == 1) {
      EXPECT_THAT(o.err, HasSubstr("too busy to measure")) << o.err;
      EXPECT_FALSE(j.contains("flags"));
      continue;
    }
    for (const char* key : {"alpha_s", "beta_s", "gamma_s"}) expect_positive_finite(j, key);
    // The flags are what vmc explain takes.
    const std::string flags = j["flags"];
    const Outcome e = run(std::string("'") + VMC_BINARY +
                          "' explain --op allreduce --topology full:4 --n 1000 " + flags);
    EXPECT_EQ(e.exit_code, 0) << flags << "\n" << e.err;
  }
}

TEST(Calibrate, TheTableNamesEveryParameter) {
  const Outcome o = run(mpirun(2) + " calibrate --quick --type double");
  ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.exit_code << "\n" << o.err;
  EXPECT_THAT(o.out, HasSubstr("items of double (8 bytes)"));
  EXPECT_THAT(o.out, HasSubstr("alpha = "));
  EXPECT_THAT(o.out, HasSubstr("gamma = "));
  if (o.exit_code == 0) EXPECT_THAT(o.out, HasSubstr("--alpha "));
  else EXPECT_THAT(o.err, HasSubstr("too busy to measure"));
}

TEST(Calibrate, OneProcessIsAUsageErrorThatSaysHowToRunIt) {
  const Outcome o = run(std::string("'") + VMC_BINARY + "' calibrate --quick");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("mpirun -np 2 vmc calibrate"));
  const Outcome big = run(mpirun(2) + " calibrate --lengths 1000000000");
  EXPECT_NE(big.exit_code, 0);
  EXPECT_THAT(big.err, HasSubstr("--lengths"));
}

// A malformed flag is named before anything runs, with or without mpirun.
TEST(Calibrate, MalformedFlagsAreNamed) {
  const std::string vmc = std::string("'") + VMC_BINARY + "' calibrate ";
  for (const std::string& bad : {std::string("--lengths abc"), std::string("--lengths 0,1,2"),
                                 std::string("--lengths 1:4:x0"), std::string("--lengths ''"),
                                 std::string("--lengths 2000000000")}) {
    const Outcome o = run(vmc + bad);
    EXPECT_EQ(o.exit_code, 2) << bad << "\n" << o.err;
    EXPECT_THAT(o.err, HasSubstr("--lengths")) << bad;
  }
  const Outcome type = run(vmc + "--type bogus");
  EXPECT_EQ(type.exit_code, 2) << type.err;
  EXPECT_THAT(type.err, HasSubstr("--type"));
}

}  // namespace
