// nccl-tests' algorithm and bus bandwidths (tools/bandwidth.hpp) as vmc run and vmc sweep
// report them: the factors of each operation, and the columns held to the runs' exact
// virtual times.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

#include "shell.hpp"
#include "tools/bandwidth.hpp"

namespace vmc::testing {
namespace {

using cli::bandwidth;
using cli::bandwidth_bytes;
using cli::bus_factor;

TEST(Bandwidth, FactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Operation::allreduce, 4), 1.5);  // 2 (p-1) / p
  EXPECT_DOUBLE_EQ(bus_factor(Operation::allgather, 4), 0.75);  // (p-1) / p
  EXPECT_DOUBLE_EQ(bus_factor(Operation::reduce_scatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::alltoall, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::gather, 5), 0.8);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::broadcast, 7), 1);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::reduce, 7), 1);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::scan, 7), 1);
  EXPECT_DOUBLE_EQ(bus_factor(Operation::allreduce, 1), 0);  // nothing crosses a link
  // S: the vector for allreduce, every rank's block for the others.
  EXPECT_DOUBLE_EQ(bandwidth_bytes(Operation::allreduce, 10, 4, 8), 40);
  EXPECT_DOUBLE_EQ(bandwidth_bytes(Operation::allgather, 10, 4, 8), 320);
  EXPECT_DOUBLE_EQ(bandwidth_bytes(Operation::alltoallv, 10, 8, 3), 240);
  EXPECT_FALSE(bandwidth(Operation::barrier, 0, 4, 8, 1.0));
  EXPECT_FALSE(bandwidth(Operation::allreduce, 10, 4, 1, 0.0));  // a run of no time
  const auto bw = bandwidth(Operation::allreduce, 1000, 4, 4, 2e-6);
  ASSERT_TRUE(bw);
  EXPECT_DOUBLE_EQ(bw->algbw, 2e9);
  EXPECT_DOUBLE_EQ(bw->busbw, 3e9);
}

nlohmann::json run_json(const std::string& args) {
  const Outcome o =
      run_shell(shell_quoted(VMC_BINARY) + " run --json --alpha 10us --beta 1us " + args, 120);
  EXPECT_EQ(o.exit_code, 0) << args << "\n" << o.err;
  return nlohmann::json::parse(o.out);
}

// One message of 1000 int32 on full:2: t = alpha + n beta = 1010 us exactly.
TEST(Bandwidth, RunReportsThemOnTheExactTime) {
  const nlohmann::json b =
      run_json("--topology full:2 --op broadcast --n 1000 --type int32 --gamma 0");
  EXPECT_DOUBLE_EQ(b["time_s"].get<double>(), 1010e-6);
  EXPECT_DOUBLE_EQ(b["algbw_Bps"].get<double>(), 4000 / 1010e-6);
  EXPECT_DOUBLE_EQ(b["busbw_Bps"].get<double>(), 4000 / 1010e-6);
  // allgather ring on full:4, duplex ports: (p-1) (alpha + n beta) = 3 * 1010 us.
  const nlohmann::json g = run_json(
      "--topology full:4 --port duplex --op allgather --algorithm ring --n 1000 --type int32");
  EXPECT_DOUBLE_EQ(g["time_s"].get<double>(), 3030e-6);
  EXPECT_DOUBLE_EQ(g["algbw_Bps"].get<double>(), 16000 / 3030e-6);
  EXPECT_DOUBLE_EQ(g["busbw_Bps"].get<double>(), 16000 / 3030e-6 * 0.75);
  // allreduce: S the vector, f = 2 (p-1) / p, on the run's own time.
  const nlohmann::json r = run_json("--topology hypercube:8 --op allreduce --n 64 --type double");
  const double t = r["time_s"].get<double>();
  EXPECT_DOUBLE_EQ(r["algbw_Bps"].get<double>(), 512 / t);
  EXPECT_DOUBLE_EQ(r["busbw_Bps"].get<double>(), 512 / t * 1.75);
  const nlohmann::json barrier = run_json("--topology hypercube:8 --op barrier");
  EXPECT_TRUE(barrier["algbw_Bps"].is_null());
  EXPECT_TRUE(barrier["busbw_Bps"].is_null());
  const Outcome text = run_shell(shell_quoted(VMC_BINARY) +
                                     " run --topology full:2 --op broadcast --n 1000 --type "
                                     "int32 --alpha 10us --beta 1us --gamma 0",
                                 120);
  EXPECT_THAT(text.out, ::testing::HasSubstr("bandwidth  algbw 0.0039604 GB/s, busbw 0.0039604 "
                                             "GB/s"));
}

// vmc sweep's last two columns: the same on every row's measured time.
TEST(Bandwidth, SweepReportsThemOnEveryRow) {
  const Outcome o = run_shell(shell_quoted(VMC_BINARY) +
                                  " sweep --topology full:4 --op reduce_scatter --algorithms "
                                  "ring --n 1,100 --type int64 --alpha 10us --beta 1us",
                              120);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::istringstream csv(o.out);
  std::string line;
  std::getline(csv, line);
  ASSERT_EQ(line, "algorithm,n,predicted_s,measured_s,messages,startups,detail,topology,p,"
                  "algbw_Bps,busbw_Bps");
  int rows = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 11u) << line;
    const double n = std::stod(f[1]), measured = std::stod(f[3]);
    const double algbw = n * 8 * 4 / measured;  // every rank's block of n int64
    EXPECT_NEAR(std::stod(f[9]), algbw, algbw * 2e-5) << line;  // the CSV's 6 digits
    EXPECT_NEAR(std::stod(f[10]), algbw * 0.75, algbw * 2e-5) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 2);
}

}  // namespace
}  // namespace vmc::testing
