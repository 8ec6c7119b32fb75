// `vmc explain`: why automatic selection picks what it picks. Prints every algorithm of an
// operation with its predicted time under the given machine, the winner marked, the ones
// that do not apply with what they require, what the hybrid would choose (its S), and the
// members of 004's hybrid families with their times.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "collectives/global_combine/strategy.hpp"
#include "collectives/registry.hpp"
#include "collectives/selection/members.hpp"
#include "collectives/selection/selection.hpp"
#include "collectives/selection/simulation.hpp"
#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"

namespace vmc::cli {
namespace {

struct ExplainOptions {
  ModelOptions machine;
  CallOptions call;
  bool json = false;
};

// The explained call, run with algorithm `a` (generated data): the flags that priced it
// (type, reduction, segments, strategy, member) run it too.
RunSpec run_of(const RunSpec& call, const Algorithm& a) {
  RunSpec spec = call;
  spec.algorithm = a.name;
  return spec;
}

// The time lost to contention by algorithm `a` (Stats::contention_delay and
// contention_critical_delay), from a virtual-time run of it on this machine with generated
// data; empty when it cannot run.
std::optional<Stats> contention_of(const RunSpec& call, const Algorithm& a,
                                   const Topology& topology, const Model& model) {
  try {
    Machine m({.topology = parse_topology(topology.spec()), .model = model, .trace = false});
    return run_collective(m, run_of(call, a)).result.stats();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Algorithm `a`'s time on this machine with the stragglers of `model` (skew, slow nodes,
// noise: docs/model.md), from a timing-only virtual-time run; empty when it cannot run.
std::optional<Picos> straggled_time(const RunSpec& call, const Algorithm& a,
                                    const Topology& topology, const Model& model) {
  try {
    Machine m({.topology = parse_topology(topology.spec()), .model = model, .trace = false,
               .data = Data::none});
    RunSpec spec = run_of(call, a);
    spec.data = false;
    return run_collective(m, spec).result.time_ps();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The members of a hybrid family (004 §15.1), each run as a.member_row with
// Options::hybrid = i: its label, formula, claim and simulated time; `chosen` marks the one
// selection hands the optimal row (chosen_member).
nlohmann::json family_rows(Operation op, const Algorithm& a, const CostQuery& q) {
  const Algorithm* row = find_algorithm(op, a.member_row);
  nlohmann::json out = nlohmann::json::array();
  if (row == nullptr) return out;
  const std::vector<std::string> labels = a.members(q);
  const std::size_t chosen = static_cast<std::size_t>(chosen_member(op, a, q));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    CostQuery m = q;
    m.options.algorithm = row->name;
    m.options.hybrid = static_cast<int>(i);
    const Picos formula = row->cost(m);
    nlohmann::json e{{"member", i}, {"label", labels[i]}, {"predicted_s", to_seconds(formula)},
                     {"claim", to_string(claim_of(*row, m))}};
    if (auto simulated = simulated_cost(op, *row, m)) e["simulated_s"] = to_seconds(*simulated);
    out.push_back(e);
  }
  if (!out.empty()) out[chosen]["chosen"] = true;
  return out;
}

void explain(const ExplainOptions& o) {
  const Operation op = parse_operation(o.call.op);
  auto topology = o.machine.parsed_topology();
  const RunSpec spec{.op = op, .n = o.call.n, .root = o.call.root, .type = o.call.item_type(),
                     .reduction = o.call.reduction, .segment_items = o.call.segment_items,
                     .strategy = o.call.strategy.empty()
                                     ? std::vector<int>{}
                                     : global_combine::parse_strategy(o.call.strategy),
                     .hybrid = o.call.hybrid,
                     .dopl_steps = parse_dopl_steps(o.call.dopl_steps)};
  if (spec.root < 0 || spec.root >= topology->nodes()) {
    throw UsageError("--root " + std::to_string(spec.root) + " is not a node of " +
                     topology->spec());
  }
  check_type_and_reduction(spec.type, spec.reduction);
  check_dopl_steps(spec.op, spec.dopl_steps);
  const Model model = o.machine.model();
  check_link_rates(*topology, model);
  const CostQuery q = run_query(*topology, model, spec);
  const Algorithm* winner = nullptr;
  try {
    winner = &select_algorithm(op, q);
  } catch (const std::invalid_argument&) {
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const Algorithm& a : algorithms(op)) {
    nlohmann::json row{{"algorithm", a.name}, {"applicable", a.applicable(q)}};
    if (a.applicable(q)) {
      const CostQuery as_run = row_query(op, a, q);  // a family's row: the member it runs
      row["predicted_s"] = to_seconds(a.cost(as_run));
      row["claim"] = to_string(claim_of(a, as_run));
      if (auto simulated = simulated_cost(op, a, q)) {
        row["simulated_s"] = to_seconds(*simulated);
        if (auto s = contention_of(spec, a, *topology, q.model)) {
          row["contention_delay_s"] = to_seconds(s->contention_delay);
          row["contention_critical_delay_s"] = to_seconds(s->contention_critical_delay);
        }
      }
      if (perturbed(model)) {
        if (auto t = straggled_time(spec, a, *topology, model)) {
          row["with_stragglers_s"] = to_seconds(*t);
        }
      }
      if (a.detail != nullptr) row["detail"] = a.detail(as_run);
      if (a.members != nullptr) row["family"] = family_rows(op, a, q);
    } else {
      row["requires"] = requirements_for_cli(a.requirements);
    }
    row["chosen"] = &a == winner;
    rows.push_back(row);
  }
  if (o.json) {
    nlohmann::json out{{"op", o.call.op}, {"topology", topology->spec()}, {"p", q.p}, {"n", q.n},
                       {"root", q.root}, {"type", spec.type}, {"model", describe(q.model)},
                       {"chosen", winner ? winner->name : ""},
                       {"algorithms", rows}};
    if (perturbed(model)) out["stragglers"] = describe_stragglers(model);
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::printf("%s of n = %zu on %s (p = %d): %s\n\n", o.call.op.c_str(), q.n,
              topology->spec().c_str(), q.p, describe(q.model).c_str());
  const bool simulated = selection_simulates(q);
  const bool straggled = perturbed(model);
  if (straggled) {
    std::printf("Stragglers: %s. Selection and the formulas take the machine without them;\n"
                "the last columns run each algorithm with them (virtual time) and say how much\n"
                "longer it takes than without.\n\n",
                describe_stragglers(model).c_str());
  }
  if (simulated) {
    std::printf("Selection runs the algorithms in virtual time on this machine, the least\n"
                "formula first, and takes the least time: within a budget of private runs that\n"
                "shrinks with p (docs/algorithms.md), past which a candidate is judged by its\n"
                "formula. The formula column is the closed-form cost; its claim\n"
                "says what it promises: exact (equal to the run), lower bound (the run never\n"
                "takes less) or estimate (no promise).\n\n");
    std::printf("Contention: the time messages lost to contention, summed over all messages,\n"
                "and how much of the simulated time it costs (the simulated time minus that of\n"
                "the same schedule with links that hold no one up).\n\n");
    if (!q.model.link_rates.empty()) {
      std::printf("Links of unequal bandwidth (002): the formulas price every link at beta_net;\n"
                  "the simulated column runs each algorithm with the per-class rates.\n\n");
    }
    std::printf("   %-28s %14s %-12s %14s %14s %14s", "algorithm", "formula", " claim",
                "simulated", "contention", "of the time");
  } else {
    if (!q.model.link_rates.empty()) {
      std::printf("Links of unequal bandwidth (002): the formulas price every link at beta_net,\n"
                  "so the per-class rates are not in this prediction (too large to simulate).\n\n");
    }
    std::printf("   %-28s %14s %-12s", "algorithm", "predicted", " claim");
  }
  if (straggled) std::printf(" %14s %14s", "straggled", "growth");
  std::printf("\n");
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
        for (const char* key : {"contention_delay_s", "contention_critical_delay_s"}) {
          std::printf(" %14s", row.contains(key)
                                   ? format_duration(row[key].get<double>()).c_str()
                                   : "-");
        }
      }
      if (straggled) {
        if (row.contains("with_stragglers_s")) {
          // Growth over the steady time the run is compared with: simulated, else predicted.
          const double with = row["with_stragglers_s"].get<double>();
          const double without = row.contains("simulated_s") ? row["simulated_s"].get<double>()
                                                             : row["predicted_s"].get<double>();
          std::printf(" %14s %14s", format_duration(with).c_str(),
                      ((with >= without ? "+" : "") + format_duration(with - without)).c_str());
        } else {
          std::printf(" %14s %14s", "-", "-");
        }
      }
      if (row.contains("detail")) std::printf("   %s", row["detail"].get<std::string>().c_str());
      std::printf("\n");
    } else {
      std::printf("   %-28s %14s %-12s   requires %s\n", name.c_str(), "n/a", "",
                  row["requires"].get<std::string>().c_str());
    }
  }
  for (const auto& row : rows) {
    if (!row.contains("family")) continue;
    const std::string name = row["algorithm"];
    const std::string given = find_algorithm(op, name)->member_row;
    std::printf("\n%s runs the member of %s with the least time (004 §15.1; run one with "
                "--algorithm %s --hybrid N):\nthe least formula where every member's formula is "
                "exact, the least simulated time where one is not\n(and the least formula where "
                "the members are too large to simulate).\nLabels: R/S@D is "
                "a ring of R nodes S apart along dimension D (R@D: neighbours), in the order "
                "the member runs them.\n",
                name.c_str(), given.c_str(), given.c_str());
    std::printf("   %-9s %14s %-12s", "member", simulated ? "formula" : "predicted", " claim");
    if (simulated) std::printf(" %14s", "simulated");
    std::printf("   %s\n", "what it runs");
    for (const auto& e : row["family"]) {
      std::printf("%s N = %-5d %14s %-12s", e.contains("chosen") ? "=>" : "  ",
                  e["member"].get<int>(), format_duration(e["predicted_s"].get<double>()).c_str(),
                  (" " + e["claim"].get<std::string>()).c_str());
      if (simulated) {
        std::printf(" %14s", e.contains("simulated_s")
                                 ? format_duration(e["simulated_s"].get<double>()).c_str()
                                 : "(too large)");
      }
      std::printf("   %s\n", e["label"].get<std::string>().c_str());
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
  o->call.add_to(cmd, /*with_algorithm=*/false);
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->callback([o] { explain(*o); });
}

}  // namespace vmc::cli
