// `vmc show`: one collective replayed in a web page (tools/show.hpp), or step by step in the
// terminal. Takes the options of `vmc run`; --compare puts a second network beside the
// first on one time axis, same operation, length and model.
//
//   vmc show --op allreduce --topology hypercube:16 --compare mesh:4x4 --n 1024 -o a.html
//   vmc show --op broadcast --topology ring:8 --n 1 --terminal
#include <cstdio>
#include <iostream>
#include <memory>

#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/show.hpp"
#include "tools/show_terminal.hpp"

namespace vmc::cli {
namespace {

struct ShowOptions {
  ModelOptions machine;
  CallOptions call;
  std::string compare;
  std::string compare_algorithm = "auto";
  std::string output = "vmc-show.html";
  bool terminal = false;
  std::string fail;  // --fail: nodes that fail on purpose
  std::string fail_routes = "around";  // --fail-routes
};

void show_command(const ShowOptions& o) {
  const Model model = o.machine.model();
  const FailureSpec failures = o.fail.empty() ? FailureSpec{} : parse_failures(o.fail);
  std::vector<ShowRun> runs;
  std::vector<std::pair<std::shared_ptr<const Topology>, std::string>> networks{
      {o.machine.parsed_topology(), o.call.algorithm}};
  if (!o.compare.empty()) networks.emplace_back(parse_topology(o.compare), o.compare_algorithm);
  for (const auto& [topology, algorithm] : networks) {
    CallOptions call = o.call;
    call.algorithm = algorithm;
    runs.push_back(run_for_show(topology, model, call.spec(*topology, model), failures,
                                parse_fail_routes(o.fail_routes)));
  }
  if (o.terminal) {
    for (const ShowRun& run : runs) {
      const FailureReport& report = run.outcome.result.failures();
      std::cout << to_string(run.spec.op) << " " << run.outcome.algorithm << " on "
                << terminal_steps(*run.topology, run.outcome.result.trace(), 40,
                                  o.fail.empty() ? nullptr : &report)
                << std::flush;
      if (!o.fail.empty()) print_failures(stdout, run.failures, report);
    }
    return;
  }
  write_file(o.output, show_page(runs));
  for (const ShowRun& run : runs) {
    std::printf("%s %s on %s: %s (predicted %s), %llu messages\n", to_string(run.spec.op).c_str(),
                run.outcome.algorithm.c_str(), run.topology->spec().c_str(),
                format_duration(run.outcome.result.time()).c_str(),
                format_duration(to_seconds(run.outcome.predicted)).c_str(),
                static_cast<unsigned long long>(run.outcome.result.stats().messages));
    if (!o.fail.empty()) print_failures(stdout, run.failures, run.outcome.result.failures());
  }
  std::printf("wrote %s: open it in a web browser (it needs no network), e.g. "
              "xdg-open %s\n", o.output.c_str(), o.output.c_str());
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto o = std::make_shared<ShowOptions>();
  CLI::App* cmd = app.add_subcommand(
      "show", "replay one collective on its network in a web page (or --terminal)");
  o->machine.add_to(cmd);
  o->call.add_to(cmd);
  cmd->add_option("--compare", o->compare,
                  "a second network, run beside the first on one time axis")
      ->check(network_check());
  cmd->add_option("--compare-algorithm", o->compare_algorithm,
                  "the algorithm on the --compare network (default auto)")
      ->capture_default_str()
      ->check(non_empty_check());
  cmd->add_option("-o,--output", o->output, "the HTML file to write")
      ->capture_default_str()
      ->check(non_empty_check());
  cmd->add_flag("--terminal", o->terminal,
                "print the network once per step, links in use marked, instead of a page");
  add_fail_option(cmd, o->fail, o->fail_routes);
  cmd->callback([o, cmd] {
    if (cmd->count("--compare-algorithm") > 0 && o->compare.empty()) {
      throw UsageError("--compare-algorithm needs --compare");
    }
    show_command(*o);
  });
}

}  // namespace vmc::cli
