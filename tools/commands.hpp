// The subcommands of the vmc command-line program. Each lives in its own cmd_*.cpp and
// registers itself on the top-level CLI11 app.
#pragma once

#include <CLI/CLI.hpp>
#include <exception>
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
void add_tune_command(CLI::App& app);       // cmd_tune.cpp
// mpirun's -np (MPI's spelling; CLI11 takes one-letter short flags only): rewritten to --np
// in argv, up to the program's name, which is the first word that is neither a flag of
// mpirun's (as `app` defines them) nor a flag's value (cmd_mpirun.cpp).
void mpirun_spell_np(const CLI::App& app, int argc, char** argv);

// A command that has reported what went wrong itself ends vmc with this exit status (vmc
// mpirun: a rank's status, MPI_Abort's code).
class ExitStatus : public std::exception {
 public:
  explicit ExitStatus(int status) : status_(status) {}
  int status() const { return status_; }
  const char* what() const noexcept override { return "exit status"; }

 private:
  int status_;
};
// Every subcommand above, on app (cmd_figure.cpp: a figure runs the others).
void add_commands(CLI::App& app);

// "1:65536:x2", "0:100:+10", "1:12" (every count from 1 to 12) or "1,5,9" (cmd_sweep.cpp).
std::vector<std::size_t> parse_lengths(const std::string& text, const char* what = "length list");
// The check of a flag that takes such a list: `name` is what CLI11 calls its type, `what` what
// the error calls the list.
CLI::Validator list_check(const char* name, const char* what);

}  // namespace vmc::cli
