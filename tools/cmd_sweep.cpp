// `vmc sweep`: one operation, several algorithms, a range of lengths; predicted and measured
// time for each, as a CSV that tools/plot_sweep.sh draws the way 000 Fig. 7 does.
//
//   vmc sweep --op allreduce --topology hypercube:64
//       --algorithms reduce_broadcast,recursive_doubling,recursive_halving_doubling,hybrid_optimal
//       --n 1:65536:x2 --alpha 525us --beta 2us --gamma 0.35us [--clock virtual|real] --csv f.csv
//
// Lengths: "A:B:xK" (A, A*K, ... up to B), "A:B:+K" (A, A+K, ...), "A:B" (every count from A
// to B), or a comma list.
// Networks: --topology again and again puts several on one CSV (its topology column, a curve
// per algorithm@topology in tools/plot_sweep.sh); --p LIST sweeps over node counts instead,
// each --topology then a family (hypercube, ring, array, full, tree; mesh and torus take the
// squarest 2-D shape of P nodes), e.g. --topology hypercube --topology mesh --p 4:64:x2.
// With --clock real every point runs --repeat times and the least time is kept (the box is
// shared; the least is the run the scheduler disturbed least).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <memory>
#include <sstream>

#include "tools/bandwidth.hpp"
#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"

namespace vmc::cli {

std::vector<std::size_t> parse_lengths(const std::string& text, const char* what) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(std::string("bad ") + what + " \"" + text + "\": " + why);
  };
  const char* forms = "expected A:B, A:B:xK, A:B:+K or a comma list of counts";
  auto number = [&](const std::string& s) -> std::size_t {
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
      v = std::stoull(s, &used);
    } catch (const std::exception&) {
      throw bad(forms);
    }
    if (used != s.size() || s.empty() || s[0] == '-') throw bad(forms);
    return static_cast<std::size_t>(v);
  };
  constexpr std::size_t kMostEntries = 10000;
  auto too_long = [&](const std::string& entries) {
    return std::invalid_argument(std::string(what) + " \"" + text + "\" is too long (" +
                                 entries + " entries; at most " +
                                 std::to_string(kMostEntries) + ")");
  };
  std::vector<std::size_t> out;
  if (text.find(':') == std::string::npos) {
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) out.push_back(number(item));
    if (out.empty()) throw bad(forms);
    if (out.size() > kMostEntries) throw too_long(std::to_string(out.size()));
    return out;
  }
  std::stringstream in(text);
  std::string a, b, step;
  if (!std::getline(in, a, ':') || !std::getline(in, b, ':')) throw bad(forms);
  if (std::count(text.begin(), text.end(), ':') == 1) {
    step = "+1";  // A:B: every count from A to B
  } else if (!std::getline(in, step) || step.size() < 2) {
    throw bad(forms);
  }
  const std::size_t first = number(a), last = number(b), k = number(step.substr(1));
  if (step[0] != 'x' && step[0] != '+') throw bad(forms);
  if (first > last) throw bad("the range A:B runs from A up to B, and A > B here");
  // Each next entry is made only when it stays within B: a step past the largest count would
  // wrap around and the range would never end.
  if (step[0] == 'x') {
    if (k < 2) throw bad("a range A:B:xK multiplies by K, and needs K >= 2");
    if (first == 0) throw bad("a range A:B:xK multiplies by K, and cannot start at 0");
    for (std::size_t n = first;; n *= k) {  // at most 64 entries
      out.push_back(n);
      if (n > last / k) break;  // n * k > last
    }
  } else {
    if (k == 0) throw bad("a range A:B:+K adds K, and needs K >= 1");
    const std::size_t steps = (last - first) / k;  // entries - 1, which may be 2^64 - 1
    if (steps >= kMostEntries) {
      throw too_long(steps == SIZE_MAX ? "18446744073709551616" : std::to_string(steps + 1));
    }
    for (std::size_t n = first;; n += k) {
      out.push_back(n);
      if (last - n < k) break;  // n + k > last
    }
  }
  return out;
}

namespace {

struct SweepOptions {
  ModelOptions machine;
  std::vector<std::string> topologies;  // --topology, repeated
  std::string nodes;                    // --p: node counts (each topology a family)
  CallOptions call;
  std::string algorithms;
  std::string lengths = "1:65536:x2";
  std::string clock = "virtual";
  double time_scale = 1.0;
  EngineOptions engine;
  int repeat = 3;
  std::string csv;
  // --skews: uniform skew widths (Model::skew) to sweep, each a row of its own; empty: the
  // machine's --skew alone.
  std::string skews;
};

// "0,100us,1ms": the uniform skew widths of --skews, in seconds (each with a unit but 0).
std::vector<double> parse_skews(const std::string& text) {
  std::vector<double> out;
  for (const std::string& item : comma_items(text)) {
    out.push_back(parse_duration_with_unit("--skews", item));
  }
  return out;
}

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) names.push_back(item);
  }
  return names;
}

// The networks of a sweep: each --topology as given, or with --p each family at every count.
std::vector<std::shared_ptr<const Topology>> sweep_networks(const SweepOptions& o) {
  std::vector<std::string> given = o.topologies;
  if (given.empty()) given.push_back(o.machine.topology);
  std::vector<std::shared_ptr<const Topology>> nets;
  if (o.nodes.empty()) {
    for (const std::string& spec : given) nets.push_back(parse_topology(spec));
    return nets;
  }
  const std::vector<std::size_t> counts = parse_lengths(o.nodes, "node-count list");
  for (const std::string& family : given) {
    if (!is_family(family)) {
      throw UsageError("--topology " + family + ": with --p, name a family without its size "
                       "(hypercube, ring, array, full, tree, mesh or torus)");
    }
    for (std::size_t p : counts) {
      nets.push_back(family_network("--p", family, p));
    }
  }
  return nets;
}

void sweep(const SweepOptions& o) {
  const std::vector<std::shared_ptr<const Topology>> nets = sweep_networks(o);
  MachineConfig config;
  config.model = o.machine.model();
  config.clock = parse_clock(o.clock);
  config.time_scale = o.time_scale;
  config.trace = false;
  o.engine.apply(config);
  CallOptions call = o.call;
  call.n = 0;  // the lengths are checked one by one below
  // checks --root and the rest, on every network
  RunSpec spec;
  for (const auto& net : nets) spec = call.spec(*net, config.model, config.data != Data::none);
  std::vector<std::string> names = split_names(o.algorithms);
  // Rows that need a parameter the sweep was not given are left out, and listed.
  std::vector<std::pair<std::string, std::string>> left_out;  // name -> the flag it needs
  if (names.empty()) {
    for (const Algorithm& a : algorithms(spec.op)) {
      if (a.name == "hybrid" && spec.strategy.empty()) {
        left_out.emplace_back(a.name, "--strategy");
      } else if (spec.hybrid < 0 && is_member_row(spec.op, a.name)) {
        left_out.emplace_back(a.name, "--hybrid");
      } else {
        names.push_back(a.name);
      }
    }
  }
  for (const std::string& name : names) {
    if (find_algorithm(spec.op, name) == nullptr) {
      throw UsageError("--algorithms: " + o.call.op + " has no algorithm \"" + name +
                       "\" (see vmc list)");
    }
  }
  const std::vector<std::size_t> lengths = parse_lengths(o.lengths);
  for (std::size_t n : lengths) {
    if (n > kMaxCount) {
      throw UsageError("--n: " + std::to_string(n) + " in \"" + o.lengths +
                       "\" is too large; expected counts from 0 to " + std::to_string(kMaxCount));
    }
  }
  // Every point must fit before the first one runs.
  for (const auto& net : nets) {
    for (std::size_t n : lengths) {
      RunSpec point = spec;
      point.n = n;
      check_spec(point, *net, config.model);
    }
  }
  // Algorithms that do not apply to a point are skipped and listed, not an error midway.
  struct Point {
    std::size_t net;
    std::string name;
    std::size_t n;
    double skew;  // --skews: the uniform width (seconds)
  };
  const std::vector<double> skews = o.skews.empty() ? std::vector<double>{config.model.skew.uniform}
                                                    : parse_skews(o.skews);
  std::vector<Point> runs;
  std::map<std::string, std::string> skipped;  // name -> why
  for (std::size_t k = 0; k < nets.size(); ++k) {
    for (const std::string& name : names) {
      const Algorithm& a = *find_algorithm(spec.op, name);
      for (std::size_t n : lengths) {
        RunSpec point = spec;
        point.n = n;
        point.algorithm = name;
        if (a.applicable(run_query(*nets[k], config.model, point))) {
          for (double skew : skews) runs.push_back({k, name, n, skew});
        } else {
          skipped.emplace(name, requirements_for_cli(a.requirements));
        }
      }
    }
  }
  std::ofstream file;  // opened before anything is printed: a bad --csv is one line
  if (!o.csv.empty()) {
    file.open(o.csv);
    if (!file) throw UsageError("--csv: cannot write \"" + o.csv + "\"");
  }
  for (const auto& [name, flag] : left_out) {
    std::fprintf(stderr, "vmc sweep: left out %s, which runs what %s names (name it with %s)\n",
                 name.c_str(), flag.c_str(), flag.c_str());
  }
  for (const auto& [name, why] : skipped) {
    std::fprintf(stderr, "vmc sweep: skipped %s where it does not apply (requires %s)\n",
                 name.c_str(), why.c_str());
  }
  if (runs.empty()) {
    throw UsageError("nothing to sweep: no algorithm of " + o.call.op +
                     " applies at any point (see the lines above and vmc list)");
  }
  const bool real = config.clock == Clock::real_time;
  const bool several = nets.size() > 1;

  std::ostream& out = o.csv.empty() ? std::cout : file;
  const bool skewed = !o.skews.empty();
  out << "algorithm,n,predicted_s,measured_s,messages,startups,detail,topology,p,algbw_Bps,"
         "busbw_Bps"
      << (skewed ? ",skew_s\n" : "\n");
  // Rows by curve, written curve after curve: a plot draws each as one line.
  std::map<std::string, std::ostringstream> rows;
  // curve (algorithm, or algorithm@topology for several networks) -> (sum, max) of |rel|
  std::map<std::string, std::pair<double, double>> deviation;
  std::map<std::string, std::size_t> points;
  std::map<std::string, std::set<Claim>> claims;  // curve -> what its formula claims, by point
  std::vector<std::string> curves;
  std::unique_ptr<Machine> m;
  std::size_t machine_of = nets.size();
  double skew_of = -1;
  for (const Point& point : runs) {
    if (machine_of != point.net || skew_of != point.skew) {
      config.topology = nets[point.net];
      config.model.skew.uniform = point.skew;
      m = std::make_unique<Machine>(config);
      machine_of = point.net;
      skew_of = point.skew;
    }
    spec.algorithm = point.name;
    spec.n = point.n;
    const std::string topology = nets[point.net]->spec();
    std::string curve = several && o.nodes.empty() ? point.name + "@" + topology
                        : several ? point.name + "@" + nets[point.net]->family()
                                  : point.name;
    if (skews.size() > 1) curve += " skew " + format_duration(point.skew);
    if (points[curve]++ == 0) curves.push_back(curve);
    RunOutcome best;
    for (int i = 0; i < (real ? o.repeat : 1); ++i) {
      RunOutcome r = run_collective(*m, spec);
      if (i == 0 || r.result.time_ps() < best.result.time_ps()) best = std::move(r);
    }
    const double predicted = to_seconds(best.predicted), measured = best.result.time();
    rows[curve] << point.name << ',' << point.n << ',' << predicted << ',' << measured << ','
                << best.result.stats().messages << ','
                << best.result.stats().critical_startups << ',' << best.detail << ','
                << topology << ',' << m->size() << ',';
    // nccl-tests' bandwidths of the measured time (tools/bandwidth.hpp); empty for none.
    if (auto bw = bandwidth(spec.op, point.n, item_bytes(spec), m->size(), measured)) {
      rows[curve] << bw->algbw << ',' << bw->busbw;
    } else {
      rows[curve] << ',';
    }
    if (skewed) rows[curve] << ',' << point.skew;
    rows[curve] << '\n';
    claims[curve].insert(best.claim);
    const double rel = predicted > 0 ? std::fabs(measured - predicted) / predicted : 0.0;
    auto& [sum, worst] = deviation[curve];
    sum += rel;
    worst = std::max(worst, rel);
  }
  for (const std::string& curve : curves) out << rows[curve].str();
  out.flush();
  if (!o.csv.empty()) {
    std::string where;
    for (const auto& net : nets) where += (where.empty() ? "" : ", ") + net->spec();
    std::printf("wrote %s: %zu run%s (%zu curve%s, %zu length%s) on %s, %s clock\n",
                o.csv.c_str(), runs.size(), runs.size() == 1 ? "" : "s", curves.size(),
                curves.size() == 1 ? "" : "s", lengths.size(), lengths.size() == 1 ? "" : "s",
                where.c_str(), o.clock.c_str());
  }
  std::FILE* summary = o.csv.empty() ? stderr : stdout;
  // What the formula claims, said beside the deviation: a lower bound's or an estimate's
  // distance from the run is not an error of the model.
  const auto claimed = [](const std::set<Claim>& c) {
    std::string text;
    for (Claim k : c) {
      text += text.empty() ? "" : " or ";
      text += k == Claim::exact ? "exact" : k == Claim::lower_bound ? "a lower bound" : "an estimate";
    }
    return c.size() > 1 ? text + ", by point" : text;
  };
  for (const std::string& curve : curves) {
    const auto& [sum, worst] = deviation[curve];
    std::fprintf(summary, "%-28s measured vs predicted: mean %.2f%%, worst %.2f%% (the formula: %s)\n",
                 curve.c_str(), 100.0 * sum / static_cast<double>(points[curve]),
                 100.0 * worst, claimed(claims[curve]).c_str());
  }
}

}  // namespace

CLI::Validator list_check(const char* name, const char* what) {
  return parses([what](const std::string& text) { parse_lengths(text, what); }, name);
}

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "predicted and measured time of several algorithms over a range of lengths");
  o->machine.add_to(cmd);
  // Several networks: --topology may be given again and again (each checked below, since
  // with --p it names a family without its size).
  cmd->remove_option(cmd->get_option("--topology"));
  cmd->add_option("--topology", o->topologies,
                  "interconnect, e.g. hypercube:64 (again for more networks on one CSV); "
                  "with --p a family: hypercube, ring, array, full, tree, mesh or torus")
      ->default_str(kDefaultTopology);
  cmd->add_option("--p", o->nodes,
                  "node counts (A:B:xK, A:B:+K, A:B or a comma list): sweep over p, each "
                  "--topology a family")
      ->check(list_check("COUNTS", "node-count list"));
  o->call.add_to(cmd, /*with_algorithm=*/false, /*count_flag=*/false);
  cmd->add_option("--algorithms", o->algorithms,
                  "comma-separated registry names (default: every one; those that do not "
                  "apply are skipped and listed)");
  cmd->add_option("--n", o->lengths, "lengths: A:B:xK, A:B:+K, A:B or a comma list")
      ->capture_default_str()
      ->check(list_check("LENGTHS", "length list"));
  add_clock_options(cmd, o->clock, o->time_scale);
  o->engine.add_to(cmd);
  cmd->add_option("--repeat", o->repeat, "real clock: runs per point, the least time is kept")
      ->capture_default_str()
      ->check(int_check(1, 1000));
  cmd->add_option("--skews", o->skews,
                  "uniform skew widths to sweep, e.g. 0,100us,1ms: every point runs at each "
                  "(--skew uniform:W, seeded by --skew-seed), a skew_s column says which")
      ->check(parses([](const std::string& text) { parse_skews(text); }, "SKEWS"));
  cmd->add_option("--csv", o->csv, "write the CSV here (default: standard output)")
      ->check(non_empty_check());
  cmd->callback([o] {
    if (o->nodes.empty()) {
      for (const std::string& spec : o->topologies) {
        std::string text = spec;
        const std::string problem = network_check()(text);
        if (!problem.empty()) throw CLI::ValidationError("--topology", problem);
      }
    }
    sweep(*o);
  });
}

}  // namespace vmc::cli
