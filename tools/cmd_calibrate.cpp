// vmc calibrate [--type T] [--lengths L] [--quick] [--json]: fits vmc's alpha, beta and
// gamma (000 §2: a message of n items takes alpha + n beta, combining n items n gamma) to
// the machine it runs on, under mpirun.
//
// Messages: ranks 0 and 1 bounce a message of n items back and forth (MPI_Send, MPI_Recv,
// timed with MPI_Wtime around each round trip); half of the fastest round trip is the
// one-way time of n items. Combines: rank 0 applies vmc's own sum (ops::sum, the code the
// collectives run) to vectors of n items, the fastest of its repetitions. The fastest, not
// the median: other work on the machine only ever adds time (a process descheduled in the
// middle of a round trip), so the fastest repetition is the one it disturbed least. Each set of
// points is fitted by least squares (tools/fit.hpp: weighted by 1/t^2, so every point's
// relative error counts alike), with the standard errors of the coefficients; gamma's
// intercept is the call's own overhead, which vmc's model has no term for, and is reported
// beside it. The result is printed as the flags vmc run, explain and sweep take. A fit
// whose alpha, beta or gamma is not positive (a machine too busy to measure) is a failed
// run (exit 1) that says so, with the points it measured.
//
// Repetitions per length: enough for about 20 ms of round trips (2 ms with --quick), at
// least 10 (3) and at most 10,000, after two that are not timed. Rank 0 chooses and tells
// rank 1, so the two agree. Other ranks wait at the end. Timing is wall clock: what this
// command prints depends on the machine and its load (tests only check its form).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "collectives/collectives.hpp"
#include "tools/commands.hpp"
#include "tools/fit.hpp"
#include "tools/model_options.hpp"

#if VMC_HAVE_MPI
#include <mpi.h>  // its C interface (CMake's MPI_CXX_SKIP_MPICXX leaves the C++ bindings out)
#endif

namespace vmc::cli {

namespace {

struct CalibrateOptions {
  std::string type = "float";
  std::string lengths;
  bool quick = false;
  bool json = false;
};

#if VMC_HAVE_MPI

// A duration as a flag value: format_duration's text without its space ("330.695ns").
std::string flag_duration(double seconds) {
  std::string text = format_duration(seconds);
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  return text;
}

double fastest(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

struct Point {
  std::size_t n = 0;
  double seconds = 0;  // the fastest repetition
  int repetitions = 0;
};

Op sum_of(const std::string& type) {
  if (type == "float") return ops::sum<float>();
  if (type == "double") return ops::sum<double>();
  if (type == "int32") return ops::sum<std::int32_t>();
  return ops::sum<std::int64_t>();
}

std::vector<std::size_t> default_lengths(bool quick) {
  std::vector<std::size_t> n{0};
  for (std::size_t k = 1; k <= (quick ? 16384u : 262144u); k *= 4) n.push_back(k);
  return n;
}

// The lengths to time, checked before anything runs: a malformed or too large list names
// --lengths, and the fits need 3 lengths (3 that are not 0 for the combines).
std::vector<std::size_t> checked_lengths(const CalibrateOptions& o, std::size_t item) {
  std::vector<std::size_t> lengths;
  try {
    lengths = o.lengths.empty() ? default_lengths(o.quick) : parse_lengths(o.lengths);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--lengths: ") + e.what());
  }
  for (std::size_t n : lengths) {
    if (n > (std::size_t{1} << 30) / item) {
      throw UsageError("--lengths: " + std::to_string(n) + " items of " + o.type +
                       " exceed the 1 GiB a calibration message may take");
    }
  }
  if (std::count_if(lengths.begin(), lengths.end(), [](std::size_t n) { return n > 0; }) < 3) {
    throw UsageError("--lengths: the fits need at least 3 lengths that are not 0, got \"" +
                     o.lengths + "\"");
  }
  return lengths;
}

int repetitions_for(double estimate, bool quick) {
  const double budget = quick ? 2e-3 : 20e-3;
  const int least = quick ? 3 : 10;
  if (!(estimate > 0)) return 10000;
  return static_cast<int>(std::clamp(budget / estimate, double(least), 10000.0));
}

// Ranks 0 and 1 (`pair`, of those two): one-way times by ping-pong, one point per length.
std::vector<Point> ping_pong(const std::vector<std::size_t>& lengths, std::size_t item,
                             bool quick, int rank, MPI_Comm pair) {
  std::vector<Point> points;
  std::vector<char> buffer;
  for (std::size_t n : lengths) {
    buffer.assign(n * item, 1);
    const int bytes = static_cast<int>(n * item);
    auto round_trip = [&] {
      if (rank == 0) {
        MPI_Send(buffer.data(), bytes, MPI_BYTE, 1, 0, pair);
        MPI_Recv(buffer.data(), bytes, MPI_BYTE, 1, 0, pair, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buffer.data(), bytes, MPI_BYTE, 0, 0, pair, MPI_STATUS_IGNORE);
        MPI_Send(buffer.data(), bytes, MPI_BYTE, 0, 0, pair);
      }
    };
    const double start = MPI_Wtime();
    round_trip();
    round_trip();
    int reps = repetitions_for((MPI_Wtime() - start) / 2, quick);
    MPI_Bcast(&reps, 1, MPI_INT, 0, pair);
    std::vector<double> one_way(static_cast<std::size_t>(reps));
    for (double& t : one_way) {
      const double t0 = MPI_Wtime();
      round_trip();
      t = (MPI_Wtime() - t0) / 2;
    }
    points.push_back({n, fastest(one_way), reps});
  }
  return points;
}

// Rank 0: vmc's sum on n items, one point per length (n >= 1).
std::vector<Point> combines(const std::vector<std::size_t>& lengths, const std::string& type,
                            bool quick) {
  const Op op = sum_of(type);
  std::vector<Point> points;
  std::vector<char> a, b;
  for (std::size_t n : lengths) {
    if (n == 0) continue;
    a.assign(n * op.item_size(), 0);
    b.assign(n * op.item_size(), 0);
    const double start = MPI_Wtime();
    op.apply(a.data(), b.data(), b.data(), n);
    op.apply(a.data(), b.data(), b.data(), n);
    const int reps = repetitions_for((MPI_Wtime() - start) / 2, quick);
    std::vector<double> times(static_cast<std::size_t>(reps));
    for (double& t : times) {
      const double t0 = MPI_Wtime();
      op.apply(a.data(), b.data(), b.data(), n);
      t = MPI_Wtime() - t0;
    }
    points.push_back({n, fastest(times), reps});
  }
  return points;
}

// Least squares over the points (fit.hpp); throws when there are too few.
LineFit fit(const std::vector<Point>& points) {
  std::vector<double> x, y;
  for (const Point& p : points) {
    x.push_back(static_cast<double>(p.n));
    y.push_back(std::max(p.seconds, 1e-12));  // a clock tick of 0: one picosecond
  }
  return fit_line(x, y);
}

nlohmann::json points_json(const std::vector<Point>& points, const LineFit& f) {
  nlohmann::json out = nlohmann::json::array();
  for (const Point& p : points) {
    out.push_back({{"n", p.n},
                   {"measured_s", p.seconds},
                   {"fitted_s", f.a + f.b * static_cast<double>(p.n)},
                   {"repetitions", p.repetitions}});
  }
  return out;
}

void print_points(const char* what, const std::vector<Point>& points, const LineFit& f) {
  std::printf("%s\n   %10s %14s %14s %8s\n", what, "n", "measured", "fitted", "reps");
  for (const Point& p : points) {
    std::printf("   %10zu %14s %14s %8d\n", p.n, format_duration(p.seconds).c_str(),
                format_duration(f.a + f.b * static_cast<double>(p.n)).c_str(), p.repetitions);
  }
}

void calibrate(const CalibrateOptions& o) {
  const std::size_t item = sum_of(o.type).item_size();
  const std::vector<std::size_t> lengths = checked_lengths(o, item);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct Finalize {
    ~Finalize() { MPI_Finalize(); }
  } finalize;
  if (size < 2) {
    throw UsageError("vmc calibrate times messages between two processes: run it under "
                     "mpirun with 2 or more, e.g. mpirun -np 2 vmc calibrate");
  }
  MPI_Comm pair;  // ranks 0 and 1
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
  std::vector<Point> messages, sums;
  if (rank < 2) {
    messages = ping_pong(lengths, item, o.quick, rank, pair);
    MPI_Comm_free(&pair);
  }
  if (rank == 0) sums = combines(lengths, o.type, o.quick);
  // The others wait for rank 0 without spinning: on a machine with fewer cores than
  // processes a polling wait would take the cores the timed ranks need.
  MPI_Request done;
  MPI_Ibarrier(MPI_COMM_WORLD, &done);
  for (int finished = 0; !finished;) {
    MPI_Test(&done, &finished, MPI_STATUS_IGNORE);
    if (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (rank != 0) return;
  const LineFit message = fit(messages), combine = fit(sums);
  const std::string flags = "--alpha " + flag_duration(message.a) + " --beta " +
                            flag_duration(message.b) + " --gamma " + flag_duration(combine.b);
  const bool fits = message.a > 0 && message.b > 0 && combine.b > 0;
  const auto refuse = [&] {
    throw std::runtime_error(
        "the times measured do not fit alpha + n beta and n gamma with positive values (alpha " +
        format_duration(message.a) + ", beta " + format_duration(message.b) + ", gamma " +
        format_duration(combine.b) + "): the machine was too busy to measure; run vmc "
        "calibrate again when it is idle");
  };
  if (o.json) {
    nlohmann::json out{{"processes", size},
                             {"type", o.type},
                             {"item_bytes", item},
                             {"alpha_s", message.a},
                             {"alpha_error_s", message.a_error},
                             {"beta_s", message.b},
                             {"beta_error_s", message.b_error},
                             {"messages_rms_relative", message.rms_relative},
                             {"gamma_s", combine.b},
                             {"gamma_error_s", combine.b_error},
                             {"combine_overhead_s", combine.a},
                             {"combines_rms_relative", combine.rms_relative},
                             {"messages", points_json(messages, message)},
                             {"combines", points_json(sums, combine)},
                             {"fits", fits}};
    if (fits) out["flags"] = flags;
    std::cout << out.dump(2) << "\n";
    if (!fits) refuse();
    return;
  }
  std::printf("vmc calibrate: %d processes, items of %s (%zu bytes)\n\n", size, o.type.c_str(),
              item);
  print_points("one-way message time (ping-pong between ranks 0 and 1, half the fastest round "
               "trip):",
               messages, message);
  std::printf("\n");
  print_points("combine time (vmc's sum on rank 0, the fastest):", sums, combine);
  std::printf("\nalpha = %s +- %s, beta = %s +- %s per item (%d lengths, rms relative "
              "residual %.1f%%)\n",
              format_duration(message.a).c_str(), format_duration(message.a_error).c_str(),
              format_duration(message.b).c_str(), format_duration(message.b_error).c_str(),
              message.points, 100 * message.rms_relative);
  std::printf("gamma = %s +- %s per item, plus %s a call (%d lengths, rms relative residual "
              "%.1f%%)\n",
              format_duration(combine.b).c_str(), format_duration(combine.b_error).c_str(),
              format_duration(combine.a).c_str(), combine.points, 100 * combine.rms_relative);
  std::fflush(stdout);
  if (!fits) refuse();
  std::printf("\n%s\n", flags.c_str());
}

#else

void calibrate(const CalibrateOptions&) {
  throw UsageError("vmc calibrate needs MPI, and this vmc was built without it (install "
                   "libopenmpi-dev and openmpi-bin, then run tools/setup.sh again)");
}

#endif

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "fit alpha, beta and gamma to this machine (under mpirun: ping-pong between ranks 0 and "
      "1, and vmc's combine), printed as flags for run, explain and sweep");
  cmd->add_option("--type", o->type, "item type")
      ->check(CLI::IsMember({"int32", "int64", "float", "double"}));
  CLI::Option* lengths = cmd->add_option("--lengths", o->lengths,
                  "message lengths in items, e.g. 1:65536:x4 or 0,1,100 (default 0 and 1 to "
                  "262144 by x4)");
  cmd->add_flag("--quick", o->quick, "fewer lengths and repetitions (a smoke test)");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o, lengths] {
    if (lengths->count() > 0 && o->lengths.empty()) {
      throw UsageError("--lengths: empty; give a list such as 1:65536:x4, or leave it out");
    }
    calibrate(*o);
  });
}

}  // namespace vmc::cli
