// The subcommands of the vmc command-line program. Each lives in its own cmd_*.cpp and
// registers itself on the top-level CLI11 app.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace vmc::cli {

void add_topo_command(CLI::App& app);   // cmd_topo.cpp
void add_demo_command(CLI::App& app);   // cmd_demo.cpp
void add_list_command(CLI::App& app);   // cmd_list.cpp
void add_run_command(CLI::App& app);    // cmd_run.cpp
void add_explain_command(CLI::App& app);  // cmd_explain.cpp
void add_sweep_command(CLI::App& app);    // cmd_sweep.cpp
void add_show_command(CLI::App& app);     // cmd_show.cpp
void add_figure_command(CLI::App& app);   // cmd_figure.cpp
void add_calibrate_command(CLI::App& app);  // cmd_calibrate.cpp
void add_mpirun_command(CLI::App& app);     // cmd_mpirun.cpp
// mpirun's -np (MPI's spelling; CLI11 takes one-letter short flags only): rewritten to --np
// in argv, up to the program's name (cmd_mpirun.cpp).
void mpirun_spell_np(int argc, char** argv);
// Every subcommand above, on app (cmd_figure.cpp: a figure runs the others).
void add_commands(CLI::App& app);

// "1:65536:x2", "0:100:+10" or "1,5,9" (cmd_sweep.cpp).
std::vector<std::size_t> parse_lengths(const std::string& text, const char* what = "length list");

}  // namespace vmc::cli
