// `vmc figure`: the source documents' figures, one command each. A figure is a run of vmc's
// own commands (show, explain, sweep) with the source's network, algorithm and parameters,
// so what it draws is the emulation itself, not a picture of it.
//
//   vmc figure LIST                 the figures, their sources and what each shows
//   vmc figure 003-fig4.6           in the terminal (the network once per step, or a table)
//   vmc figure 003-fig4.6 --html f.html   a replayed run as vmc show's page
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/commands.hpp"
#include "tools/formulas_004.hpp"
#include "tools/model_options.hpp"

namespace vmc::cli {
namespace {

struct Figure {
  const char* name;
  const char* source;   // file and figure of the seeds
  const char* caption;  // what it shows
  // The commands that render it, as vmc's arguments. A figure whose only command is
  // `show` replays a run: in the terminal (--terminal) or as a page (--html).
  std::vector<std::vector<std::string>> commands;
  // A figure that is a page of its own (markdown on stdout) instead of commands.
  void (*page)(std::FILE*) = nullptr;
};

// The replay of one collective run: vmc show's arguments.
std::vector<std::vector<std::string>> replay(const std::string& op, const std::string& algorithm,
                                             const std::string& topology, const std::string& n) {
  return {{"show", "--op", op, "--algorithm", algorithm, "--topology", topology, "--n", n}};
}

// 001's cost table on the hypercube: every operation, every algorithm that applies, its
// formula against its simulated time.
std::vector<std::vector<std::string>> cost_table() {
  std::vector<std::vector<std::string>> commands;
  for (const char* op : {"broadcast", "reduce", "allreduce", "scatter", "gather", "allgather",
                         "reduce_scatter", "alltoall", "scan"}) {
    commands.push_back({"explain", "--op", op, "--topology", "hypercube:16", "--n", "64"});
  }
  return commands;
}

const std::vector<Figure>& figures() {
  static const std::vector<Figure> all = {
      {"003-fig4.2", "003 Fig. 4.2",
       "one-to-all broadcast on an eight-node ring: the message goes to the farthest node "
       "first, then the distance halves, so no two messages share a link",
       replay("broadcast", "binomial", "ring:8", "1")},
      {"003-fig4.3", "003 Fig. 4.3",
       "reduction on an eight-node ring to node 0: the broadcast reversed",
       replay("reduce", "binomial", "ring:8", "1")},
      {"003-fig4.5", "003 Fig. 4.5",
       "one-to-all broadcast on a 4x4 mesh: along one dimension, then the other",
       replay("broadcast", "binomial", "mesh:4x4", "1")},
      {"003-fig4.6", "003 Fig. 4.6",
       "one-to-all broadcast on a three-dimensional hypercube, highest dimension first",
       replay("broadcast", "binomial", "hypercube:8", "1")},
      {"003-fig4.7", "003 Fig. 4.7",
       "one-to-all broadcast on an eight-node tree (leaves are nodes, inner vertices switches): "
       "no link carries two messages at once",
       replay("broadcast", "binomial", "tree:8", "1")},
      {"004-fig1", "004 Fig. 1",
       "contention on a mesh that is not a power of two: recursive doubling's exchanges, "
       "disjoint on a hypercube, share a link under dimension-order routing",
       replay("allreduce", "recursive_doubling", "mesh:2x3", "1")},
      {"004-fig2", "004 Fig. 2",
       "the recursive-splitting minimum spanning tree: a broadcast on a 7-node line splits "
       "each partition in two and sends to a new root in the other half",
       replay("broadcast", "mesh_mst", "mesh:7", "1")},
      {"004-fig3", "004 Fig. 3",
       "prime factors rings on a dimension of six nodes (6 = 2 x 3): a collect in two rounds of "
       "rings",
       replay("allgather", "mesh_pfr", "mesh:6", "1")},
      {"004-fig4", "004 Fig. 4",
       "prime factors rings that lie in different dimensions of a 6x4 mesh, to share the "
       "contention between them",
       replay("allgather", "mesh_pfr", "mesh:6x4", "1")},
      {"004-fig5a", "004 Fig. 5a",
       "a collect on dimensional rings of a 4x4 mesh: one ring per row, then per column",
       replay("allgather", "mesh_dr", "mesh:4x4", "1")},
      {"004-fig5b", "004 Fig. 5b",
       "a distributed reduction on the dimensional rings of a 4x4 mesh",
       replay("reduce_scatter", "mesh_dr", "mesh:4x4", "1")},
      {"004-fig6", "004 Fig. 6a",
       "DOPL: a broadcast on a 4x4 mesh pipelined over edge-disjoint paths, the message cut in "
       "halves that take different channels",
       replay("broadcast", "mesh_dopl", "mesh:4x4", "64")},
      {"001-costs", "001 (the cost table of each operation on a hypercube)",
       "every operation on hypercube:16: each algorithm's cost formula beside its simulated time",
       cost_table()},
      {"000-fig7", "000 Fig. 7",
       "allreduce on hypercube:64 under the iPSC/860 parameters: Versions 1-3 and the optimal "
       "hybrid over n = 1 .. 65536, predicted and simulated (the CSV tools/plot_sweep.sh draws)",
       {{"sweep", "--op", "allreduce", "--topology", "hypercube:64", "--algorithms",
         "reduce_broadcast,recursive_doubling,recursive_halving_doubling,hybrid_optimal", "--n",
         "1:65536:x2", "--alpha", "525us", "--beta", "2us", "--gamma", "0.35us", "--protocol",
         "rendezvous"}}},
      {"000-fig8", "000 Fig. 8",
       "the same with the two-level startup (75 us up to 25 items, 480 us above) and the "
       "section 6 hybrid",
       {{"sweep", "--op", "allreduce", "--topology", "hypercube:64", "--algorithms",
         "reduce_broadcast,recursive_doubling,recursive_halving_doubling,hybrid_optimal,"
         "hybrid_section6",
         "--n", "1:4096:x2", "--alpha", "480us", "--short-alpha", "75us", "--short-items", "25",
         "--beta", "2us", "--gamma", "0.35us", "--protocol", "rendezvous"}}},
      {"004-formulas", "004 §§7-13 (every formula)",
       "every formula of 004 against vmc's simulated time on meshes and tori under 004's "
       "model, each row exact, exact after whole pieces or different and why: the markdown "
       "page docs/004-formulas.md",
       {},
       print_004_formulas},
  };
  return all;
}

void run_commands(const std::vector<std::vector<std::string>>& commands) {
  for (const std::vector<std::string>& args : commands) {
    CLI::App app{"vmc"};
    app.require_subcommand(1);
    add_commands(app);
    std::vector<std::string> words{"vmc"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    app.parse(static_cast<int>(argv.size()), argv.data());
    std::fflush(stdout);
  }
}

void figure_command(const std::string& name, const std::string& html) {
  if (name == "LIST" || name == "list") {
    for (const Figure& f : figures()) {
      const bool replayed = f.commands.size() == 1 && f.commands.front().front() == "show";
      std::printf("%-12s %s%s\n             %s\n", f.name, f.source,
                  replayed ? " (--html: a page)" : "", f.caption);
    }
    return;
  }
  for (const Figure& f : figures()) {
    if (name != f.name) continue;
    if (f.page != nullptr) {
      if (!html.empty()) throw UsageError(std::string("--html: figure ") + f.name + " is a page");
      f.page(stdout);
      return;
    }
    const bool replayed = f.commands.size() == 1 && f.commands.front().front() == "show";
    std::vector<std::vector<std::string>> commands = f.commands;
    if (replayed) commands.front().push_back(html.empty() ? "--terminal" : "-o");
    if (replayed && !html.empty()) commands.front().push_back(html);
    if (!replayed && !html.empty()) {
      throw UsageError(std::string("--html: figure ") + f.name + " is a table, not a replayed " +
                       "run (vmc figure LIST marks those that make a page)");
    }
    std::printf("%s: %s\n%s\n\n", f.name, f.source, f.caption);
    std::fflush(stdout);
    run_commands(commands);
    return;
  }
  std::string names;
  for (const Figure& f : figures()) names += std::string(names.empty() ? "" : ", ") + f.name;
  throw UsageError("no figure \"" + name + "\" (expected LIST or one of " + names + ")");
}

}  // namespace

void add_figure_command(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  auto html = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "figure", "a figure of the source documents, made by vmc (LIST names them)");
  cmd->add_option("name", *name, "LIST, or the figure's name")->required();
  cmd->add_option("--html", *html, "write a replayed figure as vmc show's page to this file")
      ->check(non_empty_check());
  cmd->callback([name, html] { figure_command(*name, *html); });
}

void add_commands(CLI::App& app) {
  add_topo_command(app);
  add_demo_command(app);
  add_list_command(app);
  add_run_command(app);
  add_explain_command(app);
  add_sweep_command(app);
  add_show_command(app);
  add_figure_command(app);
  add_calibrate_command(app);
  add_mpirun_command(app);
  add_tune_command(app);
}

}  // namespace vmc::cli
