// `vmc demo`: the main job of the README. First a binomial broadcast written with
// point-to-point calls (003 Alg. 4.1) on 64 virtual nodes, under 000's iPSC/860
// parameters, printed step by step with the time the model predicts beside the time
// measured; then allreduce on hypercube:64 and mesh:8x8 side by side: the same operation
// and parameters, the algorithm vmc chooses, and the time each network takes.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectives/patterns/binomial.hpp"
#include "runtime/machine.hpp"
#include "tools/commands.hpp"
#include "tools/runner.hpp"

namespace vmc::cli {
namespace {

struct DemoOptions {
  std::string topology = "hypercube:64";
  std::size_t n = 1024;
  int root = 0;
  std::string trace;
  std::string clock = "virtual";
  double time_scale = 1.0;
};

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
  Model model{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6, .port = Port::exchange,
              .routing = Routing::wormhole};
  Machine machine({.topology = parse_topology(o.topology), .model = model,
                   .clock = parse_clock(o.clock), .time_scale = o.time_scale});
  const int p = machine.size();
  if (o.root < 0 || o.root >= p) {
    throw std::invalid_argument("root " + std::to_string(o.root) + " is not a node of " +
                                o.topology);
  }
  std::printf("vmc demo: binomial broadcast of %zu floats from node %d on %s (%d nodes)\n",
              o.n, o.root, o.topology.c_str(), p);
  std::printf("model: alpha %s, beta %s per item, port %s, routing %s, %s clock\n\n",
              format_duration(model.alpha).c_str(), format_duration(model.beta).c_str(),
              to_string(model.port).c_str(), to_string(model.routing).c_str(), o.clock.c_str());

  std::vector<int> correct(p, 0);
  RunResult r = machine.run([&](Node& node) {
    std::vector<float> data(o.n, node.rank() == o.root ? 1.5f : 0.0f);
    binomial_broadcast(node.world(), data, o.root);
    bool ok = true;
    for (float x : data) ok = ok && x == 1.5f;
    correct[node.rank()] = ok;
  });

  // Group the messages by the time they started: each group is one step of the tree.
  std::map<Picos, std::vector<const MessageEvent*>> steps;
  for (const MessageEvent& m : r.trace().messages) steps[m.start].push_back(&m);
  int step = 0;
  for (const auto& [start, msgs] : steps) {
    std::printf("step %d at %s: %zu message%s", ++step, format_duration(to_seconds(start)).c_str(),
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
  const double predicted = to_seconds(steps_needed * u.message(o.n));
  int ok = 0;
  for (int c : correct) ok += c;
  std::printf("\nevery node has the data: %s (%d of %d)\n", ok == p ? "yes" : "NO", ok, p);
  std::printf("time: %s measured, %s predicted by ceil(log2 p)(alpha + n beta)\n",
              format_duration(r.time()).c_str(), format_duration(predicted).c_str());
  std::printf("messages: %llu, items moved: %llu, startups on the critical path: %d\n",
              static_cast<unsigned long long>(r.stats().messages),
              static_cast<unsigned long long>(r.stats().items), r.stats().critical_startups);
  std::printf("contention delay: %s summed over all messages",
              format_duration(to_seconds(r.stats().contention_delay)).c_str());
  if (r.stats().critical_startups >= 0) {
    std::printf(", %s of the run's time",
                format_duration(to_seconds(r.stats().contention_critical_delay)).c_str());
  }
  std::printf("\n");
  if (!o.trace.empty()) {
    r.trace().write_chrome_json(o.trace);
    std::printf("trace written to %s (open it in the Perfetto UI or chrome://tracing)\n",
                o.trace.c_str());
  }
  if (ok != p) throw std::runtime_error("the broadcast did not reach every node");
}

// allreduce with automatic selection on two networks of 64 nodes, checked and timed.
void compare_networks(const std::vector<std::string>& networks) {
  Model model{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6, .port = Port::exchange,
              .routing = Routing::wormhole};
  std::printf("\nallreduce (sum of floats, algorithm chosen by cost) on ");
  for (std::size_t i = 0; i < networks.size(); ++i) {
    std::printf("%s%s", i ? " and " : "", networks[i].c_str());
  }
  std::printf(", same parameters:\n\n%8s", "n");
  for (const std::string& net : networks) std::printf("   %-60s", net.c_str());
  std::printf("\n");
  std::vector<std::unique_ptr<Machine>> machines;
  for (const std::string& net : networks) {
    machines.push_back(std::make_unique<Machine>(
        MachineConfig{.topology = parse_topology(net), .model = model, .trace = false}));
  }
  for (std::size_t n : {16, 1024, 65536}) {
    std::printf("%8zu", n);
    for (auto& m : machines) {
      cli::RunOutcome out = cli::run_collective(
          *m, cli::RunSpec{.op = Operation::allreduce, .n = n, .type = "float", .check = true});
      if (!*out.correct) throw std::runtime_error("allreduce gave a wrong result");
      const Stats& s = out.result.stats();
      char cell[160];
      std::snprintf(cell, sizeof cell, "%s %s (contention +%s, %s summed)",
                    out.algorithm.c_str(), format_duration(to_seconds(s.time)).c_str(),
                    format_duration(to_seconds(s.contention_critical_delay)).c_str(),
                    format_duration(to_seconds(s.contention_delay)).c_str());
      std::printf("   %-60s", cell);
    }
    std::printf("\n");
  }
  std::printf("\ncontention +X: how much of the time is due to contention (the time minus that\n"
              "of the same schedule with links that hold no one up); Y summed: the time lost\n"
              "to contention summed over all messages.\n");
  std::printf("\nOn the hypercube every exchange is between neighbours; on the mesh the same\n"
              "exchanges share links, wait for each other, and take longer. Try\n"
              "  vmc explain --op allreduce --topology mesh:8x8 --n 1024\n"
              "  vmc run --op allreduce --topology mesh:8x8 --n 1024 --trace allreduce.json\n");
}

}  // namespace

void add_demo_command(CLI::App& app) {
  auto opts = std::make_shared<DemoOptions>();
  CLI::App* cmd = app.add_subcommand("demo", "broadcast with point-to-point calls on 64 nodes");
  cmd->add_option("--topology", opts->topology, "interconnect (default hypercube:64)");
  cmd->add_option("--n", opts->n, "items to broadcast (default 1024)");
  cmd->add_option("--root", opts->root, "broadcasting node (default 0)");
  cmd->add_option("--clock", opts->clock, "virtual or real (default virtual)");
  cmd->add_option("--time-scale", opts->time_scale, "real clock: wall seconds per model second");
  cmd->add_option("--trace", opts->trace, "write a Chrome trace (JSON) to this file");
  cmd->callback([opts] {
    run_demo(*opts);
    compare_networks({"hypercube:64", "mesh:8x8"});
  });
}

}  // namespace vmc::cli
