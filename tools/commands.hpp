// The subcommands of the vmc command-line program. Each lives in its own cmd_*.cpp and
// registers itself on the top-level CLI11 app.
#pragma once

#include <CLI/CLI.hpp>

namespace vmc::cli {

void add_topo_command(CLI::App& app);   // cmd_topo.cpp
void add_demo_command(CLI::App& app);   // cmd_demo.cpp
void add_list_command(CLI::App& app);   // cmd_list.cpp
void add_run_command(CLI::App& app);    // cmd_run.cpp
void add_explain_command(CLI::App& app);  // cmd_explain.cpp

}  // namespace vmc::cli
