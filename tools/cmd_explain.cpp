// `vmc explain`: why automatic selection picks what it picks. Prints every algorithm of an
// operation with its predicted time under the given machine, the winner marked, the ones
// that do not apply with what they require, and what the hybrid would choose (its S).
#include <algorithm>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "collectives/registry.hpp"
#include "collectives/simulated_cost.hpp"
#include "tools/commands.hpp"
#include "tools/model_options.hpp"

namespace vmc::cli {
namespace {

struct ExplainOptions {
  ModelOptions machine;
  std::string op = "allreduce";
  std::size_t n = 4096;
  int root = 0;
  std::size_t item_size = 4;
  bool noncommutative = false;
  bool json = false;
};

void explain(const ExplainOptions& o) {
  const Operation op = parse_operation(o.op);
  auto topology = o.machine.parsed_topology();
  const CostQuery q = make_query(*topology, o.machine.model(), topology->nodes(), o.n, o.root,
                                 o.item_size, !o.noncommutative, Options{});
  if (o.root < 0 || o.root >= q.p) {
    throw std::invalid_argument("root " + std::to_string(o.root) + " is not a node of " +
                                topology->spec());
  }
  const Algorithm* winner = nullptr;
  try {
    winner = &select_algorithm(op, q);
  } catch (const std::invalid_argument&) {
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const Algorithm& a : algorithms(op)) {
    nlohmann::json row{{"algorithm", a.name}, {"applicable", a.applicable(q)}};
    if (a.applicable(q)) {
      row["predicted_s"] = to_seconds(a.cost(q));
      row["claim"] = to_string(claim_of(a, q));
      if (auto simulated = simulated_cost(op, a, q)) row["simulated_s"] = to_seconds(*simulated);
      if (a.detail != nullptr) row["detail"] = a.detail(q);
    } else {
      row["requires"] = a.requirements;
    }
    row["chosen"] = &a == winner;
    rows.push_back(row);
  }
  if (o.json) {
    nlohmann::json out{{"op", o.op}, {"topology", topology->spec()}, {"p", q.p}, {"n", q.n},
                       {"root", q.root}, {"chosen", winner ? winner->name : ""},
                       {"algorithms", rows}};
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::printf("%s of n = %zu on %s (p = %d): alpha %s, beta %s, gamma %s, port %s, "
              "routing %s, contention %s\n\n",
              o.op.c_str(), q.n, topology->spec().c_str(), q.p,
              format_duration(q.model.alpha).c_str(), format_duration(q.model.beta).c_str(),
              format_duration(q.model.gamma).c_str(), to_string(q.model.port).c_str(),
              to_string(q.model.routing).c_str(), to_string(q.model.contention).c_str());
  const bool simulated = selection_simulates(q);
  if (simulated) {
    std::printf("Selection runs each algorithm in virtual time on this machine and takes the\n"
                "least simulated time. The formula column is the closed-form cost; its claim\n"
                "says what it promises: exact (equal to the run), lower bound (the run never\n"
                "takes less) or estimate (no promise).\n\n");
    std::printf("   %-28s %14s %-12s %14s\n", "algorithm", "formula", " claim", "simulated");
  } else {
    std::printf("   %-28s %14s %-12s\n", "algorithm", "predicted", " claim");
  }
  for (const auto& row : rows) {
    const std::string name = row["algorithm"];
    if (row["applicable"]) {
      std::printf("%s %-28s %14s %-12s", row["chosen"] ? "=>" : "  ", name.c_str(),
                  format_duration(row["predicted_s"].get<double>()).c_str(),
                  (" " + row["claim"].get<std::string>()).c_str());
      if (simulated) {
        std::printf(" %14s", row.contains("simulated_s")
                                 ? format_duration(row["simulated_s"].get<double>()).c_str()
                                 : "(too large)");
      }
      if (row.contains("detail")) std::printf("   %s", row["detail"].get<std::string>().c_str());
      std::printf("\n");
    } else {
      std::printf("   %-28s %14s %-12s   requires %s\n", name.c_str(), "n/a", "",
                  row["requires"].get<std::string>().c_str());
    }
  }
  if (winner != nullptr) {
    std::printf("\nchosen: %s (least %s time)\n", winner->name.c_str(),
                simulated ? "simulated" : "predicted");
  }
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explain", "predicted time of every algorithm of an operation, and the automatic choice");
  o->machine.add_to(cmd);
  cmd->add_option("--op", o->op, "operation, e.g. allreduce")->capture_default_str();
  cmd->add_option("--n", o->n, "MPI count (see vmc run --help)")->capture_default_str();
  cmd->add_option("--root", o->root, "root of rooted operations")->capture_default_str();
  cmd->add_option("--item-size", o->item_size, "bytes per item")->capture_default_str();
  cmd->add_flag("--noncommutative", o->noncommutative, "the op is not commutative");
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o] { explain(*o); });
}

}  // namespace vmc::cli
