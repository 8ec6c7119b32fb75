// `vmc sweep`: one operation, several algorithms, a range of lengths; predicted and measured
// time for each, as a CSV that tools/plot_sweep.sh draws the way 000 Fig. 7 does.
//
//   vmc sweep --op allreduce --topology hypercube:64
//       --algorithms reduce_broadcast,recursive_doubling,recursive_halving_doubling,hybrid_optimal
//       --n 1:65536:x2 --alpha 525us --beta 2us --gamma 0.35us [--clock virtual|real] --csv f.csv
//
// Lengths: "A:B:xK" (A, A*K, ... up to B), "A:B:+K" (A, A+K, ...), or a comma list.
// With --clock real every point runs --repeat times and the least time is kept (the box is
// shared; the least is the run the scheduler disturbed least).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"

namespace vmc::cli {

std::vector<std::size_t> parse_lengths(const std::string& text) {
  auto bad = [&] {
    return std::invalid_argument("bad length list \"" + text +
                                 "\": expected A:B:xK, A:B:+K or a comma list of counts");
  };
  auto number = [&](const std::string& s) -> std::size_t {
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
      v = std::stoull(s, &used);
    } catch (const std::exception&) {
      throw bad();
    }
    if (used != s.size() || s.empty() || s[0] == '-') throw bad();
    return static_cast<std::size_t>(v);
  };
  std::vector<std::size_t> out;
  if (text.find(':') == std::string::npos) {
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(number(item));
    if (out.empty()) throw bad();
    return out;
  }
  std::stringstream in(text);
  std::string a, b, step;
  if (!std::getline(in, a, ':') || !std::getline(in, b, ':') || !std::getline(in, step) ||
      step.size() < 2) {
    throw bad();
  }
  const std::size_t first = number(a), last = number(b), k = number(step.substr(1));
  if (first > last) throw bad();
  if (step[0] == 'x') {
    if (k < 2 || first == 0) throw bad();
    for (std::size_t n = first; n <= last; n *= k) out.push_back(n);
  } else if (step[0] == '+') {
    if (k == 0) throw bad();
    for (std::size_t n = first; n <= last; n += k) out.push_back(n);
  } else {
    throw bad();
  }
  if (out.size() > 10000) throw std::invalid_argument("length list \"" + text + "\" is too long");
  return out;
}

namespace {

struct SweepOptions {
  ModelOptions machine;
  CallOptions call;
  std::string algorithms;
  std::string lengths = "1:65536:x2";
  std::string clock = "virtual";
  double time_scale = 1.0;
  EngineOptions engine;
  int repeat = 3;
  std::string csv;
};

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) names.push_back(item);
  }
  return names;
}

void sweep(const SweepOptions& o) {
  MachineConfig config;
  config.topology = o.machine.parsed_topology();
  config.model = o.machine.model();
  config.clock = parse_clock(o.clock);
  config.time_scale = o.time_scale;
  config.trace = false;
  o.engine.apply(config);
  CallOptions call = o.call;
  call.n = 0;  // the lengths are checked one by one below
  // checks --root and the rest
  RunSpec spec = call.spec(*config.topology, config.model, config.data != Data::none);
  std::vector<std::string> names = split_names(o.algorithms);
  if (names.empty()) {
    for (const Algorithm& a : algorithms(spec.op)) {
      if (a.name != "hybrid" || !spec.strategy.empty()) names.push_back(a.name);
    }
  }
  for (const std::string& name : names) {
    if (find_algorithm(spec.op, name) == nullptr) {
      throw UsageError("--algorithms: " + o.call.op + " has no algorithm \"" + name +
                       "\" (see vmc list)");
    }
  }
  const std::vector<std::size_t> lengths = parse_lengths(o.lengths);
  // Every point must fit before the first one runs.
  for (std::size_t n : lengths) {
    RunSpec point = spec;
    point.n = n;
    check_spec(point, *config.topology, config.model);
  }
  // Algorithms that do not apply to a point are skipped and listed, not an error midway.
  std::vector<std::pair<std::string, std::size_t>> runs;  // (algorithm, n)
  std::map<std::string, std::string> skipped;             // name -> why
  for (const std::string& name : names) {
    const Algorithm& a = *find_algorithm(spec.op, name);
    for (std::size_t n : lengths) {
      RunSpec point = spec;
      point.n = n;
      point.algorithm = name;
      if (a.applicable(run_query(*config.topology, config.model, point))) {
        runs.emplace_back(name, n);
      } else {
        skipped.emplace(name, requirements_for_cli(a.requirements));
      }
    }
  }
  std::ofstream file;  // opened before anything is printed: a bad --csv is one line
  if (!o.csv.empty()) {
    file.open(o.csv);
    if (!file) throw UsageError("--csv: cannot write \"" + o.csv + "\"");
  }
  for (const auto& [name, why] : skipped) {
    std::fprintf(stderr, "vmc sweep: skipped %s where it does not apply (requires %s)\n",
                 name.c_str(), why.c_str());
  }
  Machine m(config);
  const bool real = config.clock == Clock::real_time;

  std::ostream& out = o.csv.empty() ? std::cout : file;
  out << "algorithm,n,predicted_s,measured_s,messages,startups,detail\n";
  std::map<std::string, std::pair<double, double>> deviation;  // name -> (sum, max) of |rel|
  std::map<std::string, std::size_t> points;  // name -> lengths run
  for (const auto& [name, n] : runs) {
    spec.algorithm = name;
    spec.n = n;
    ++points[name];
    RunOutcome best;
    for (int i = 0; i < (real ? o.repeat : 1); ++i) {
      RunOutcome r = run_collective(m, spec);
      if (i == 0 || r.result.time_ps() < best.result.time_ps()) best = std::move(r);
    }
    const double predicted = to_seconds(best.predicted), measured = best.result.time();
    out << name << ',' << n << ',' << predicted << ',' << measured << ','
        << best.result.stats().messages << ',' << best.result.stats().critical_startups << ','
        << best.detail << '\n';
    const double rel = predicted > 0 ? std::fabs(measured - predicted) / predicted : 0.0;
    auto& [sum, worst] = deviation[name];
    sum += rel;
    worst = std::max(worst, rel);
  }
  if (!o.csv.empty()) {
    std::printf("wrote %s: %zu runs (%zu algorithms, %zu lengths) on %s, %s clock\n",
                o.csv.c_str(), runs.size(), points.size(), lengths.size(),
                m.topology().spec().c_str(), o.clock.c_str());
  }
  std::FILE* summary = o.csv.empty() ? stderr : stdout;
  for (const std::string& name : names) {
    const std::size_t count = points[name];
    if (count == 0) continue;
    const auto& [sum, worst] = deviation[name];
    std::fprintf(summary, "%-28s measured vs predicted: mean %.2f%%, worst %.2f%%\n", name.c_str(),
                 100.0 * sum / static_cast<double>(count), 100.0 * worst);
  }
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "predicted and measured time of several algorithms over a range of lengths");
  o->machine.add_to(cmd);
  o->call.add_to(cmd, /*with_algorithm=*/false, /*count_flag=*/false);
  cmd->add_option("--algorithms", o->algorithms,
                  "comma-separated registry names (default: every one; those that do not "
                  "apply are skipped and listed)");
  cmd->add_option("--n", o->lengths, "lengths: A:B:xK, A:B:+K or a comma list")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              parse_lengths(text);
            } catch (const std::exception& e) {
              return e.what();
            }
            return {};
          },
          "LENGTHS"));
  add_clock_options(cmd, o->clock, o->time_scale);
  o->engine.add_to(cmd);
  cmd->add_option("--repeat", o->repeat, "real clock: runs per point, the least time is kept")
      ->capture_default_str()
      ->check(int_check(1, 1000));
  cmd->add_option("--csv", o->csv, "write the CSV here (default: standard output)")
      ->check(non_empty_check());
  cmd->callback([o] { sweep(*o); });
}

}  // namespace vmc::cli
