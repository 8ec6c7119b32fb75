// `vmc mpirun`: an MPI program built by vmcc, every rank a node of an emulated machine, all of
// them in this process (mpi/program.hpp loads a private copy of the program per rank;
// libvmc_mpi runs their MPI calls on vmc).
//
//   tools/vmcc ring.c -o ring
//   vmc mpirun -np 8 --topology ring:8 --alpha 10us --beta 1ns ./ring [ARGS...]
//
// The machine flags are vmc run's. Without --topology the ranks are fully connected
// (full:P); with it, -np may be left out (P is its node count) and must match when given.
// Exit status 0 when every rank's main returned 0; otherwise the ranks that did not are
// named. --stats prints the run's virtual time and messages (on stderr).
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi/job.hpp"
#include "mpi/program.hpp"
#include "runtime/machine.hpp"
#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"

namespace vmc::cli {
namespace {

struct MpirunOptions {
  ModelOptions machine;
  int np = 0;
  std::string clock = "virtual";
  double time_scale = 1.0;
  EngineOptions engine;
  bool stats = false;
  const CLI::Option* topology_flag = nullptr;
  const CLI::Option* np_flag = nullptr;
};

void mpirun_command(const MpirunOptions& o, const std::vector<std::string>& rest) {
  if (rest.empty()) throw UsageError("mpirun: give the program to run (built by vmcc)");
  MachineConfig config;
  if (o.topology_flag->count() > 0) {
    config.topology = o.machine.parsed_topology();
    if (o.np_flag->count() > 0 && o.np != config.topology->nodes()) {
      throw UsageError("mpirun: -np " + std::to_string(o.np) + " disagrees with --topology " +
                       config.topology->spec() + " of " +
                       std::to_string(config.topology->nodes()) + " nodes");
    }
  } else {
    if (o.np_flag->count() == 0) throw UsageError("mpirun: give -np P (or --topology)");
    config.topology = parse_topology("full:" + std::to_string(o.np));
  }
  config.model = o.machine.model();
  config.clock = parse_clock(o.clock);
  config.time_scale = o.time_scale;
  config.trace = false;
  config.allow_self_messages = true;  // MPI ranks may send to themselves
  o.engine.apply(config);
  if (config.data == Data::none) {
    throw UsageError("mpirun: an MPI program needs its data: --data none is for vmc run");
  }
  check_link_rates(*config.topology, config.model);
  const int p = config.topology->nodes();

  mpi::RankPrograms programs(rest.front(), p);
  // Every rank its own argv, writable, as a process would have.
  std::vector<std::vector<std::string>> args(p, rest);
  std::vector<std::vector<char*>> argv(p);
  for (int r = 0; r < p; ++r) {
    for (std::string& a : args[r]) argv[r].push_back(a.data());
    argv[r].push_back(nullptr);
  }
  std::vector<int> status(p, 0);
  mpi::begin_job({.ranks = p});
  Machine m(config);
  const RunResult result = m.run([&](Node& node) {
    const int r = node.rank();
    status[r] = programs.run(r, static_cast<int>(args[r].size()), argv[r].data());
  });
  std::fflush(stdout);
  if (o.stats) {
    std::fprintf(stderr, "vmc mpirun: %d ranks on %s, %s clock: time %s, messages %llu\n", p,
                 config.topology->spec().c_str(), o.clock.c_str(),
                 format_duration(result.time()).c_str(),
                 static_cast<unsigned long long>(result.stats().messages));
  }
  std::string failed;
  int count = 0;
  for (int r = 0; r < p; ++r) {
    if (status[r] == 0) continue;
    failed += (failed.empty() ? "" : ", ") + std::to_string(r) + " (" +
              std::to_string(status[r]) + ")";
    ++count;
  }
  if (count > 0) {
    throw std::runtime_error("mpirun: " + std::string(count == 1 ? "rank " : "ranks ") + failed +
                             " returned non-zero from main");
  }
}

}  // namespace

void add_mpirun_command(CLI::App& app) {
  auto o = std::make_shared<MpirunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "mpirun", "run an MPI program built by vmcc, every rank a node (-np P PROGRAM [ARGS])");
  o->np_flag = cmd->add_option("--np", o->np, "ranks (also -np)")->check(int_check(1, 1 << 20));
  o->machine.add_to(cmd);
  add_clock_options(cmd, o->clock, o->time_scale);
  o->engine.add_to(cmd);
  cmd->add_flag("--stats", o->stats, "print the virtual time and the messages on stderr");
  o->topology_flag = cmd->get_option("--topology");
  // PROGRAM and everything after it are the program's: no flag of vmc is read there.
  cmd->prefix_command();
  cmd->callback([o, cmd] { mpirun_command(*o, cmd->remaining()); });
}

void mpirun_spell_np(int argc, char** argv) {
  static char long_np[] = "--np";
  if (argc < 2 || std::string(argv[1]) != "mpirun") return;
  // Up to PROGRAM: every flag of mpirun takes a value but --stats and --help.
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-np") {
      argv[i] = long_np;
      ++i;
    } else if (a == "--stats" || a == "--help" || a == "-h" ||
               a.find('=') != std::string::npos) {
      continue;
    } else if (a.size() > 1 && a[0] == '-') {
      ++i;  // its value
    } else {
      return;  // PROGRAM
    }
  }
}

}  // namespace vmc::cli
