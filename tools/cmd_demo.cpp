// `vmc demo`: the main job of the README. First a binomial broadcast written with
// point-to-point calls (003 Alg. 4.1) on 64 virtual nodes, under 000's iPSC/860
// parameters, printed step by step with the time the model predicts beside the time
// measured; then allreduce on hypercube:64 and mesh:8x8 side by side: the same operation
// and parameters, the algorithm vmc chooses, and the time each network takes.
//
// The flags change both parts: --topology, the model (--alpha, --beta, --gamma, --port,
// --routing, --contention), --n (the broadcast, and the table's only length when given),
// --op, --type and --reduction (the table). With --topology the table shows that network
// alone, or beside --versus. It ends by writing the table's comparison as a page (vmc show's,
// at n = 1024 unless --n is given) to vmc-demo.html (-o FILE, or -o none); --steps draws the
// broadcast on its network once per step, as `vmc show --terminal` does.
#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectives/patterns/binomial.hpp"
#include "runtime/machine.hpp"
#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"
#include "tools/show.hpp"
#include "tools/show_terminal.hpp"

namespace vmc::cli {
namespace {

struct DemoOptions {
  ModelOptions machine;
  CallOptions call;
  std::string versus;
  std::string trace;
  std::string clock = "virtual";
  double time_scale = 1.0;
  bool steps = false;
  std::string page = "vmc-demo.html";
};

// The steps of a broadcast: a message's step is one more than the step of the last message
// its sender received before it sent, and of the last one it sent that had ended before this
// one started (the root's first message is step 1; under a single port its second is step
// 2). Read from the message order and the ends, not from start times alone, so it holds on
// the real clock, where no two messages start together.
std::vector<int> message_steps(const std::vector<MessageEvent>& messages, int p) {
  std::vector<std::size_t> order(messages.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return messages[a].request < messages[b].request;
  });
  std::vector<std::vector<std::size_t>> into(p);  // messages received by each node so far
  std::vector<std::vector<std::size_t>> out(p);   // messages sent by each node so far
  std::vector<int> step(messages.size(), 1);
  for (std::size_t i : order) {
    const MessageEvent& m = messages[i];
    for (std::size_t j : into[m.src]) {
      if (messages[j].end <= m.request) step[i] = std::max(step[i], step[j] + 1);
    }
    for (std::size_t j : out[m.src]) {
      if (messages[j].end <= m.start) step[i] = std::max(step[i], step[j] + 1);
    }
    into[m.dst].push_back(i);
    out[m.src].push_back(i);
  }
  return step;
}

// Each node receives from its parent in the binomial tree rooted at `root` (ranks relative
// to the root), then forwards to its children, largest subtree first.
void binomial_broadcast(const Comm& c, std::vector<float>& data, int root) {
  const int p = c.size();
  const int v = patterns::to_virtual(c.rank(), root, p);
  if (v != 0) {
    c.recv(std::span<float>(data), patterns::to_real(patterns::binomial_parent(v), root, p), 0);
  }
  for (int child : patterns::binomial_children(v, p)) {
    c.send(std::span<const float>(data), patterns::to_real(child, root, p), 0);
  }
}

void run_demo(const DemoOptions& o) {
  // Refused before anything runs: the option concerns the comparison's operation.
  check_dopl_steps(parse_operation(o.call.op), parse_dopl_steps(o.call.dopl_steps));
  const Model model = o.machine.model();
  check_link_rates(*o.machine.parsed_topology(), model);
  Machine machine({.topology = o.machine.parsed_topology(), .model = model,
                   .clock = parse_clock(o.clock), .time_scale = o.time_scale});
  const int p = machine.size();
  RunSpec broadcast_spec{.op = Operation::broadcast, .n = o.call.n, .root = o.call.root,
                         .type = "float"};
  check_spec(broadcast_spec, machine.topology(), model);
  const std::size_t n = o.call.n;
  const int root = o.call.root;
  const std::string topology = machine.topology().spec();
  std::printf("vmc demo: binomial broadcast of %zu floats from node %d on %s (%d nodes)\n",
              n, root, topology.c_str(), p);
  // The model's parts, at most 80 columns a line (a classroom's terminal).
  const std::string parts = describe(model) + ", " + o.clock + " clock";
  std::string line = "model:";
  for (std::size_t at = 0; at < parts.size();) {
    std::size_t end = parts.find(", ", at);
    if (end == std::string::npos) end = parts.size();
    const std::string part = parts.substr(at, end - at) + (end < parts.size() ? "," : "");
    if (line.size() + 1 + part.size() > 80) {
      std::printf("%s\n", line.c_str());
      line = "      ";
    }
    line += " " + part;
    at = end + 2;
  }
  std::printf("%s\n\n", line.c_str());

  std::vector<int> correct(p, 0);
  RunResult r = machine.run([&](Node& node) {
    std::vector<float> data(n, node.rank() == root ? 1.5f : 0.0f);
    binomial_broadcast(node.world(), data, root);
    bool ok = true;
    for (float x : data) ok = ok && x == 1.5f;
    correct[node.rank()] = ok;
  });

  // Group the messages by step of the tree; a step starts with its first message.
  const std::vector<MessageEvent>& messages = r.trace().messages;
  const std::vector<int> step_of = message_steps(messages, p);
  std::map<int, std::vector<const MessageEvent*>> steps;
  for (std::size_t i = 0; i < messages.size(); ++i) steps[step_of[i]].push_back(&messages[i]);
  for (const auto& [step, msgs] : steps) {
    Picos start = msgs.front()->start;
    for (const MessageEvent* m : msgs) start = std::min(start, m->start);
    std::printf("step %d at %s: %zu message%s", step, format_duration(to_seconds(start)).c_str(),
                msgs.size(), msgs.size() == 1 ? "" : "s");
    std::size_t shown = 0;
    for (const MessageEvent* m : msgs) {
      if (shown++ == 6) {
        std::printf(" ...");
        break;
      }
      std::printf("  %d->%d", m->src, m->dst);
    }
    std::printf("\n");
  }
  const int steps_needed = patterns::ceil_log2(p);
  CostUnits u(model);
  const double predicted = to_seconds(steps_needed * u.message(n));
  int ok = 0;
  for (int c : correct) ok += c;
  std::printf("\nevery node has the data: %s (%d of %d)\n", ok == p ? "yes" : "NO", ok, p);
  std::printf("time: %s measured, %s predicted by ceil(log2 p)(alpha + n beta)\n",
              format_duration(r.time()).c_str(), format_duration(predicted).c_str());
  // The virtual clock traces the critical path; the real one does not, and there the
  // startups on it are the steps of the tree (each step is one message after another).
  const bool traced = r.stats().critical_startups >= 0;
  const int startups = traced ? r.stats().critical_startups : static_cast<int>(steps.size());
  std::printf("messages: %llu, items moved: %llu, startups on the critical path: %d%s\n",
              static_cast<unsigned long long>(r.stats().messages),
              static_cast<unsigned long long>(r.stats().items), startups,
              traced ? "" : " (the steps of the tree)");
  std::printf("contention delay: %s summed over all messages",
              format_duration(to_seconds(r.stats().contention_delay)).c_str());
  if (traced) {
    std::printf(", %s of the run's time",
                format_duration(to_seconds(r.stats().contention_critical_delay)).c_str());
  }
  std::printf("\n");
  if (o.steps) {
    std::printf("\nThe broadcast step by step on its network:\n%s",
                terminal_steps(machine.topology(), r.trace()).c_str());
  }
  if (!o.trace.empty()) {
    r.trace().write_chrome_json(o.trace, &machine.topology());
    std::printf("trace written to %s (open it in the Perfetto UI or chrome://tracing)\n",
                o.trace.c_str());
  }
  if (ok != p) throw std::runtime_error("the broadcast did not reach every node");
}

// One operation with automatic selection on each network, checked and timed.
void compare_networks(const DemoOptions& o, const std::vector<std::string>& networks,
                      const std::vector<std::size_t>& lengths) {
  const Model model = o.machine.model();
  const RunSpec base{.op = parse_operation(o.call.op), .root = o.call.root,
                     .type = o.call.item_type(), .reduction = o.call.reduction,
                     .dopl_steps = parse_dopl_steps(o.call.dopl_steps), .check = true};
  std::vector<std::unique_ptr<Machine>> machines;
  for (const std::string& net : networks) {
    check_link_rates(*parse_topology(net), model);
    machines.push_back(std::make_unique<Machine>(
        MachineConfig{.topology = parse_topology(net), .model = model, .trace = false}));
    for (std::size_t n : lengths) {
      RunSpec spec = base;
      spec.n = n;
      check_spec(spec, machines.back()->topology(), model);
    }
  }
  const std::string type = base.type == "float" ? "floats" : base.type + " items";
  std::printf("\n%s (%s%s, algorithm chosen by cost) on ", o.call.op.c_str(),
              traits(base.op).combines ? (o.call.reduction + " of ").c_str() : "", type.c_str());
  for (std::size_t i = 0; i < networks.size(); ++i) {
    std::printf("%s%s", i ? " and " : "", networks[i].c_str());
  }
  std::printf("\nwith the same parameters:\n\n");
  // A row per length and network, the algorithm last (its name is the longest cell), each
  // column as wide as its widest cell: the table fits a terminal of 80 to 90 columns.
  std::vector<std::array<std::string, 6>> rows = {
      {"n", "network", "time", "contention", "summed", "algorithm"}};
  for (std::size_t n : lengths) {
    for (std::size_t i = 0; i < machines.size(); ++i) {
      RunSpec spec = base;
      spec.n = n;
      cli::RunOutcome out = cli::run_collective(*machines[i], spec);
      if (!*out.correct) throw std::runtime_error(o.call.op + " gave a wrong result");
      const Stats& s = out.result.stats();
      rows.push_back({i == 0 ? std::to_string(n) : "", networks[i],
                      format_duration(to_seconds(s.time)),
                      "+" + format_duration(to_seconds(s.contention_critical_delay)),
                      format_duration(to_seconds(s.contention_delay)), out.algorithm});
    }
  }
  std::array<std::size_t, 6> width{};
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::printf("%*s", static_cast<int>(std::max<std::size_t>(width[0], 8)), row[0].c_str());
    for (std::size_t c = 1; c + 1 < row.size(); ++c) {
      std::printf("  %-*s", static_cast<int>(width[c]), row[c].c_str());
    }
    std::printf("  %s\n", row.back().c_str());
  }
  std::printf("\ncontention: how much of the time is due to contention (the time minus that of\n"
              "the same schedule with links that hold no one up); summed: the time lost to\n"
              "contention summed over all messages.\n");
  const std::string& last = networks.back();
  if (networks.size() == 2 && networks[0] == "hypercube:64" && networks[1] == "mesh:8x8") {
    std::printf("\nEach network runs the algorithm that is fastest on it. On the hypercube every\n"
                "exchange of recursive doubling and of the hybrids is between neighbours: no\n"
                "contention. On the mesh those exchanges would share links; vmc picks Watts's\n"
                "mesh algorithms (mesh_*: dimensional rings, prime-factor rings, trees along\n"
                "the dimensions; docs/004-formulas.md) where they win, and where one still\n"
                "shares links its contention is counted above. Every algorithm on one\n"
                "network, and why: try\n");
  } else {
    std::printf("\nTry\n");
  }
  std::printf("  vmc explain --op %s --topology %s --n %zu\n"
              "  vmc run --op %s --topology %s --n %zu --trace %s.json\n",
              o.call.op.c_str(), last.c_str(), lengths[lengths.size() / 2], o.call.op.c_str(),
              last.c_str(), lengths[lengths.size() / 2], o.call.op.c_str());
}

// The comparison as a page (tools/show.hpp): the operation on every network, side by side
// on one time axis, at n = 1024 unless --n says otherwise.
void write_demo_page(const DemoOptions& o, const std::vector<std::string>& networks,
                     bool n_given) {
  const Model model = o.machine.model();
  std::vector<ShowRun> runs;
  for (const std::string& net : networks) {
    const auto topology = parse_topology(net);
    CallOptions call = o.call;
    if (!n_given) call.n = 1024;
    runs.push_back(run_for_show(topology, model, call.spec(*topology, model)));
  }
  write_file(o.page, show_page(runs));
  std::printf("\nwrote %s: the %s above (n = %zu) replayed on %s, side by side.\n"
              "Open it in a web browser (it needs no network), e.g. xdg-open %s\n",
              o.page.c_str(), o.call.op.c_str(), runs.front().spec.n,
              networks.size() > 1 ? "both networks" : "its network", o.page.c_str());
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto opts = std::make_shared<DemoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "demo", "broadcast with point-to-point calls on 64 nodes, then one collective on two "
              "networks");
  opts->machine.add_to(cmd);
  opts->call.add_to(cmd, /*with_algorithm=*/false);
  cmd->add_option("--versus", opts->versus,
                  "a second network for the table (default: mesh:8x8 beside the default "
                  "hypercube:64; none with --topology)")
      ->check(network_check());
  add_clock_options(cmd, opts->clock, opts->time_scale);
  cmd->add_option("--trace", opts->trace, "write a Chrome trace (JSON) to this file")
      ->check(non_empty_check());
  cmd->add_flag("--steps", opts->steps,
                "draw the network once per step of the broadcast, links in use marked");
  cmd->add_option("-o,--output", opts->page,
                  "the page replaying the comparison (none: no page)")
      ->capture_default_str()
      ->check(non_empty_check());
  cmd->callback([opts, cmd] {
    run_demo(*opts);
    std::vector<std::string> networks{opts->machine.parsed_topology()->spec()};
    if (!opts->versus.empty()) {
      networks.push_back(parse_topology(opts->versus)->spec());
    } else if (cmd->count("--topology") == 0) {
      networks.push_back("mesh:8x8");
    }
    std::vector<std::size_t> lengths{16, 1024, 65536};
    if (cmd->count("--n") > 0) lengths = {opts->call.n};
    compare_networks(*opts, networks, lengths);
    if (opts->page != "none") write_demo_page(*opts, networks, cmd->count("--n") > 0);
  });
}

}  // namespace vmc::cli
