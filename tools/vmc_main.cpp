// vmc: the command-line front end of the emulated multicomputer.
#include <exception>
#include <iostream>

#include "tools/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"vmc: a shared-memory emulated multicomputer and its collective algorithms"};
  app.require_subcommand(1);
  vmc::cli::add_topo_command(app);
  vmc::cli::add_demo_command(app);
  vmc::cli::add_list_command(app);
  vmc::cli::add_run_command(app);
  vmc::cli::add_explain_command(app);
  vmc::cli::add_sweep_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "vmc: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
