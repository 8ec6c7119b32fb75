// `vmc show`: a run replayed in a web page. The page is one self-contained HTML file (inline
// SVG, CSS and JavaScript, nothing fetched: it opens from file://) made from the runs'
// traces, the same events the Chrome export holds: every message with its route, its wait
// and its start and end, every combine. The template is tools/show_page.hpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/model.hpp"
#include "tools/runner.hpp"
#include "topology/topology.hpp"

namespace vmc::cli {

// One collective run on one network, traced on the virtual clock.
struct ShowRun {
  std::shared_ptr<const Topology> topology;
  Model model;
  RunSpec spec;
  RunOutcome outcome;
  std::vector<NodeFailure> failures;  // the machine's (--fail; a random draw's as drawn)
};

// Runs spec on topology under model (virtual clock, trace on, checked against the
// sequential reference: a wrong result is an error), with `failures` (--fail): a run whose
// nodes ended on a failed node's error is drawn as far as it went, the nodes that stopped
// grey, and checked on the nodes that did not stop; messages route around failed links as
// `fail_routes` says (--fail-routes), and a detour is drawn along the route it took.
ShowRun run_for_show(std::shared_ptr<const Topology> topology, const Model& model, RunSpec spec,
                     const FailureSpec& failures = {},
                     FailRoutes fail_routes = FailRoutes::around);

// What the page draws for one run: the network's picture, the messages and combines, the
// model, the algorithm (its registry row and its file's opening comment) and the times.
nlohmann::json show_data(const ShowRun& run);

// The page: the runs side by side on one time axis.
std::string show_page(const std::vector<ShowRun>& runs);

// The page of an MPI program's run (vmc mpirun --show): its messages and combines on its
// network, without an algorithm's formula. `result` must hold a trace.
std::string show_program_page(const std::string& program, const Topology& topology,
                              const Model& model, const RunResult& result);

// Writes text to path; a file that cannot be written is an error naming it.
void write_file(const std::string& path, const std::string& text);

}  // namespace vmc::cli
