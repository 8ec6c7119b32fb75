// `vmc list`: every operation's registered algorithms with their descriptions and
// requirements, read from the registry tables (the same rows selection and tests use).
//   vmc list            a text table
//   vmc list --json     [{operation, algorithm, description, requirements}, ...]
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "collectives/registry.hpp"
#include "tools/commands.hpp"

namespace vmc::cli {

void add_list_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("list", "list the collective algorithms of every operation");
  cmd->add_flag("--json", *json, "print a JSON array instead of text");
  cmd->callback([json] {
    if (*json) {
      nlohmann::json rows = nlohmann::json::array();
      for (Operation op : all_operations()) {
        for (const Algorithm& a : algorithms(op)) {
          rows.push_back({{"operation", to_string(op)},
                          {"algorithm", a.name},
                          {"description", a.description},
                          {"requirements", a.requirements}});
        }
      }
      std::cout << rows.dump(2) << "\n";
      return;
    }
    for (Operation op : all_operations()) {
      std::cout << to_string(op) << "\n";
      for (const Algorithm& a : algorithms(op)) {
        std::cout << "  " << a.name << "\n      " << a.description << "\n      requires: "
                  << a.requirements << "\n";
      }
    }
  });
}

}  // namespace vmc::cli
