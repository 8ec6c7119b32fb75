// `vmc run`: one collective on generated data on an emulated machine, with the time the
// registry's cost formula predicts beside the time measured.
//
//   vmc run --topology hypercube:64 --op allreduce --algorithm recursive_doubling --n 4096
//           --alpha 525us --beta 2us --gamma 0.35us --check [--json]
//
// --n is MPI's count (see tools/runner.hpp). --check compares every node's result with a
// sequential reference; matmul is a built-in non-commutative 3x3 integer matrix product,
// checked in rank order.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"

namespace vmc::cli {
namespace {

struct RunOptions {
  ModelOptions machine;
  CallOptions call;
  std::string clock = "virtual";
  double time_scale = 1.0;
  EngineOptions engine;
  std::string trace;
  bool json = false;
  bool check = false;
};

void run_command(const RunOptions& o) {
  MachineConfig config;
  config.topology = o.machine.parsed_topology();
  config.model = o.machine.model();
  config.clock = parse_clock(o.clock);
  config.time_scale = o.time_scale;
  config.trace = !o.trace.empty();
  o.engine.apply(config);
  RunSpec spec = o.call.spec(*config.topology, config.model, config.data != Data::none);
  spec.check = o.check;
  if (config.data == Data::none && o.check) {
    throw UsageError("--check needs the data: it cannot be used with --data none");
  }
  Machine m(config);
  RunOutcome out = run_collective(m, spec);
  if (!o.trace.empty()) out.result.trace().write_chrome_json(o.trace, &m.topology());
  const Stats& s = out.result.stats();
  const double time = to_seconds(s.time), predicted = to_seconds(out.predicted);
  const std::string topology = m.topology().spec();
  if (o.json) {
    nlohmann::json j = {{"op", o.call.op},
                        {"algorithm", out.algorithm},
                        {"topology", topology},
                        {"p", m.size()},
                        {"n", spec.op == Operation::barrier ? 0 : spec.n},
                        {"clock", o.clock},
                        {"model", describe(config.model)},
                        {"time_s", time},
                        {"predicted_s", predicted},
                        {"messages", s.messages},
                        {"startups", s.critical_startups >= 0 ? nlohmann::json(s.critical_startups)
                                                              : nlohmann::json()},
                        {"token_wait_s", to_seconds(s.token_wait)},
                        {"contention_delay_s", to_seconds(s.contention_delay)},
                        {"contention_critical_delay_s",
                         s.critical_startups >= 0
                             ? nlohmann::json(to_seconds(s.contention_critical_delay))
                             : nlohmann::json()},
                        {"max_message_delay_s", to_seconds(s.max_message_delay)},
                        {"max_link_sharers",
                         s.link_peak.empty()
                             ? 0
                             : *std::max_element(s.link_peak.begin(), s.link_peak.end())},
                        {"correct", out.correct ? nlohmann::json(*out.correct) : nlohmann::json()}};
    if (!out.detail.empty()) j["detail"] = out.detail;
    // Per directed link that carried a message: busy time and most messages at once.
    nlohmann::json links = nlohmann::json::array();
    for (std::size_t l = 0; l < s.link_busy.size(); ++l) {
      if (s.link_busy[l] == 0) continue;
      const DirectedLink d = m.topology().link(static_cast<LinkId>(l));
      links.push_back({{"from", d.from}, {"to", d.to}, {"busy_s", to_seconds(s.link_busy[l])},
                       {"most_messages", l < s.link_peak.size() ? s.link_peak[l] : 0}});
    }
    j["links"] = links;
    std::cout << j.dump() << "\n";
  } else {
    const std::string length =
        spec.op == Operation::barrier ? "" : ", n = " + std::to_string(spec.n);
    std::printf("%s %s on %s (p = %d)%s, %s clock\n", o.call.op.c_str(), out.algorithm.c_str(),
                topology.c_str(), m.size(), length.c_str(), o.clock.c_str());
    if (!out.detail.empty()) std::printf("chose      %s\n", out.detail.c_str());
    std::printf("time       %s\npredicted  %s\nmessages   %llu\n", format_duration(time).c_str(),
                format_duration(predicted).c_str(), static_cast<unsigned long long>(s.messages));
    if (s.critical_startups >= 0) {
      std::printf("startups   %d (on the critical path)\n", s.critical_startups);
    }
    std::printf("waiting    %s (for links and ports, summed over all messages)\n",
                format_duration(to_seconds(s.token_wait)).c_str());
    std::printf("contention %s (summed over all messages; largest for one message %s)\n",
                format_duration(to_seconds(s.contention_delay)).c_str(),
                format_duration(to_seconds(s.max_message_delay)).c_str());
    if (s.critical_startups >= 0) {
      std::printf("           %s of the run's time (time minus the contention-free %s)\n",
                  format_duration(to_seconds(s.contention_critical_delay)).c_str(),
                  format_duration(to_seconds(s.free_time)).c_str());
    }
    std::size_t busiest = s.link_busy.size();
    for (std::size_t l = 0; l < s.link_busy.size(); ++l) {
      if (s.link_busy[l] > 0 &&
          (busiest == s.link_busy.size() || s.link_busy[l] > s.link_busy[busiest])) {
        busiest = l;
      }
    }
    if (busiest < s.link_busy.size()) {
      const DirectedLink d = m.topology().link(static_cast<LinkId>(busiest));
      std::printf("links      busiest %d -> %d: busy %s; at most %d message(s) on one link at "
                  "once\n",
                  d.from, d.to, format_duration(to_seconds(s.link_busy[busiest])).c_str(),
                  s.link_peak.empty() ? 0 : *std::max_element(s.link_peak.begin(),
                                                              s.link_peak.end()));
    }
    if (out.correct) std::printf("check      %s\n", *out.correct ? "correct" : "WRONG");
  }
  if (out.correct && !*out.correct) {
    throw std::runtime_error("the result does not match the sequential reference");
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "run one collective on generated data");
  o->machine.add_to(cmd);
  o->call.add_to(cmd);
  add_clock_options(cmd, o->clock, o->time_scale);
  o->engine.add_to(cmd);
  cmd->add_flag("--check", o->check, "compare with a sequential reference");
  cmd->add_option("--trace", o->trace, "write a Chrome trace JSON file")->check(non_empty_check());
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o] { run_command(*o); });
}

}  // namespace vmc::cli
