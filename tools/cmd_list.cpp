// `vmc list`: every operation's registered algorithms with their descriptions and
// requirements, read from the registry tables (the same rows selection and tests use).
//   vmc list            a text table
//   vmc list --json     [{operation, algorithm, description, requirements}, ...]; a row that a
//                       library added (--load) also has loaded_from, its file
//   vmc list --markdown docs/algorithms.md's table: one row per operation, each algorithm with
//                       what it requires (a test holds the page to this output)
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "collectives/registry.hpp"
#include "tools/algorithm_libraries.hpp"
#include "tools/commands.hpp"
#include "tools/model_options.hpp"

namespace vmc::cli {

void add_list_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto markdown = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("list", "list the collective algorithms of every operation");
  auto* json_flag = cmd->add_flag("--json", *json, "print a JSON array instead of text");
  cmd->add_flag("--markdown", *markdown, "print the Markdown table of docs/algorithms.md")->excludes(json_flag);
  cmd->callback([json, markdown] {
    if (*markdown) {
      std::cout << "| operation | algorithms (what each requires, where it does not apply "
                   "everywhere) |\n|---|---|\n";
      for (Operation op : all_operations()) {
        std::cout << "| " << to_string(op) << " | ";
        bool first = true;
        for (const Algorithm& a : algorithms(op)) {
          std::cout << (first ? "" : ", ") << '`' << a.name << '`';
          if (a.requirements != "nothing") {
            std::cout << " (" << requirements_for_cli(a.requirements) << ")";
          }
          if (auto file = loaded_from(op, a.name)) std::cout << " (loaded from " << *file << ")";
          first = false;
        }
        std::cout << " |\n";
      }
      return;
    }
    if (*json) {
      nlohmann::json rows = nlohmann::json::array();
      for (Operation op : all_operations()) {
        for (const Algorithm& a : algorithms(op)) {
          rows.push_back({{"operation", to_string(op)},
                          {"algorithm", a.name},
                          {"description", a.description},
                          {"requirements", a.requirements}});
          if (auto file = loaded_from(op, a.name)) rows.back()["loaded_from"] = *file;
        }
      }
      std::cout << rows.dump(2) << "\n";
      return;
    }
    for (Operation op : all_operations()) {
      std::cout << to_string(op) << "\n";
      for (const Algorithm& a : algorithms(op)) {
        std::cout << "  " << a.name << "\n      " << a.description << "\n      requires: "
                  << requirements_for_cli(a.requirements) << "\n";
        if (auto file = loaded_from(op, a.name)) std::cout << "      loaded from " << *file << "\n";
      }
    }
  });
}

}  // namespace vmc::cli
